// The table screen: joining a seat, waiting for friends, playing or watching over the WebSocket,
// hints, the clock, the game log and the end of the game. What each game draws comes from
// the game's own package (its web.js, served at /games/<name>/web.js).

import { agentLevel, api, forgetSeat, gameInfo, mySeat, rememberSeat, tablePath, TableSocket } from "./api.js";
import { animationsOn, clear, copyText, el, settings, saveSettings, sleep, SUITS, toast, withCards } from "./ui.js";
import { flipAfter, flipBefore } from "./flip.js";
import generic from "./games/generic.js";
import { currentUser } from "./people.js";
import { ChatPanel } from "./chat.js";
import { leftWords } from "./quickplay.js";
import { fetchReview } from "./review.js";
import { playSound } from "./sounds.js";

const drawings = new Map();
// How long another player's move stays shown, as a multiple of the game's own pause (Settings: pace).
const PACE = { fast: 0.5, normal: 1.6, slow: 3 };
// A completed trick stays drawn, its winner named, at least this long (ms) before the next move is
// drawn, whoever played its last card; longer at a slower pace; a click on the table moves on.
const TRICK_HOLD = 1500;
// The log is data: a list of {text, kind} entries, saved in this format (older pages' logs are
// ignored) and drawn as text. A seat's name is kept in a text as a mark (seatMark) and written when
// the line is drawn, so every line names each seat as it is named now. Only the last LOG_MAX are kept.
const LOG_FORMAT = 3;
const LOG_MAX = 400;
const CARD = /\b[2-9TJQKA][CDHS]\b/; // a move that plays a card (the card sound)
const SEAT_MARK = /\uE000(\d+)\uE001/g;
const LESSON_SEAT = /\{seat:(\d+)\}/g; // how a lesson writes a seat (gamester.core.lesson.seat)
const MARK_CHARS = /[\uE000\uE001]/g;

/** The mark that stands for seat ``s``'s name in a log line (private-use characters). */
const seatMark = (s) => `\uE000${s}\uE001`;

/** A name typed by a person, safe to put in a line: it cannot hold a seat's mark. */
const unmarked = (text) => String(text).replace(MARK_CHARS, "");

/** The last completed trick among a view's ``events`` that this viewer was shown, or null. */
function completedTrick(events, me) {
  const seen = (events || []).filter((e) => e.type === "trick" && (!e.seats || (me !== null && e.seats.includes(me))));
  return seen.length ? seen[seen.length - 1] : null;
}

/** A narrated line (what a game's narrate() returns) as a log entry: its text and its kind. */
function logEntry(node) {
  if (typeof node === "string") return { text: node, kind: "" };
  const kind = node.tagName === "STRONG" ? "end" : node.classList.contains("deal-line") ? "deal" : "";
  return { text: node.textContent, kind };
}

/** A log line's text with each card or suit sign (Q♥, ♠) coloured as the cards are. */
function suitedText(text) {
  return text.split(/(\S*[♣♦♥♠])/).map((part, i) => (i % 2 ? el(`span.ct.s${SUIT_OF[part.slice(-1)]}`, part) : part));
}
const SUIT_OF = Object.fromEntries(Object.entries(SUITS).map(([letter, sign]) => [sign, letter]));

/** A computer player's level as the lobby says it ("Casual"), from its spec. */
function agentWord(info, spec) {
  return agentLevel(info, spec) || spec || "a computer player";
}

/** What follows a seat abandoned (docs/web.md, Leaving and abandoned seats), said to everyone. */
function abandonedLine(e, ctx) {
  const name = e.name ? unmarked(e.name) : `Seat ${e.seat + 1}`;
  const how = e.how === "gone" ? `${name} has gone (no connection)` : `${name} left the table`;
  if (e.then === "bot") return `${how}: the computer (${agentWord(ctx.info, e.agent)}) plays that seat now.`;
  if (e.then === "forfeit") return `${how} and forfeits the game.`;
  return ctx.table && ctx.table.rated
    ? `${how} before everyone had played: the game is aborted, no rating changes.`
    : `${how}, and nobody else is left: the game is aborted.`;
}

/** The table's own events, the same in every game: a clock run out, a seat left, abandoned or taken
 * back; a stand-in's move is marked on its own line (addEvents). */
function tableNarrate(e, ctx) {
  const who = (s) => (s === ctx.me ? "You" : ctx.names[s] || `Seat ${s + 1}`);
  switch (e.type) {
    case "timeout":
      return `${who(e.seat)} ran out of time: the bot plays for ${e.seat === ctx.me ? "you" : "that seat"}.`;
    case "left": // the one who left, by the name they had (the seat may have someone else now)
      return `${e.name ? unmarked(e.name) : who(e.seat)} left the table.`;
    case "abandoned":
      return abandonedLine(e, ctx);
    case "taken_back":
      return e.seat === ctx.me ? "You took the seat back from the computer."
        : `${e.name ? unmarked(e.name) : who(e.seat)} took seat ${e.seat + 1} back from the computer.`;
    case "stand_in":
      return "";
    default:
      return null;
  }
}

/** The drawing for a game: the web.js its package ships (the server serves it from there), or the
 * generic one for a game that ships none. Each is loaded once a page. */
export function gameModule(name) {
  if (!drawings.has(name)) {
    drawings.set(name, import(`/games/${encodeURIComponent(name)}/web.js`).then(
      (mod) => mod.default,
      () => generic,
    ));
  }
  return drawings.get(name);
}

/** The link that seats a friend (seat and its invite code), or that lets one watch (seat null: the
 * private table's watch code). */
export function inviteLink(tableId, seat, code) {
  const q = [seat === null ? null : `seat=${seat}`, code ? `invite=${encodeURIComponent(code)}` : null];
  return `${location.origin}/#/table/${encodeURIComponent(tableId)}?${q.filter(Boolean).join("&")}`;
}

