// Pieces the three game screens share: card buttons, hands, seat labels, hint boxes, options.

import { cardBack, cardSVG } from "../cards.js";
import { cardText, el, isCard } from "../ui.js";

/** The table's options with its rule set and the game's defaults filled in. */
export function resolvedOptions(ctx) {
  const out = {};
  const info = ctx.info;
  if (info) for (const o of info.options) out[o.name] = o.default;
  const given = (ctx.table && ctx.table.options) || {};
  const rs = info && given.ruleset && info.rulesets.find((r) => r.name === given.ruleset);
  if (rs) Object.assign(out, rs.options);
  Object.assign(out, given);
  return out;
}

/** A card as a button (playable or not) holding its SVG. */
export function cardButton(code, opts = {}) {
  const b = el(`button.card-btn${opts.cls ? "." + opts.cls.split(" ").join(".") : ""}`, {
    type: "button",
    "data-card": code,
    "data-flip": opts.flip === false ? null : code,
    "data-from": opts.from || null,
    "aria-label": opts.label || null,
    disabled: opts.onclick ? null : true,
    tabindex: opts.onclick ? null : "-1",
    onclick: opts.onclick || null,
    title: opts.title || null,
  });
  b.append(cardSVG(code, { mini: opts.mini }));
  if (opts.tag) b.append(el("span.card-tag", opts.tag));
  return b;
}

export function backs(n, opts = {}) {
  const box = el(`div.backs${opts.cls ? "." + opts.cls : ""}`, { "aria-label": `${n} cards`, "data-origin": opts.origin || null });
  // A few backs stand for the hand; the number says how many cards it holds.
  const shown = opts.max ? Math.min(n, opts.max) : n;
  for (let i = 0; i < shown; i++) {
    const b = el("div.back-slot");
    b.append(cardBack());
    box.append(b);
  }
  if (opts.count || shown < n) box.append(el("span.count-badge", String(n)));
  return box;
}

/** The log's line for a trick's first card ("Casual led Q♥."), from the move's event when the view
 * after it holds a one-card trick; null for every other move (the trick line tells the rest). */
export function leadLine(e, ctx, name) {
  if (!isCard(e.action) || !ctx.view || (ctx.view.trick || []).length !== 1) return null;
  return el("span", `${e.player === ctx.me ? "You" : name(e.player)} led `, cardText(e.action), ".");
}

/** The hint's line; ``describe(action, move)`` names its move (``move``: the hint's parts, for a game
 * whose moves have them, else undefined). */
export function hintBox(ctx, describe) {
  const h = ctx.hint;
  if (!h || !ctx.msg || h.seq !== ctx.msg.seq) return null;
  const p = typeof h.win_probability === "number" ? `${Math.round(h.win_probability * 100)}%` : null;
  return el("div.hint-box", { "data-testid": "hint-box" }, "Hint: the best computer player would play ",
    describe ? describe(h.action, h.move) : h.action, p ? ` — its chance of winning from here: ${p}.` : ".");
}

/** A hand in the order the engine shows it (``ctx.info.drawing.card_order``: the game's ``drawing()``). */
export function sortHand(ctx, codes) {
  const order = ctx.info.drawing.card_order;
  return [...codes].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

/** The player's hand as a row of card buttons, in the engine's order: on the player's turn
 * (``myTurn``) the legal cards raised and playable, the others dimmed; cards of the ``trump`` suit
 * (a suit letter, or null) marked; the hinted card outlined; ``tag(card)`` a small word on a card or
 * null; ``dealt`` deals the row in (a new deal). */
export function handRow(ctx, cards, { myTurn, trump = null, tag = () => null, dealt = false }) {
  const legal = new Set(ctx.legal);
  const row = el(`div.hand${dealt ? ".deal-in" : ""}`, { "data-origin": `seat-${ctx.me}`, "data-testid": "hand" });
  sortHand(ctx, cards).forEach((c, i) => {
    const playable = myTurn && legal.has(c);
    const cls = [playable ? "playable" : myTurn ? "dimmed" : "", trump && c[1] === trump ? "trump" : "",
      ctx.hint && ctx.hint.action === c ? "hinted" : ""].filter(Boolean).join(" ");
    const b = cardButton(c, { cls, onclick: playable ? () => ctx.act(c) : null, tag: tag(c) });
    b.style.setProperty("--i", i);
    row.append(b);
  });
  return row;
}

/** The completed trick the page wants drawn now instead of the view's own trick, or null:
 * ``ctx.trickShown`` is ``{trick, peek}``, ``trick`` a trick event (``leader``, ``cards`` in the
 * order played, ``winner``, ``points``); ``peek`` when the player asked for the last trick. */
export function shownTrick(ctx) {
  return ctx.trickShown || null;
}

/** The line under a completed trick: who won it (and for how many points); "Last trick" first when
 * the player asked to see it again. */
export function trickLabel(ctx, t, peek = false) {
  const who = t.winner === ctx.me ? "You" : ctx.names[t.winner];
  const pts = t.points ? ` · ${t.points} pts` : "";
  return el("div.trick-label", { "data-testid": "trick-label" }, `${peek ? "Last trick · " : ""}${who} won it${pts}`);
}

export function sentence(...parts) {
  return el("span", ...parts);
}

export { cardText };

/** Arrow keys move between playable cards (or the given buttons), Enter or Space plays, 1-9 plays the
 * nth one. */
export function cardKeys(ev, board, btns = [...board.querySelectorAll(".hand .card-btn.playable")]) {
  if (!btns.length) return false;
  const i = btns.indexOf(document.activeElement);
  if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
    const d = ev.key === "ArrowRight" ? 1 : -1;
    const next = i < 0 ? (d > 0 ? 0 : btns.length - 1) : (i + d + btns.length) % btns.length;
    btns[next].focus();
    return true;
  }
  if (/^[1-9]$/.test(ev.key)) {
    const b = btns[Number(ev.key) - 1];
    if (b) b.click();
    return !!b;
  }
  return false;
}
