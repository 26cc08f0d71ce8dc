// Any game the page has no drawing of its own for (a game installed from another package, say): it
// draws the view the server sent, field by field, without knowing the game. The seat's `hand` as cards
// (or as text), every other public field as a readable list, the legal moves as buttons, and each event
// in words made from its fields. It only ever draws the view it is given, which the server has already
// filtered for this seat or for a spectator, so it cannot show a card that is not meant to be seen.

import { cardSVG } from "../cards.js";
import { cardText, clear, el, isCard, put, suitText, SUIT_NAMES } from "../ui.js";
import { cardButton, cardKeys, hintBox } from "./common.js";

// Fields that name a seat by its number; `current_player` is also drawn as the seat to move.
const SEAT_KEY = /^(seat|player|current_player|dealer|leader|winner|loser|soloist|declarer|mover|to_move|seat_to_move|next_player|first_player|bidder|caller)$|(_seat|_player)$/;
const SEATS_KEY = /^(winners|losers|players_out|finished_seats|partners|seats_out)$/;
const SUIT_KEY = /suit|trump/;
const SKIP = new Set(["game", "hand", "seat"]);
const MAX_ITEMS = 60;
const MAX_TEXT = 200;
const MANY_MOVES = 24;
const SHOWN_MOVES = 60;

const isCardList = (x) => Array.isArray(x) && x.length > 0 && x.every(isCard);
const isScalar = (x) => x === null || ["number", "string", "boolean"].includes(typeof x);

/** "tricks_won" -> "Tricks won", "handSize" -> "Hand size". */
export function words(key) {
  const s = String(key).replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").trim().toLowerCase();
  return s ? s[0].toUpperCase() + s.slice(1) : String(key);
}

function seatCount(ctx) {
  if (ctx.table && Array.isArray(ctx.table.seats) && ctx.table.seats.length) return ctx.table.seats.length;
  const v = ctx.view || {};
  return Number.isInteger(v.players) ? v.players : Array.isArray(v.hand_sizes) ? v.hand_sizes.length : 0;
}

const isSeat = (ctx, x) => Number.isInteger(x) && x >= 0 && x < seatCount(ctx);
const seatName = (ctx, s) => (isSeat(ctx, s) && ctx.names && ctx.names[s]) || `Seat ${Number(s) + 1}`;

/** A list with one number (or nothing) per seat: drawn in the seats' panels. */
function perSeat(ctx, key, x) {
  const n = seatCount(ctx);
  return n > 1 && Array.isArray(x) && x.length === n && !SEATS_KEY.test(key)
    && x.every((y) => y === null || typeof y === "number" || typeof y === "boolean");
}

function clip(text) {
  const s = String(text);
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s;
}

function scalarText(x) {
  if (x === null || x === undefined) return "—";
  if (x === true) return "yes";
  if (x === false) return "no";
  if (typeof x === "number") return Number.isInteger(x) ? String(x) : String(Math.round(x * 1000) / 1000);
  return clip(x);
}

/** Who made the move that led to this view (the seat that was to move before it), if known. */
function mover(ctx) {
  const p = ctx.prevView && typeof ctx.prevView === "object" ? ctx.prevView.current_player : null;
  return isSeat(ctx, p) ? `seat-${p}` : null;
}

function smallCards(ctx, codes) {
  const shown = codes.slice(0, MAX_ITEMS);
  // Keyed by code: with animations on, a card slides from where it was drawn before (the hand, another
  // field) or, when new on the page, from the seat that just moved.
  return el("span.gn-cards", { "aria-label": codes.join(" ") },
    shown.map((c) => el("span.gn-card", { "data-card": c, "data-flip": c, "data-from": mover(ctx), title: c },
      cardSVG(c, { mini: true }))),
    codes.length > shown.length ? el("span.gn-more", `… and ${codes.length - shown.length} more`) : null);
}

