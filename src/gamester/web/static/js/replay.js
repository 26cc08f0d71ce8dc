// A finished game stepped through move by move, from a spectator's view or from one seat.

import { api, gameInfo, mySeat, tablePath } from "./api.js";
import { doneReview } from "./review.js";
import { clear, copyText, el, toast, withCards } from "./ui.js";
import { gameModule, replayLink, seatNames } from "./table.js";

export class ReplayScreen {
  constructor(root, tableId, params) {
    this.root = root;
    this.id = tableId;
    const s = params.get("seat");
    this.seat = s === null || s === "" ? null : Number(s);
    this.invite = params.get("invite"); // a private table's code
    this.i = Number(params.get("step") || 0);
    this.timer = null;
    this.keyHandler = (ev) => this.onKey(ev);
    document.addEventListener("keydown", this.keyHandler);
    this.start();
  }

  destroy() {
    clearInterval(this.timer);
    document.removeEventListener("keydown", this.keyHandler);
  }

  async start() {
    clear(this.root).append(el("p.loading", "Loading the replay…"));
    try {
      this.table = await api(tablePath(this.id, "", "", this.invite));
      this.info = await gameInfo(this.table.game);
      const q = this.seat === null ? "" : `seat=${this.seat}`;
      this.data = await api(tablePath(this.id, "/replay", q, this.invite));
    } catch (e) {
      const msg = e.code === "not_over" ? "This game is not over yet: its replay opens when it ends." : e.message;
      clear(this.root).append(el("div.panel.error-panel", el("h2", "No replay"), el("p", msg),
        el("a.button", { href: `#/table/${encodeURIComponent(this.id)}` }, "Go to the table"),
        el("a.button", { href: "#/" }, "Lobby")));
      return;
    }
    this.game = await gameModule(this.table.game);
    this.steps = this.data.steps;
    // A seat's replay shows its review's marked moves, if that seat was reviewed: each at the step
    // after the move, with why the best move was better.
    const review = this.seat === null ? null : await doneReview(this.id, this.seat, this.invite);
    this.marks = new Map((review ? review.steps : []).filter((st) => st.mark).map((st) => [st.index + 1, st]));
    this.i = Math.max(0, Math.min(this.i, this.steps.length - 1));
    this.build();
    this.show();
  }

  build() {
    const title = this.info ? this.info.title : this.table.game;
    const names = seatNames(this.table, this.info, null);
    const mine = mySeat(this.id);
    const viewSel = el("select.view-select", { "aria-label": "Whose view", "data-testid": "replay-view",
      onchange: (ev) => {
        // Another seat's view of the same moment: the step goes with the seat, so the replay stays put.
        const v = ev.target.value;
        const link = replayLink(this.id, v === "" ? null : Number(v), this.invite);
        location.hash = this.i ? `${link}${link.includes("?") ? "&" : "?"}step=${this.i}` : link;
      } },
    el("option", { value: "" }, "Spectator's view (no hands)"),
    this.table.seats.map((s) => el("option", { value: s.seat },
      mine && mine.seat === s.seat ? "Your seat's view" : `${names[s.seat]}'s view`)));
    viewSel.value = this.seat === null ? "" : String(this.seat);
    this.slider = el("input.step-slider", { type: "range", min: 0, max: this.steps.length - 1, value: this.i,
      "aria-label": "Move", oninput: (ev) => this.go(Number(ev.target.value)) });
    this.counter = el("span.step-counter", { "data-testid": "step-counter" });
    this.playBtn = el("button", { onclick: () => this.togglePlay(), "data-testid": "replay-play" }, "▶ Play");
    this.board = el(`div.board.board-${this.table.game}`, { "data-testid": "board" });
    this.log = el("ul.log");
    this.news = el("div.news");
    const share = `${location.origin}/${replayLink(this.id, null, this.invite)}`;
    const whose = this.seat === null ? "Seen as a spectator: no hand is shown."
      : mine && mine.seat === this.seat ? "Seen from your seat."
        : `Seen from ${names[this.seat]}'s seat: "you" in the moves means ${names[this.seat]}.`;
    clear(this.root).append(el("div.table-screen.replay",
      el("div.table-head",
        el("div.table-title", el("h2", `Replay: ${title}`),
          el("span.table-options", this.table.seats.map((s) => names[s.seat]).join(" · "))),
        el("div.table-tools", viewSel,
          el("button.small", { onclick: async () => toast(await copyText(share) ? "Replay link copied." : share), "data-testid": "share" }, "Copy link"))),
      el("div.replay-controls",
        el("button", { onclick: () => this.go(0), title: "First (Home)", "aria-label": "first move" }, "«"),
        el("button", { onclick: () => this.go(this.i - 1), title: "Back (←)", "aria-label": "previous move", "data-testid": "replay-prev" }, "◀"),
        this.playBtn,
        el("button", { onclick: () => this.go(this.i + 1), title: "Forward (→)", "aria-label": "next move", "data-testid": "replay-next" }, "▶"),
        el("button", { onclick: () => this.go(this.steps.length - 1), title: "Last (End)", "aria-label": "last move" }, "»"),
        this.slider, this.counter),
      el("p.muted.replay-whose", whose),
      this.marks.size ? el("p.replay-marks", { "data-testid": "replay-marks" }, "Marked by the review: ",
        [...this.marks].flatMap(([i, st], k) => [k ? " " : null, el(`button.small.${st.mark}`,
          { onclick: () => this.go(i), title: st.why || st.mark }, `move ${i}`)])) : null,
      el("div.table-main", el("div.play-area", this.news, this.board), el("aside.side", el("h3", "Moves"), this.log))));
  }

