// The table's chat: a list of messages (always as text, never as markup), each with its time, and a
// line to type in with the room left shown as you type. A seat can hide what spectators say. Lines
// that arrive while you are not reading (scrolled up, the chat out of sight, another tab) are counted
// in an unread mark; a click on it brings you to them. Messages come again after a reconnect: each
// is shown once. An account's name opens its page (block or report it there). Who said it is written
// by the table (``nameOf``), and again whenever the seats' names change.

import { el } from "./ui.js";

const MAX_CHAT = 500; // the server's limit (docs/web.md, Chat)

function clockTime(at) {
  const d = new Date(at * 1000);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

export class ChatPanel {
  /** send(text) -> bool (false: not connected); isSeat: a seat may hide spectators' messages;
   * nameOf(message): the name to show for a seat's message (its own name by default). */
  constructor(send, isSeat, nameOf = (m) => m.name) {
    this.send = send;
    this.nameOf = nameOf;
    this.seen = new Set();
    this.unread = 0;
    this.since = Date.now() / 1000 - 2; // what was said before the page opened is not "new"
    this.mine = []; // texts this page sent, whose echo is not news to it
    this.list = el("ul.chat-list", { "data-testid": "chat-list", "aria-live": "polite",
      onscroll: () => this.readIfSeen() });
    const input = el("input.chat-input", { type: "text", maxlength: MAX_CHAT, placeholder: "Say something…",
      "aria-label": "Chat message", "data-testid": "chat-input", oninput: () => this.count() });
    this.input = input;
    this.left = el("span.chat-left", { "data-testid": "chat-left", "aria-live": "polite" });
    const form = el("form.chat-form", {
      onsubmit: (ev) => {
        ev.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        if (this.send(text)) {
          this.mine.push(text);
          if (this.mine.length > 20) this.mine.shift();
          input.value = "";
          this.count();
        }
      },
    }, input, this.left, el("button.small", { type: "submit", "data-testid": "chat-send" }, "Send"));
    const mute = isSeat ? el("label.chat-mute", el("input", { type: "checkbox", "data-testid": "chat-mute",
      onchange: (ev) => this.node.classList.toggle("mute-spectators", ev.target.checked) }), " Hide spectators")
      : null;
    this.badge = el("button.chat-unread", { type: "button", hidden: true, "data-testid": "chat-unread",
      onclick: () => this.readNow() });
    this.node = el("div.chat", { "data-testid": "chat" }, el("div.chat-head", el("h3", "Chat"), this.badge, mute),
      this.list, form);
    this.count();
    // The table page drops the panel without telling it: the first event after that lets go.
    this.onVisible = () => (this.node.isConnected || !this.started ? this.readIfSeen() : this.destroy());
    this.started = false;
    requestAnimationFrame(() => { this.started = true; });
    document.addEventListener("visibilitychange", this.onVisible);
    if ("IntersectionObserver" in window) {
      this.inView = false;
      this.watch = new IntersectionObserver((entries) => {
        if (!this.node.isConnected && this.started) {
          this.destroy();
          return;
        }
        this.inView = entries.some((e) => e.isIntersecting);
        this.node.classList.toggle("away", !this.inView); // the unread mark then floats in sight
        this.readIfSeen();
      });
      this.watch.observe(this.list);
    } else {
      this.inView = true;
    }
  }

  count() {
    const left = MAX_CHAT - this.input.value.length;
    this.left.textContent = `${left}`;
    this.left.title = `${left} of ${MAX_CHAT} characters left`;
    this.left.classList.toggle("near", left <= 50);
  }

  atBottom() {
    return this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 24;
  }

  reading() {
    return !document.hidden && this.inView && this.atBottom();
  }

  readIfSeen() {
    if (this.unread && this.reading()) this.setUnread(0);
  }

  readNow() {
    this.list.scrollIntoView({ block: "nearest" });
    this.list.scrollTop = this.list.scrollHeight;
    this.setUnread(0);
  }

  setUnread(n) {
    this.unread = n;
    this.badge.hidden = n === 0;
    this.badge.textContent = `${n} new in the chat`;
    this.node.classList.toggle("has-unread", n > 0);
  }

  add(msg) {
    const key = `${msg.at}|${msg.seat}|${msg.name}|${msg.text}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const stick = this.atBottom();
    const table = (location.hash.match(/^#\/table\/([^/?]+)/) || [])[1];
    const name = msg.account
      ? el("a.chat-name", { href: `#/player/${encodeURIComponent(msg.account)}${table ? `?table=${table}` : ""}`,
        title: `${msg.account}'s page: block or report` }, this.who(msg))
      : el("b", this.who(msg));
    const at = new Date(msg.at * 1000);
    const li = el(`li${msg.seat === null ? ".spectator" : ""}`, { "data-name": msg.name },
      el("time.chat-time", { datetime: at.toISOString(), title: at.toLocaleString() }, clockTime(msg.at)), " ",
      name, " ", el("span", msg.text));
    li.message = msg;
    li.nameNode = name;
    this.list.append(li);
    while (this.list.children.length > 200) this.list.firstChild.remove();
    if (stick) this.list.scrollTop = this.list.scrollHeight;
    const own = this.mine.indexOf(msg.text);
    if (own >= 0) this.mine.splice(own, 1);
    else if (msg.at >= this.since && !this.reading()) this.setUnread(this.unread + 1);
  }

  who(msg) {
    return msg.seat === null ? `${msg.name} (watching):` : `${this.nameOf(msg)}:`;
  }

  /** The seats' names changed: each message's speaker again. */
  rename() {
    for (const li of this.list.children) li.nameNode.textContent = this.who(li.message);
  }

  /** The moderator deleted lines: the list starts again (the lines left come next). */
  clear() {
    this.list.replaceChildren();
    this.seen.clear();
    this.setUnread(0);
  }

  destroy() {
    document.removeEventListener("visibilitychange", this.onVisible);
    if (this.watch) this.watch.disconnect();
  }
}