/** A value as the reader should see it: seat numbers as names, card codes as cards, the rest as text. */
function valueNode(ctx, key, x, depth = 0, inline = false) {
  if (SEAT_KEY.test(key) && isSeat(ctx, x)) return el("span.gn-seat", seatName(ctx, x));
  if (SEATS_KEY.test(key) && Array.isArray(x) && x.every((s) => isSeat(ctx, s))) {
    return el("span", x.length ? x.map((s) => seatName(ctx, s)).join(", ") : "none");
  }
  if (isCard(x)) return cardText(x);
  if (typeof x === "string" && SUIT_KEY.test(key) && SUIT_NAMES[x]) return suitText(x);
  if (isScalar(x)) return el("span", scalarText(x));
  if (Array.isArray(x)) {
    if (!x.length) return el("span.gn-none", "none");
    if (isCardList(x)) return inline ? el("span", x.slice(0, MAX_ITEMS).flatMap((c, i) => (i ? [" ", cardText(c)] : [cardText(c)])))
      : smallCards(ctx, x);
    if (perSeat(ctx, key, x)) {
      return el("span", x.map((y, s) => `${seatName(ctx, s)} ${scalarText(y)}`).join(", "));
    }
    const shown = x.slice(0, MAX_ITEMS);
    const more = x.length > shown.length ? `… and ${x.length - shown.length} more` : null;
    if (x.every(isScalar)) return el("span", shown.map(scalarText).join(", "), more ? ` ${more}` : null);
    if (depth >= 2) return el("span", clip(JSON.stringify(x)));
    return el("ol.gn-list", shown.map((y) => el("li", valueNode(ctx, key, y, depth + 1, true))), more ? el("li.gn-more", more) : null);
  }
  if (typeof x === "object") {
    const entries = Object.entries(x);
    if (!entries.length) return el("span.gn-none", "—");
    if (depth >= 2) return el("span", clip(JSON.stringify(x)));
    // Compact: "leader You · cards Q♥ K♥ · winner Casual".
    const parts = [];
    entries.slice(0, MAX_ITEMS).forEach(([k, y], i) => {
      if (i) parts.push(" · ");
      parts.push(el("span.gn-key", words(k).toLowerCase()), " ", valueNode(ctx, k, y, depth + 1, true));
    });
    return el("span.gn-compact", parts);
  }
  return el("span", clip(String(x)));
}

/** One panel per seat: its name, the seat to move, and the per-seat fields of the view. */
function seatPanels(ctx, v) {
  const n = seatCount(ctx);
  const fields = Object.entries(v).filter(([k, x]) => !SKIP.has(k) && perSeat(ctx, k, x));
  const roles = Object.entries(v).filter(([k, x]) => !SKIP.has(k) && k !== "current_player" && SEAT_KEY.test(k) && isSeat(ctx, x));
  const panels = [];
  for (let s = 0; s < n; s++) {
    const turn = v.current_player === s;
    panels.push(el(`div.seat-panel.gn-seat-panel${turn ? ".to-move" : ""}${s === ctx.me ? ".gn-mine" : ""}`,
      { "data-testid": `seat-${s}`, "data-origin": `seat-${s}` },
      el("span.seat-name", seatName(ctx, s)),
      turn ? el("span.chip.score", "to move") : null,
      roles.filter(([, x]) => x === s).map(([k]) => el("span.chip.dealer", words(k).toLowerCase())),
      fields.map(([k, x]) => el("span.chip", `${words(k).toLowerCase()} ${scalarText(x[s])}`))));
  }
  return el("div.gn-seats", panels);
}

/** Every other public field of the view, in the order the game gave them. */
function fieldList(ctx, v) {
  const rows = Object.entries(v).filter(([k, x]) => !SKIP.has(k) && k !== "current_player" && !perSeat(ctx, k, x)
    && !(SEAT_KEY.test(k) && isSeat(ctx, x)));
  if (!rows.length) return null;
  return el("dl.gn-fields", { "data-testid": "fields" },
    rows.map(([k, x]) => [el("dt", words(k)), el("dd", { "data-field": k }, valueNode(ctx, k, x))]));
}

function describe(action) {
  return isCard(action) ? cardText(action) : clip(action);
}