  ctx(step, prev) {
    const names = seatNames(this.table, this.info, this.seat);
    return {
      table: this.table, info: this.info, me: this.seat, names, view: step.view, prevView: prev ? prev.view : null,
      msg: { seq: step.seq, events: step.events, legal: [] }, legal: [], moves: null, hint: null, selection: {},
      select: () => {}, act: () => {},
    };
  }

  go(i) {
    this.i = Math.max(0, Math.min(i, this.steps.length - 1));
    this.show();
  }

  show() {
    const step = this.steps[this.i];
    const ctx = this.ctx(step, this.steps[this.i - 1]);
    clear(this.board);
    this.game.render(this.board, ctx);
    this.slider.value = this.i;
    this.counter.textContent = `Move ${this.i} of ${this.steps.length - 1}`;
    // The log: every narrated event up to this step.
    clear(this.log);
    let last = [];
    for (let k = 0; k <= this.i; k++) {
      const s = this.steps[k];
      const c = k === this.i ? ctx : this.ctx(s, this.steps[k - 1]);
      const lines = [];
      for (const e of s.events || []) {
        if (e.seats && (this.seat === null || !e.seats.includes(this.seat))) continue;
        const n = this.game.narrate(e, c);
        if (n) lines.push(n);
      }
      for (const l of lines) this.log.append(el(`li${k === this.i ? ".current" : ""}`, l));
      if (k === this.i) last = lines;
    }
    this.log.scrollTop = this.log.scrollHeight;
    clear(this.news).append(...last.map((l) => el("div.news-line", l.cloneNode(true))));
    const marked = this.marks.get(this.i);
    if (marked) {
      const describe = this.game.describe ? (a) => this.game.describe(a) : withCards;
      this.news.append(el(`div.news-line.review-note.${marked.mark}`, { "data-testid": "replay-why" },
        el("strong", marked.mark === "blunder" ? "Blunder: " : "Mistake: "), "you played ", describe(marked.action),
        "; the best move was ", describe(marked.best), ". ", marked.why ? withCards(marked.why) : ""));
    }
    if (this.i === this.steps.length - 1) {
      this.news.append(el("div.news-line.result", this.game.result(ctx)));
      this.stop();
    }
  }

  togglePlay() {
    if (this.timer) this.stop();
    else {
      if (this.i >= this.steps.length - 1) this.go(0);
      this.playBtn.textContent = "❚❚ Pause";
      this.timer = setInterval(() => this.go(this.i + 1), 900);
    }
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    if (this.playBtn) this.playBtn.textContent = "▶ Play";
  }

  onKey(ev) {
    if (!this.steps || ev.target.closest("input, select, textarea")) return;
    const keys = { ArrowRight: 1, ArrowLeft: -1 };
    if (ev.key in keys) this.go(this.i + keys[ev.key]);
    else if (ev.key === "Home") this.go(0);
    else if (ev.key === "End") this.go(this.steps.length - 1);
    else if (ev.key === " ") this.togglePlay();
    else return;
    ev.preventDefault();
  }
}