/** The replay page of a table, from a seat's view (null: a spectator's), with a private table's code. */
export function replayLink(tableId, seat, code) {
  const q = [seat === null ? null : `seat=${seat}`, code ? `invite=${encodeURIComponent(code)}` : null];
  const query = q.filter(Boolean).join("&");
  return `#/replay/${encodeURIComponent(tableId)}${query ? `?${query}` : ""}`;
}

/** A name for every seat as a player would say it: "You", a person's name, or the bot's level. */
export function seatNames(table, info, me) {
  const short = (s) => agentLevel(info, s.agent) || s.agent || "Computer";
  const names = table.seats.map((s) => {
    if (me !== null && s.seat === me) return "You";
    if (s.kind === "bot") return short(s);
    return s.name || `Seat ${s.seat + 1}`; // nobody sits there (yet, or any more)
  });
  // Two bots of one level (or two people of one name) get their seat number to tell them apart.
  return names.map((n, i) => (n !== "You" && names.filter((m) => m === n).length > 1 ? `${n} ${i + 1}` : n));
}

export class TableScreen {
  constructor(root, tableId, params) {
    this.root = root;
    this.id = tableId;
    this.params = params;
    this.sock = null;
    this.queue = [];
    this.busy = false;
    this.view = null;
    this.prev = null;
    this.log = [];
    this.news = [];
    this.held = null; // the completed trick drawn over the view's own (a trick event)
    this.holding = null; // the hold on the view shown: {done, end, least} (startHold)
    this.lastTrick = null; // the last completed trick, for "Last trick"
    this.peek = false; // "Last trick" pressed
    this.hint = null;
    this.hintPending = false;
    this.selection = {};
    this.pending = false;
    this.closed = false;
    this.clockTimer = null;
    this.reviewing = false;
    this.refused = null;
    this.keyHandler = (ev) => this.onKey(ev);
    document.addEventListener("keydown", this.keyHandler);
    this.start();
  }

  destroy() {
    this.closed = true;
    if (this.sock) this.sock.close();
    clearInterval(this.clockTimer);
    document.removeEventListener("keydown", this.keyHandler);
    document.documentElement.classList.remove("lesson-sheet"); // the lesson's sheet leaves with its table
  }

  async start() {
    clear(this.root).append(el("p.loading", "Opening the table…"));
    try {
      this.table = await api(this.path());
      this.info = await gameInfo(this.table.game);
    } catch (e) {
      clear(this.root).append(el("div.panel.error-panel", el("h2", "This table cannot be opened"),
        el("p", e.message), el("a.button", { href: "#/" }, "Back to the lobby")));
      return;
    }
    this.game = await gameModule(this.table.game);
    this.user = await currentUser();
    if (!mySeat(this.id) && this.user) await this.rejoinAccountSeat();
    const saved = mySeat(this.id);
    const invited = this.params.get("seat");
    if (saved) {
      this.me = saved.seat;
      this.token = saved.token;
      this.connect();
    } else if (invited !== null && this.openSeats().includes(Number(invited))
      && (this.table.open || this.params.get("invite"))) { // a kept seat is offered with its code only
      this.showJoin(Number(invited), this.table.status === "playing"); // playing: an abandoned seat
    } else if (this.table.status === "waiting" && this.openSeats().length && this.table.open) {
      this.showJoin(null);
    } else {
      this.me = null;
      this.token = null;
      this.connect();
    }
  }

  /** A seat this account took on another device: sit down again (the same token comes back). */
  async rejoinAccountSeat() {
    const own = this.table.seats.find((s) => s.account === this.user.name);
    if (!own) return;
    try {
      const res = await api(`/tables/${encodeURIComponent(this.id)}/join`, { seat: own.seat });
      rememberSeat(this.id, res.seat, res.token);
    } catch {
      // not ours after all (the seat was left): the page goes on as for anyone
    }
  }

  openSeats() {
    const free = (s) => s.kind === "human" && (typeof s.joined === "boolean" ? !s.joined : !s.name);
    return this.table.seats.filter(free).map((s) => s.seat);
  }

  // -- joining -------------------------------------------------------------------------------
  showJoin(seat, back = false) {
    const title = this.info ? this.info.title : this.table.game;
    const names = seatNames(this.table, this.info, null);
    const nameInput = el("input#join-name", { type: "text", maxlength: 40,
      value: this.user ? this.user.name : settings().name, disabled: !!this.user,
      placeholder: "Your name", "aria-label": "Your name", autocomplete: "nickname" });
    const open = seat === null ? this.openSeats() : [seat];
    const who = el("ul.seat-summary", this.table.seats.map((s) => el("li",
      `Seat ${s.seat + 1}: `, s.kind === "bot" ? `${names[s.seat]} (computer)` : s.name || "open")));
    const buttons = open.map((n) => el("button.primary", {
      "data-testid": `take-seat-${n}`,
      onclick: () => this.join(n, nameInput.value.trim()),
    }, open.length > 1 ? `Take seat ${n + 1}` : "Take the seat"));
    const heading = back ? `Take seat ${seat + 1} back from the computer (${title})`
      : seat === null ? `Join a table of ${title}` : `You are invited to play ${title}`;
    clear(this.root).append(el("div.panel.join-panel",
      el("h2", heading),
      this.table.rated ? el("p", this.user ? "A rated game: the result moves your rating."
        : el("span", "A rated game: ", el("a", { href: `#/login?next=${encodeURIComponent(location.hash)}` }, "log in"),
          " to take a seat.")) : null,
      who,
      el("label", "Your name ", nameInput),
      el("div.row", buttons,
        el("button", { onclick: () => { this.me = null; this.connect(); } }, "Just watch"))));
    nameInput.focus();
  }