function handView(ctx, v) {
  if (ctx.me === null || !("hand" in v)) return null;
  const h = v.hand;
  const title = el("div.hand-title", "Your hand");
  if (!Array.isArray(h) || !h.every(isCard)) {
    return el("div.hand-wrap", title, el("div.gn-hand-text", { "data-testid": "hand" }, valueNode(ctx, "hand", h)));
  }
  if (!h.length) return el("div.hand-wrap", title, el("p.muted.gn-empty", { "data-testid": "hand" }, "Your hand is empty."));
  const legal = new Set(ctx.legal);
  const myTurn = ctx.legal.length > 0;
  const any = h.some((c) => legal.has(c));
  const dealt = !ctx.prevView || !Array.isArray(ctx.prevView.hand) || ctx.prevView.hand.length < h.length;
  const row = el(`div.hand${dealt ? ".deal-in" : ""}`, { "data-testid": "hand", "data-origin": `seat-${ctx.me}` });
  h.forEach((c, i) => {
    const playable = myTurn && legal.has(c);
    const cls = [playable ? "playable" : myTurn && any ? "dimmed" : "", ctx.hint && ctx.hint.action === c ? "hinted" : ""]
      .filter(Boolean).join(" ");
    const b = cardButton(c, { cls, onclick: playable ? () => ctx.act(c) : null });
    b.style.setProperty("--i", i);
    row.append(b);
  });
  return el("div.hand-wrap", title, row);
}

function moveButton(ctx, a, i) {
  const hinted = ctx.hint && ctx.hint.action === a;
  return el(`button.gn-move${hinted ? ".hinted" : ""}`, {
    type: "button", "data-action": a, title: i < 9 ? `${a} (key ${i + 1})` : a, onclick: () => ctx.act(a),
  }, describe(a));
}

/** The legal moves as buttons, in the game's order; with many, a box to narrow them down. */
function moves(ctx) {
  if (!ctx.legal.length) return null;
  const box = el("div.gn-moves", { "data-testid": "moves" });
  const list = el("div.gn-move-list");
  const fill = (filter) => {
    clear(list);
    const f = filter.trim().toLowerCase();
    const hits = ctx.legal.filter((a) => !f || a.toLowerCase().includes(f));
    hits.slice(0, SHOWN_MOVES).forEach((a, i) => list.append(moveButton(ctx, a, i)));
    if (hits.length > SHOWN_MOVES) list.append(el("span.muted", `… and ${hits.length - SHOWN_MOVES} more: type to narrow them down.`));
    if (!hits.length) list.append(el("span.muted", "No legal move matches."));
    return hits;
  };
  const label = ctx.legal.length === 1 ? "Your only legal move:" : `Your legal moves (${ctx.legal.length}):`;
  box.append(el("div.gn-moves-title", label));
  if (ctx.legal.length > MANY_MOVES) {
    const input = el("input.gn-filter", { type: "text", placeholder: "Type part of a move…", "aria-label": "Find a move",
      oninput: (ev) => fill(ev.target.value),
      onkeydown: (ev) => {
        if (ev.key !== "Enter") return;
        const f = ev.target.value.trim();
        const hits = fill(f);
        const exact = ctx.legal.find((a) => a.toLowerCase() === f.toLowerCase());
        if (exact || hits.length === 1) ctx.act(exact || hits[0]);
      } });
    box.append(input);
  }
  fill("");
  box.append(list);
  return box;
}

const STYLE = `
.gn-seats { display: flex; flex-wrap: wrap; gap: 8px; }
.gn-seat-panel { flex: 1 1 180px; }
.gn-seat-panel.gn-mine { background: rgba(255, 255, 255, .14); }
.gn-fields { margin: 0; display: grid; grid-template-columns: minmax(90px, max-content) minmax(0, 1fr); gap: 4px 14px;
  background: rgba(255, 255, 255, .95); color: var(--ink); border-radius: 10px; padding: 10px 14px; align-items: center; }
.gn-fields dt { font-weight: 600; color: var(--muted); font-size: .88rem; }
.gn-fields dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.gn-list { margin: 0; padding-left: 1.4em; display: grid; gap: 2px; }
.gn-key { color: var(--muted); font-size: .85rem; }
.gn-none { color: var(--muted); }
.gn-more { color: var(--muted); font-size: .85rem; margin-left: 4px; }
.gn-cards { display: inline-flex; flex-wrap: wrap; gap: 4px; vertical-align: middle; }
.gn-card svg.card { width: 34px; filter: drop-shadow(0 1px 1px rgba(0, 0, 0, .3)); }
.gn-moves { background: rgba(255, 255, 255, .95); color: var(--ink); border-radius: 10px; padding: 10px 14px;
  border-left: 6px solid var(--accent); display: grid; gap: 8px; }
.gn-moves-title { font-weight: 600; }
.gn-move-list { display: flex; flex-wrap: wrap; gap: 6px; }
.gn-move { min-width: 48px; justify-content: center; font-weight: 600; }
.gn-move.hinted { outline: 3px solid #2aa0ff; outline-offset: 1px; }
.gn-filter { width: min(320px, 100%); }
.gn-empty { text-align: center; margin: 4px 0 8px; }
.gn-hand-text { background: rgba(255, 255, 255, .9); color: var(--ink); border-radius: 10px; padding: 8px 12px; }
@media (max-width: 640px) {
  .gn-seat-panel { flex-basis: 140px; font-size: .85rem; }
  .gn-fields { grid-template-columns: minmax(70px, max-content) minmax(0, 1fr); padding: 8px 10px; gap: 3px 10px; font-size: .9rem; }
  .gn-card svg.card { width: 26px; }
}`;

