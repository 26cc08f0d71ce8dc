// The table's chat: a list of messages (always as text, never as markup) and a line to type in.
// A seat can hide what spectators say. Messages come again after a reconnect: each is shown once.
// Who said it is written by the table (``nameOf``), and again whenever the seats' names change.

import { el } from "./ui.js";

export class ChatPanel {
  /** send(text) -> bool (false: not connected); isSeat: a seat may hide spectators' messages;
   * nameOf(message): the name to show for a seat's message (its own name by default). */
  constructor(send, isSeat, nameOf = (m) => m.name) {
    this.send = send;
    this.nameOf = nameOf;
    this.seen = new Set();
    this.list = el("ul.chat-list", { "data-testid": "chat-list", "aria-live": "polite" });
    const input = el("input.chat-input", { type: "text", maxlength: 500, placeholder: "Say something…",
      "aria-label": "Chat message", "data-testid": "chat-input" });
    const form = el("form.chat-form", {
      onsubmit: (ev) => {
        ev.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        if (this.send(text)) input.value = "";
      },
    }, input, el("button.small", { type: "submit", "data-testid": "chat-send" }, "Send"));
    const mute = isSeat ? el("label.chat-mute", el("input", { type: "checkbox", "data-testid": "chat-mute",
      onchange: (ev) => this.node.classList.toggle("mute-spectators", ev.target.checked) }), " Hide spectators")
      : null;
    this.node = el("div.chat", { "data-testid": "chat" }, el("div.chat-head", el("h3", "Chat"), mute), this.list, form);
  }

  add(msg) {
    const key = `${msg.at}|${msg.seat}|${msg.name}|${msg.text}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const li = el(`li${msg.seat === null ? ".spectator" : ""}`, el("b", this.who(msg)), el("span", msg.text));
    li.message = msg;
    this.list.append(li);
    while (this.list.children.length > 200) this.list.firstChild.remove();
    this.list.scrollTop = this.list.scrollHeight;
  }

  who(msg) {
    return msg.seat === null ? `${msg.name} (watching): ` : `${this.nameOf(msg)}: `;
  }

  /** The seats' names changed: each message's speaker again. */
  rename() {
    for (const li of this.list.children) li.firstChild.textContent = this.who(li.message);
  }
}