  async join(seat, name) {
    if (!name) {
      toast("Please type a name first.", "error");
      return;
    }
    if (!this.user) saveSettings({ name });
    try {
      const invite = this.params.get("invite");
      const body = { seat, ...(this.user ? {} : { name }), ...(invite ? { invite } : {}) };
      const res = await api(`/tables/${encodeURIComponent(this.id)}/join`, body);
      rememberSeat(this.id, res.seat, res.token);
      this.me = res.seat;
      this.token = res.token;
      history.replaceState(null, "", `#/table/${encodeURIComponent(this.id)}`);
      this.table = await api(this.path());
      this.connect();
    } catch (e) {
      toast(e.status === 409 && e.code !== "blocked" ? "That seat has just been taken." : e.message, "error");
      this.table = await api(this.path()).catch(() => this.table);
      if (this.openSeats().length) this.showJoin(null);
      else this.connect();
    }
  }

  /** A path of this table under /api, with what lets this page see it if it is private. */
  path(rest = "", query = "") {
    return tablePath(this.id, rest, query, this.params.get("invite"));
  }

  async leave() {
    if (!this.token) return;
    try {
      await api(`/tables/${encodeURIComponent(this.id)}/leave`, { token: this.token });
    } catch (e) {
      toast(e.message, "error");
    }
    forgetSeat(this.id);
    location.hash = "#/";
  }

  // -- the connection ------------------------------------------------------------------------
  connect() {
    this.buildFrame();
    this.sock = new TableSocket(this.id, this.token, (m) => this.onMessage(m), (s) => this.onSocket(s),
      this.params.get("invite"));
  }

  onSocket(state) {
    const notice = this.frame.notice;
    if (state === "open") {
      notice.hidden = true;
    } else if (state === "lost") {
      this.hintPending = false; // a hint asked for is lost with the connection
      notice.hidden = false;
      notice.textContent = "Connection lost — reconnecting…";
    } else if (state === "refused") {
      notice.hidden = false;
      if (this.token) {
        // The seat was left or the token is no longer valid: watch instead.
        forgetSeat(this.id);
        notice.textContent = "Your seat at this table is no longer yours; you are watching.";
        this.token = null;
        this.me = null;
        this.sock = new TableSocket(this.id, null, (m) => this.onMessage(m), (s) => this.onSocket(s),
          this.params.get("invite"));
      } else {
        notice.textContent = "This table cannot be watched.";
      }
    }
  }

  onMessage(msg) {
    if (this.closed) return;
    if (msg.type === "view") {
      msg.receivedAt = Date.now();
      this.queue.push(msg);
      this.pump();
    } else if (msg.type === "table") {
      this.table = { ...this.table, ...msg.table };
      this.updateSeats();
      this.renamed();
    } else if (msg.type === "event") {
      // A table event outside a view (a seat left, abandoned, taken back): told in the log in its
      // place among the views still waiting to be drawn (pump).
      this.queue.push({ tableEvent: true, events: [msg.event], legal: [] });
      this.pump();
    } else if (msg.type === "chat") {
      if (this.chat) this.chat.add(msg);
    } else if (msg.type === "chat_deleted") { // the moderator deleted lines: what is left follows
      if (this.chat) this.chat.clear();
    } else if (msg.type === "rematch") {
      this.rematch = msg.table;
      if (this.view && this.view.status === "over") this.renderOver(this.ctx());
    } else if (msg.type === "hint") {
      this.hintPending = false;
      if (this.view && msg.seq === this.view.seq) this.hint = msg;
      this.renderBoard();
    } else if (msg.type === "error") {
      this.pending = false;
      this.hintPending = false;
      if (msg.code === "not_the_lesson") { // shown in the lesson's box; the move's choices start afresh
        this.refused = msg.message;
        this.selection = {};
      }
      else if (msg.code === "busy") toast("A hint is already on its way.");
      else toast(msg.message || msg.code, "error");
      this.renderBoard();
    }
  }