function ensureStyle() {
  if (document.getElementById("gn-style")) return;
  document.head.append(el("style#gn-style", STYLE));
}

/** Arrow keys move between the legal moves (raised cards first), 1-9 press the nth. */
function moveKeys(ev, board) {
  const cards = [...board.querySelectorAll(".hand .card-btn.playable")];
  return cardKeys(ev, board, cards.length ? cards : [...board.querySelectorAll(".gn-move")]);
}

function eventWords(ctx, e) {
  const parts = [];
  Object.entries(e).filter(([k]) => k !== "type" && k !== "seats").forEach(([k, x], i) => {
    if (i) parts.push(" · ");
    parts.push(`${words(k).toLowerCase()} `, valueNode(ctx, k, x, 1, true));
  });
  return parts;
}

export default {
  render(board, ctx) {
    ensureStyle();
    const v = ctx.view && typeof ctx.view === "object" ? ctx.view : {};
    put(board,
      seatPanels(ctx, v),
      fieldList(ctx, v),
      hintBox(ctx, describe),
      moves(ctx),
      handView(ctx, v),
      ctx.me === null ? el("p.muted.gn-watch", "You are watching: no hand is shown.") : null);
  },

  status(ctx) {
    const v = ctx.view || {};
    if (ctx.legal.length) {
      const hand = new Set(Array.isArray(v.hand) ? v.hand : []);
      if (ctx.legal.every((a) => hand.has(a))) return "Your turn: play one of the raised cards.";
      return ctx.legal.length === 1 ? "Your turn: one move is legal." : `Your turn: choose one of ${ctx.legal.length} moves.`;
    }
    if (isSeat(ctx, v.current_player)) return `${seatName(ctx, v.current_player)} to play…`;
    return "";
  },

  narrate(e, ctx) {
    if (!e || typeof e !== "object") return null;
    if (e.type === "action") {
      const who = isSeat(ctx, e.player) ? seatName(ctx, e.player) : "A player";
      if (e.action === null || e.action === undefined) return el("span", `${who} moved.`);
      return isCard(e.action)
        ? el("span", `${who} played `, cardText(e.action), ".")
        : el("span", `${who} chose `, el("strong", clip(e.action)), ".");
    }
    const head = `${words(e.type || "event")}`;
    const rest = eventWords(ctx, e);
    const tag = /over|end|result|finish/.test(String(e.type)) ? "strong" : /deal|round|start|new/.test(String(e.type)) ? "span.deal-line" : "span";
    return el(tag, rest.length ? [`${head}: `, ...rest] : head, ".");
  },

  result(ctx) {
    const r = (ctx.table && ctx.table.returns) || (ctx.msg && ctx.msg.returns);
    const v = ctx.view || {};
    const scores = perSeat(ctx, "scores", v.scores)
      ? ` Scores: ${v.scores.map((x, s) => `${seatName(ctx, s)} ${scalarText(x)}`).join(", ")}.` : "";
    if (!Array.isArray(r) || !r.length) return `The game is over.${scores}`;
    const best = Math.max(...r);
    const top = r.map((x, s) => (x === best ? s : -1)).filter((s) => s >= 0);
    const sign = (x) => `${x > 0 ? "+" : ""}${scalarText(x)}`;
    const head = top.length === r.length ? "A draw." : `${top.map((s) => seatName(ctx, s)).join(" and ")} won.`;
    return `${head}${scores} Results: ${r.map((x, s) => `${seatName(ctx, s)} ${sign(x)}`).join(", ")}.`;
  },

  pauseAfter() {
    return 700;
  },

  keyboard(ev, ctx, board) {
    return moveKeys(ev, board);
  },

  describe,
};
