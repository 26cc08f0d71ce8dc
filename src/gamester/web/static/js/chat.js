// The table's chat: a list of messages (always as text, never as markup) and a line to type in.
// A seat can hide what spectators say. Messages come again after a reconnect: each is shown once.

import { el } from "./ui.js";

export class ChatPanel {
  /** send(text) -> bool (false: not connected); isSeat: a seat may hide spectators' messages. */
  constructor(send, isSeat) {
    this.send = send;
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
    const who = msg.seat === null ? `${msg.name} (watching)` : msg.name;
    this.list.append(el(`li${msg.seat === null ? ".spectator" : ""}`, el("b", `${who}: `), el("span", msg.text)));
    while (this.list.children.length > 200) this.list.firstChild.remove();
    this.list.scrollTop = this.list.scrollHeight;
  }
}