  /** Show the queued views one after another, in order: a completed trick stays drawn (and a move by
   * another player, with animations, stays shown) before the next view is drawn. */
  async pump() {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length) {
        if (this.queue[0].tableEvent) { // told once the views before it are drawn (never before one)
          const { events } = this.queue.shift();
          if (this.view && this.frame) {
            this.addEvents(events);
            this.saveLog();
          }
          continue;
        }
        // Far behind (a reconnect, a burst of bot moves with animations off): jump ahead.
        if (this.queue.length > 8 || !animationsOn()) {
          while (this.queue.length > 1 && this.queue[0].events.length === 0) this.queue.shift();
          if (this.queue[0].tableEvent) continue;
        }
        if (this.holding) await this.waitHold(this.queue[0]);
        const msg = this.queue.shift();
        const last = this.view;
        if (last && msg.seq < last.seq) continue;
        const fresh = !last || msg.seq > last.seq;
        const byOther = fresh && last && last.legal.length === 0;
        this.prev = last;
        this.view = msg;
        if (msg.returns) this.table.returns = msg.returns;
        if (msg.status) this.table.status = msg.status;
        this.pending = false;
        if (!this.hint || this.hint.seq !== msg.seq) this.hint = null;
        if (fresh) this.refused = null;
        if (fresh) this.hintPending = false; // an answer about an earlier position is not awaited
        this.selection = {};
        // A completed trick is drawn from its event (a deal's last trick too, though the view has
        // moved on to the next deal) until the next view; at the end its result waits for it.
        const trick = fresh ? completedTrick(msg.events, this.me) : null;
        if (fresh) this.peek = false;
        if (trick) this.lastTrick = trick;
        else if (!last && this.game.lastTrick) this.lastTrick = this.game.lastTrick(msg.view);
        if (fresh) this.held = trick;
        const ending = !!trick && msg.status === "over";
        this.ending = ending;
        const told = ending ? msg.events.indexOf(trick) + 1 : msg.events.length;
        if (fresh && last) {
          this.addEvents(msg.events.slice(0, told));
          if (msg.legal.length && !last.legal.length) playSound("turn");
        } else if (!last && !this.restoreLog(msg.seq)) {
          this.openLog(msg);
        }
        this.endHold();
        this.renderBoard(fresh && !!last);
        this.saveLog();
        // Counted from now, once the view is drawn.
        const pace = PACE[settings().pace || "normal"];
        const pause = this.game.pauseAfter ? this.game.pauseAfter(msg, this.ctx()) : 700;
        if (trick) this.startHold(Math.max(TRICK_HOLD, pause * pace), TRICK_HOLD);
        else if (byOther && msg.legal.length === 0 && animationsOn()) this.startHold(pause * pace, 0);
        if (ending) {
          // The deciding trick, with its winner, before the result.
          await this.holding.done;
          this.ending = false;
          this.held = null;
          if (last) this.addEvents(msg.events.slice(told));
          this.renderBoard();
          this.saveLog();
        }
      }
    } finally {
      this.busy = false;
    }
  }

  /** Hold the view shown for ``ms`` or until the player clicks the board; with a clock running on
   * the player in the next view, only ``least`` of it (the player's time is not spent waiting). */
  startHold(ms, least) {
    this.endHold();
    const board = this.frame.board;
    const started = Date.now();
    const hold = { least: started + least };
    hold.done = new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        board.removeEventListener("click", end);
        if (this.holding === hold) {
          this.holding = null;
          delete board.dataset.held;
        }
        resolve();
      };
      const timer = setTimeout(end, ms);
      board.addEventListener("click", end);
      hold.end = end;
    });
    board.dataset.held = "1"; // the view shown is held (the browser tests watch for it)
    this.holding = hold;
  }

  endHold() {
    if (this.holding) this.holding.end();
  }

  /** Wait for the hold on the view shown before drawing ``next``. */
  async waitHold(next) {
    const hold = this.holding;
    const clock = next && next.legal.length > 0 && next.clock && typeof next.clock.remaining === "number";
    if (clock) await Promise.race([hold.done, sleep(Math.max(0, hold.least - Date.now()))]);
    else await hold.done;
    hold.end();
  }

  /** "Last trick": the previous completed trick drawn on the table, or the view again. */
  togglePeek(on = !this.peek) {
    if (on && !this.lastTrick) return;
    this.peek = on;
    this.renderBoard();
  }

  addEvents(events, quiet = false) {
    const ctx = this.narrationCtx();
    const lines = [];
    let standIn = null; // the seat whose move the next action is, made by its stand-in
    for (const e of events || []) {
      if (e.seats && (this.me === null || !e.seats.includes(this.me))) continue;
      if (e.type === "stand_in") standIn = e.seat;
      const told = tableNarrate(e, ctx);
      const node = told === null ? this.game.narrate(e, ctx) : told;
      if (!node) continue;
      const entry = logEntry(node);
      if (e.type === "action" && e.player === standIn) entry.text = entry.text.replace(/\.?$/, ", played by the computer.");
      lines.push(entry);
    }
    if (!lines.length) return;
    if (!quiet && events.some((e) => e.type === "action" && CARD.test(e.action))) playSound("card");
    for (const l of lines) this.addLine(l);
    if (!quiet) {
      this.news = lines.slice(-2);
      this.drawNews();
    }
  }

  /** The context a game narrates in: each seat but the viewer's named by its mark (see seatMark). */
  narrationCtx() {
    const ctx = this.ctx();
    return { ...ctx, names: ctx.names.map((n, s) => (s === this.me ? n : seatMark(s))) };
  }

  /** A line's text with each seat's mark (or each seat the ``mark`` pattern finds) written as the
   * seat's name now. */
  named(text, mark = SEAT_MARK) {
    const names = seatNames(this.table, this.info, this.me);
    return text.replace(mark, (_, s) => names[Number(s)] || `Seat ${Number(s) + 1}`);
  }

  /** One entry of the log (``{text, kind}``, seats as marks): kept in ``this.log`` and drawn. */
  addLine(entry) {
    this.log.push(entry);
    if (this.log.length > LOG_MAX) {
      this.log.splice(0, this.log.length - LOG_MAX);
      this.frame.log.firstElementChild?.remove();
    }
    const box = this.frame.log;
    box.append(this.logItem(entry));
    box.scrollTop = box.scrollHeight;
  }

  logItem(entry) {
    return el(entry.kind ? `li.log-${entry.kind}` : "li", ...suitedText(this.named(entry.text)));
  }

  drawNews() {
    clear(this.frame.news).append(...this.news.map((l) => el("div.news-line", this.named(l.text))));
  }

  /** The seats' names changed (someone sat down or left): every line, the chat and the table
   * again, each seat under the name it has now. */
  renamed() {
    if (!this.frame) return;
    const box = this.frame.log;
    clear(box).append(...this.log.map((x) => this.logItem(x)));
    box.scrollTop = box.scrollHeight;
    this.drawNews();
    if (this.chat) this.chat.rename();
    this.renderBoard();
  }

  // A page's first view with no saved log. Moves made before it arrived (a bot moves at once, a
  // spectator comes late) are not narrated: the game module says where the game stands instead,
  // unless the last move's own events already say it (a deal that began with that move).
  openLog(msg) {
    if (msg.seq > 0) {
      const told = new Set((msg.events || []).map((e) => e.type));
      const opening = this.game.opening ? this.game.opening(msg.view).filter((e) => !told.has(e.type)) : [];
      this.addEvents(opening, true);
      this.addLine({ text: "… (moves made before you arrived)", kind: "muted" });
    }
    this.addEvents(msg.events, true);
  }

  // The log survives a reload of the page (this tab only): its entries are saved as data, with the seq.
  saveLog() {
    try {
      sessionStorage.setItem(`gamester.log.${this.id}`,
        JSON.stringify({ format: LOG_FORMAT, seq: this.view.seq, me: this.me, entries: this.log }));
    } catch {
      // storage full or disabled: the log simply starts afresh after a reload
    }
  }

  restoreLog(seq) {
    let saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(`gamester.log.${this.id}`) || "null");
    } catch {
      saved = null;
    }
    // A log saved by an older page (as HTML) or for another seat is not shown: the log starts afresh.
    if (!saved || saved.format !== LOG_FORMAT || !Array.isArray(saved.entries)) return false;
    if (saved.me !== this.me || typeof saved.seq !== "number" || saved.seq > seq) return false;
    const entries = saved.entries.filter((x) => x && typeof x.text === "string");
    for (const x of entries) this.addLine({ text: x.text, kind: typeof x.kind === "string" ? x.kind : "" });
    // Views missed while away are not narrated; the log says so.
    if (saved.seq < seq) this.addLine({ text: "… (moves made while you were away)", kind: "muted" });
    return true;
  }

  // -- layout --------------------------------------------------------------------------------
  buildFrame() {
    const title = this.info ? this.info.title : this.table.game;
    const f = {};
    // "Last trick" (key L), for a game whose drawing can say which one was last.
    f.lastBtn = this.game.lastTrick ? el("button.small.last-trick-btn", { "data-testid": "last-trick",
      "aria-pressed": "false", title: "Show the last trick again (L)", onclick: () => this.togglePeek() },
    "Last trick") : null;
    f.notice = el("div.notice", { role: "alert", hidden: true });
    f.status = el("div.status-line", { "aria-live": "polite", "data-testid": "status" });
    f.clock = el("span.clock", { hidden: true });
    f.news = el("div.news", { "aria-live": "polite", "data-testid": "news" });
    f.board = el(`div.board.board-${this.table.game}`, { "data-testid": "board" });
    f.log = el("ul.log", { "data-testid": "log" });
    f.hintBtn = el("button.hint-btn", { onclick: () => this.askHint(), title: "What would the best computer player do? (H)",
      "data-testid": "hint" }, "Hint");
    f.seats = el("div.waiting");
    f.over = el("div.over", { hidden: true });
    f.review = el("div.panel.review-box", { hidden: true, "data-testid": "review" });
    f.lesson = el("div.lesson", { hidden: true, "aria-live": "polite", "data-testid": "lesson" });
    const rulesLink = el("a.button.small", { href: `#/rules/${this.table.game}`, target: "_blank" }, "Rules");
    const leaveBtn = this.token ? el("button.small", { "data-testid": "leave", onclick: () => {
      if (confirm(this.leaveWarning())) this.leave();
    } }, "Leave") : null;
    // A private table: its creator hands out the watch link (the seats' links are in the waiting panel).
    const watchBtn = this.table.private && this.token ? el("button.small", { "data-testid": "copy-watch-link",
      onclick: () => this.copyWatchLink() }, "Watch link") : null;
    const optionsText = this.optionsText();
    this.chat = new ChatPanel((text) => {
      if (this.sock && this.sock.send({ type: "chat", text })) return true;
      toast("Not connected: wait a moment and try again.", "error");
      return false;
    }, !!this.token, (m) => this.speaker(m));
    this.frame = f;
    clear(this.root).append(el("div.table-screen",
      f.notice,
      el("div.table-head",
        el("div.table-title", el("h2", title), el("span.table-options", optionsText)),
        el("div.table-tools", f.clock, f.lastBtn, f.hintBtn, rulesLink, watchBtn, leaveBtn)),
      f.seats,
      f.over,
      f.review,
      el("div.table-main",
        el("div.play-area", f.status, f.news, f.board),
        // The lesson's words beside the board (a desktop), right under the hand (a phone): with the
        // hand on one screen either way.
        el("aside.side", f.lesson, el("h3", "Game log"), f.log, this.chat.node))));
    this.updateSeats();
    clearInterval(this.clockTimer);
    this.clockTimer = setInterval(() => this.tickClock(), 500);
  }

  /** What leaving does now (docs/web.md, Leaving and abandoned seats). */
  leaveWarning() {
    if (this.table.status !== "playing") return "Leave this table? Your seat becomes free for someone else.";
    if (this.table.rated) {
      return "Leave this rated game? You lose it (it is only aborted if someone has not moved yet).";
    }
    return "Leave this game? The computer plays your seat from now on; your invite link can take it back.";
  }

  /** Who said a chat message: a seat under the name it shows now (the one who sat there then, if the
   * seat has changed hands since), a spectator under their own name. */
  speaker(m) {
    const s = typeof m.seat === "number" ? this.table.seats[m.seat] : null;
    if (!s || s.kind !== "human" || !s.name || s.name !== m.name) return m.name;
    return seatNames(this.table, this.info, this.me)[m.seat];
  }

  optionsText() {
    // The rule set and whatever differs from the game's defaults.
    const o = this.table.options || {};
    const defaults = Object.fromEntries(((this.info && this.info.options) || []).map((x) => [x.name, x.default]));
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b) || String(a) === String(b);
    const parts = Object.entries(o).filter(([k, v]) => k !== "ruleset" && !(k in defaults && same(defaults[k], v)))
      .map(([k, v]) => `${k.replace(/_/g, " ")}: ${Array.isArray(v) ? v.join(",") : v}`);
    const rs = o.ruleset && o.ruleset !== "standard" ? `${o.ruleset} rules` : "standard rules";
    return [this.table.tutorial ? "a lesson" : null, rs, ...parts].filter(Boolean).join(" · ");
  }

  updateSeats() {
    if (!this.frame) return;
    const box = clear(this.frame.seats);
    if (this.table.status === "playing" && (this.table.abandoned || []).length) {
      this.showAbandoned(box);
      return;
    }
    if (this.table.status !== "waiting") {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const names = seatNames(this.table, this.info, this.me);
    box.append(el("h3", "Waiting for players"));
    const list = el("ul.invites");
    for (const s of this.table.seats) {
      if (s.kind === "bot") {
        list.append(el("li", `Seat ${s.seat + 1}: ${names[s.seat]} (computer)`));
      } else if (s.seat === this.me) {
        list.append(el("li", `Seat ${s.seat + 1}: you`));
      } else if (s.name) {
        list.append(el("li", `Seat ${s.seat + 1}: ${s.name}`, s.connected ? "" : " (not connected)"));
      } else if (this.table.open || this.invites?.invites[s.seat]) {
        const link = inviteLink(this.id, s.seat, this.table.open ? null : this.invites.invites[s.seat]);
        list.append(el("li.invite", `Seat ${s.seat + 1}: a friend — send them this link: `,
          this.linkBox(link, `invite-${s.seat}`)));
      } else {
        list.append(el("li", `Seat ${s.seat + 1}: kept for the friend who has its invite link`));
      }
    }
    box.append(list);
    if (this.invites?.watch) {
      box.append(el("p.watch-invite", "A private table: only people with a link can watch. To let someone watch: ",
        this.linkBox(inviteLink(this.id, null, this.invites.watch), "watch-link")));
    }
    box.append(el("p.muted", "The game starts by itself when every seat is taken."));
    if (this.token && this.invites === undefined && !this.table.open) this.fetchInvites();
    if (list.querySelector(".invite") && ["localhost", "127.0.0.1", "[::1]"].includes(location.hostname)) {
      // A link to this machine's loopback address works only here.
      box.append(el("p.muted.local-note", { "data-testid": "local-note" },
        "These links only work on this computer. For a friend on another machine, start the server with ",
        el("code", "gamester serve --host 0.0.0.0"), " and open this page at your computer's network address."));
    }
  }

  /** A game in progress with abandoned seats: who left, who plays for them now, and "Take the seat
   * back" where this viewer may (docs/web.md, Leaving and abandoned seats). */
  showAbandoned(box) {
    box.hidden = false;
    const names = seatNames(this.table, this.info, this.me);
    const list = el("ul.invites", { "data-testid": "abandoned" });
    for (const n of this.table.abandoned) {
      const s = this.table.seats[n];
      const who = `${names[n]} ${s.abandoned === "gone" ? "has gone" : "left"}`;
      list.append(el("li", s.agent ? `${who}: the computer (${agentWord(this.info, s.agent)}) plays that seat.` : `${who}.`,
        this.mayTakeBack(s) ? el("button.small.primary", { "data-testid": `take-back-${n}`,
          onclick: () => this.takeBack(n) }, "Take the seat back") : null));
    }
    box.append(el("h3", "A seat was abandoned"), list);
  }

  /** Whether this viewer may sit down at the abandoned seat ``s``: not seated here, at an unrated
   * table, and with the seat's invite, at an open table, or as the account that held it. */
  mayTakeBack(s) {
    if (this.token || this.table.rated || !s.agent) return false;
    const invited = this.params.get("seat") === String(s.seat) && !!this.params.get("invite");
    return this.table.open || invited || (!!this.user && s.account === this.user.name);
  }

  /** Take an abandoned seat back: the join panel for that seat (a name), then the seat's socket. */
  takeBack(seat) {
    if (this.sock) this.sock.close();
    this.sock = null;
    clearInterval(this.clockTimer);
    Object.assign(this, { view: null, prev: null, queue: [], log: [], news: [], held: null, holding: null });
    this.showJoin(seat, true);
  }

  /** The invite codes of this table, which only its creator's token finds (docs/web.md, Invites). */
  async fetchInvites() {
    this.invites = null; // asked for once a page
    try {
      this.invites = await api(`/tables/${encodeURIComponent(this.id)}/invites`, { token: this.token });
    } catch {
      this.invites = { invites: {} };
    }
    this.updateSeats();
  }

  async copyWatchLink() {
    if (!this.invites) await this.fetchInvites();
    const code = this.invites && this.invites.watch;
    if (!code) {
      toast("Only the table's creator has its watch link.", "error");
      return;
    }
    const link = inviteLink(this.id, null, code);
    toast(await copyText(link) ? "Watch link copied." : link);
  }

  /** A read-only link with a Copy button. */
  linkBox(link, testid) {
    return el("span.link-box",
      el("input.invite-link", { readonly: true, value: link, "data-testid": testid, onclick: (ev) => ev.target.select() }),
      el("button.small", { onclick: async () => toast(await copyText(link) ? "Link copied." :
        "Select the link and copy it.") }, "Copy"));
  }

  ctx() {
    const me = this.me;
    const names = seatNames(this.table, this.info, me);
    return {
      table: this.table,
      info: this.info,
      me,
      names,
      view: this.view ? this.view.view : null,
      prevView: this.prev ? this.prev.view : null,
      msg: this.view,
      legal: this.view && !this.pending ? this.view.legal : [],
      // The parts of each legal move, in legal's order, for a game that gives them (docs/web.md).
      moves: this.view && !this.pending && this.view.moves ? this.view.moves : null,
      hint: this.hint,
      // A completed trick to draw over the view's own: the last one asked for, or the one held.
      trickShown: this.peek && this.lastTrick ? { trick: this.lastTrick, peek: true }
        : this.held ? { trick: this.held, peek: false } : null,
      selection: this.selection,
      select: (patch) => {
        Object.assign(this.selection, patch);
        this.renderBoard();
      },
      act: (a) => this.act(a),
    };
  }

  renderBoard(animate = false) {
    if (!this.view || !this.frame) return;
    const ctx = this.ctx();
    const board = this.frame.board;
    const rects = animate && animationsOn() ? flipBefore(board) : null;
    clear(board);
    this.game.render(board, ctx);
    if (rects) flipAfter(board, rects);
    this.frame.status.textContent = this.statusText(ctx);
    this.frame.status.classList.toggle("your-turn", ctx.legal.length > 0);
    const canHint = this.me !== null && ctx.legal.length > 1 && this.view.status === "playing";
    this.frame.hintBtn.disabled = !canHint || this.hintPending;
    this.frame.hintBtn.textContent = this.hintPending ? "Thinking…" : "Hint";
    this.frame.hintBtn.hidden = this.me === null;
    if (this.frame.lastBtn) {
      this.frame.lastBtn.disabled = !this.lastTrick;
      this.frame.lastBtn.setAttribute("aria-pressed", this.peek ? "true" : "false");
    }
    this.updateSeats();
    this.showLesson();
    this.renderOver(ctx);
  }

  // The lesson's words for this position (a lesson table's pupil only), and why the move just tried
  // is not the lesson's.
  showLesson() {
    const box = this.frame.lesson;
    const t = this.view && this.view.tutorial;
    // A seat is written {seat:N} by the lesson: it gets the name this page shows for that seat.
    const named = (text) => this.named(text, LESSON_SEAT);
    const refused = this.refused && named(this.refused);
    const free = t && !t.text && !t.expect.length && this.view.legal && this.view.legal.length > 1;
    box.hidden = !t || (!t.text && !refused && !free);
    const said = box.hidden ? "" : `${t.text}|${refused}`;
    clear(box);
    if (box.hidden) return;
    box.append(el("span.lesson-label", "Lesson"),
      el("p.lesson-text", withCards(free ? "Your choice: any legal move will do here." : named(t.text))));
    const describe = this.describeMove();
    if (t.expect.length) {
      // A long list (a payment of several cards has many ways) names a few and counts the rest.
      const shown = t.expect.length > 4 ? t.expect.slice(0, 3) : t.expect;
      const names = shown.flatMap((a, i) => (i ? [" or ", describe(a)] : [describe(a)]));
      if (shown.length < t.expect.length) names.push(`, or another of the ${t.expect.length} ways the lesson takes`);
      box.append(el("p.lesson-expect", { "data-testid": "lesson-expect", "data-expect": JSON.stringify(t.expect) },
        "Play ", names, "."));
    }
    if (refused) box.append(el("p.lesson-refused", { "data-testid": "lesson-refused" }, withCards(refused)));
    this.placeLesson(box, said !== this.lessonSaid);
    this.lessonSaid = said;
  }

  // A narrow screen holds the lesson's words in a sheet along its bottom edge (app.css): the page keeps
  // room below for it. At the pupil's turn the card the lesson asks for (else the hand) is brought into
  // view when the words are new or it is out of sight, and the words with it.
  placeLesson(box, fresh) {
    const root = document.documentElement;
    const sheet = !box.hidden && getComputedStyle(box).position === "fixed";
    root.classList.toggle("lesson-sheet", sheet);
    root.style.setProperty("--lesson-h", sheet ? `${box.offsetHeight}px` : "0px");
    const t = this.view && this.view.tutorial;
    if (box.hidden || !t || !this.view.legal || !this.view.legal.length) return;
    const board = this.frame.board;
    const pick = (m) => board.querySelector(`[data-action="${m}"]`) || board.querySelector(`.card-btn[data-card="${m}"]`)
      || board.querySelector(`.token-btn.selectable[data-court="${m.split(" ")[0]}"]`);
    const wanted = t.expect.map(pick).find(Boolean) || board.querySelector(".hand, .token-btn.selectable");
    if (!wanted) return;
    const check = (first) => {
      if (!wanted.isConnected) return;
      const r = wanted.getBoundingClientRect();
      const bottom = innerHeight - (sheet ? box.offsetHeight : 0);
      if ((first && fresh) || r.top < 0 || r.bottom > bottom) wanted.scrollIntoView({ block: "nearest" });
      if (first && !sheet && box.isConnected) box.scrollIntoView({ block: "nearest" });
    };
    requestAnimationFrame(() => {
      check(true);
      // Cards dealt in or flying to the trick settle later: look again once they have.
      Promise.all(document.getAnimations().map((a) => a.finished)).then(() => check(false), () => {});
    });
  }

  statusText(ctx) {
    const st = this.view.status;
    if (st === "waiting") return "Waiting for every seat to be taken…";
    if (st === "over") return "The game is over.";
    if (this.pending) return "…";
    // What the rules allow, and at a lesson's table that the lesson takes fewer moves than that.
    const t = this.view.tutorial;
    const narrowed = t && t.expect.length && ctx.legal.length > t.expect.length;
    return `${this.game.status(ctx)}${narrowed ? " The lesson takes only the moves in its box." : ""}`;
  }

  renderOver(ctx) {
    const box = this.frame.over;
    if (this.view.status !== "over" || this.ending) { // the deciding trick is drawn first
      box.hidden = true;
      return;
    }
    box.hidden = false;
    clear(box);
    const seat = this.me;
    const code = this.params.get("invite") || (this.invites && this.invites.watch);
    const replay = replayLink(this.id, seat, code);
    // A private table's replay is shared with a code (a spectator's link or the creator's watch code).
    const share = this.table.private && !code ? null : `${location.origin}/${replayLink(this.id, null, code)}`;
    const review = seat !== null && !this.reviewing
      ? el("button", { "data-testid": "review-btn", onclick: () => this.askReview() }, "Review my play") : null;
    box.append(el("div.over-text", { "data-testid": "result" }, this.tableResult(ctx) || this.game.result(ctx)),
      el("div.row",
        el("a.button.primary", { href: replay, "data-testid": "replay-link" }, "Replay the game"),
        review,
        share ? el("button", { onclick: async () => toast(await copyText(share) ? "Replay link copied." : share) },
          "Copy the replay link") : null,
        this.rematchButton(),
        el("a.button", { href: `/api${this.path("/record")}`,
          download: `gamester-${this.table.game}-${this.id}.json`, "data-testid": "record-download" },
        "Download the record"),
        el("a.button", { href: this.table.tutorial ? "#/" : `#/?game=${encodeURIComponent(this.table.game)}` },
          this.table.tutorial ? "Back to the lobby" : "New game")));
  }

  /** The result of a table that ended other than by its game's end (an abort, a forfeit), plainly;
   * null for a game played to its end (the game's own words say it). */
  tableResult(ctx) {
    const t = this.table;
    const name = (s) => (s === this.me ? "You" : ctx.names[s]);
    const rated = t.rated ? " No rating changes." : "";
    if (t.result === "aborted") {
      const gone = (t.abandoned || []).map(name);
      if (!gone.length) return `The game was aborted: nobody had played it.${rated}`;
      const who = gone.length > 1 ? "Everyone" : gone[0];
      return t.rated ? `The game was aborted: ${who} left before everyone had played.${rated}`
        : `The game was aborted: ${who === "Everyone" ? "everyone" : who} left.`;
    }
    if (t.result !== "forfeit" || typeof t.forfeit !== "number") return null;
    const loser = t.forfeit;
    const why = (t.abandoned || []).includes(loser)
      ? (t.seats[loser].abandoned === "gone" ? "went away" : "left the table") : "ran out of time";
    const winners = t.seats.map((s) => s.seat).filter((s) => s !== loser).map(name);
    const win = winners.includes("You") ? "You win" : `${winners.join(" and ")} ${winners.length > 1 ? "win" : "wins"}`;
    return `${name(loser)} ${why} and ${loser === this.me ? "lose" : "loses"} by forfeit: ${win}.${t.rated ? " Both ratings move." : ""}`;
  }

  askReview() {
    if (this.reviewing || this.me === null) return;
    this.reviewing = true;
    this.frame.review.hidden = false;
    this.renderBoard();
    const code = this.params.get("invite") || (this.invites && this.invites.watch);
    const replay = replayLink(this.id, this.me, code);
    const stepLink = (i) => `${replay}${replay.includes("?") ? "&" : "?"}step=${i}`;
    fetchReview(this.id, this.me, this.frame.review, this.describeMove(), () => this.closed, stepLink);
  }

  /** How a move is named to the player: the game's own words, else a card code as the card. */
  describeMove() {
    // Without the game's words: the move's card codes ("QH b5-c6 9C+4D") drawn as cards.
    return this.game.describe ? (a) => this.game.describe(a) : withCards;
  }

  /** Seats ask for (or accept) the same table again; spectators may watch it once it exists. */
  rematchButton() {
    if (!this.token) {
      return this.rematch ? el("a.button", { href: `#/table/${encodeURIComponent(this.rematch)}`,
        "data-testid": "rematch-watch" }, "Watch the rematch") : null;
    }
    const label = this.rematch ? "Accept the rematch" : "Rematch";
    return el(`button${this.rematch ? ".primary" : ""}`, { "data-testid": "rematch", onclick: async (ev) => {
      ev.target.disabled = true;
      try {
        const res = await api(`/tables/${encodeURIComponent(this.id)}/rematch`, { token: this.token });
        rememberSeat(res.table, res.seat, res.token);
        location.hash = `#/table/${encodeURIComponent(res.table)}`;
      } catch (e) {
        toast(e.message, "error");
        ev.target.disabled = false;
      }
    } }, label);
  }

  // -- acting --------------------------------------------------------------------------------
  act(action) {
    if (!this.view || this.pending || !this.view.legal.includes(action)) return;
    if (!this.sock.send({ type: "act", action, seq: this.view.seq })) {
      toast("Not connected: wait a moment and try again.", "error");
      return;
    }
    this.pending = true;
    this.peek = false;
    this.renderBoard();
  }

  askHint() {
    if (!this.view || !this.view.legal.length) return;
    if (this.hint && this.hint.seq === this.view.seq) return;
    if (!this.sock.send({ type: "hint", seq: this.view.seq })) return;
    // "Thinking…" until the answer (or an error) comes back, however long the search takes.
    this.hintPending = true;
    this.renderBoard();
  }

  onKey(ev) {
    if (!this.view || ev.target.closest("input, textarea, select")) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "h" || ev.key === "H") {
      if (!this.frame.hintBtn.disabled) this.askHint();
      ev.preventDefault();
      return;
    }
    if (this.frame.lastBtn && (ev.key === "l" || ev.key === "L" || (ev.key === "Escape" && this.peek))) {
      this.togglePeek(ev.key === "Escape" ? false : !this.peek);
      ev.preventDefault();
      return;
    }
    if (this.game.keyboard && this.game.keyboard(ev, this.ctx(), this.frame.board)) ev.preventDefault();
  }

  tickClock() {
    const c = this.view && this.view.clock;
    const box = this.frame.clock;
    if (!c || (c.remaining === null && !c.deadline) || this.view.status !== "playing") {
      box.hidden = true;
      return;
    }
    // Count from what the server said was left when the view arrived (the two clocks may differ).
    const end = typeof c.remaining === "number" ? this.view.receivedAt / 1000 + c.remaining : c.deadline;
    const left = Math.max(0, Math.round(end - Date.now() / 1000));
    const names = seatNames(this.table, this.info, this.me);
    const seat = typeof c.seat === "number" ? c.seat : this.view.view.current_player;
    box.hidden = false;
    box.textContent = `◷ ${seat === this.me ? "your" : `${names[seat]}'s`} move: ${leftWords(left)}`;
    box.classList.toggle("urgent", left <= 10);
  }
}
