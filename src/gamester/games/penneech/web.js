// Penneech: two hands, a new trump turned up before every trick, honours pegged to the target.

import { cardsText, cardText, el, moveText, put, suitText, SUIT_NAMES, SUITS } from "/static/js/ui.js";
import { backs, cardButton, cardKeys, handRow, hintBox, leadLine, resolvedOptions, shownTrick, trickLabel }
  from "/static/js/games/common.js";

function seatsOf(ctx) {
  // The viewer at the bottom; a spectator sees seat 0 at the bottom.
  const bottom = ctx.me === null ? 0 : ctx.me;
  return { bottom, top: 1 - bottom };
}

/** Every view, a seat's or a spectator's, carries both hand sizes (views.view). */
function handSize(v, seat) {
  return v.hand_sizes[seat];
}

function Name(ctx, seat) {
  return ctx.names[seat];
}

function seatPanel(ctx, v, seat) {
  const name = Name(ctx, seat);
  const turn = v.current_player === seat;
  return el(`div.seat-panel${turn ? ".to-move" : ""}`, { "data-testid": `seat-${seat}` },
    el("span.seat-name", name),
    v.dealer === seat ? el("span.chip.dealer", { title: "Dealer" }, "Dealer") : null,
    el("span.chip", `${v.tricks_won[seat]} ${v.tricks_won[seat] === 1 ? "trick" : "tricks"}`),
    el("span.chip.score", `${v.scores[seat]} pts`));
}

function track(ctx, v) {
  const target = v.target;
  const rows = [0, 1].map((s) => {
    const pct = Math.min(100, (v.scores[s] / target) * 100);
    return el("div.track-row",
      el("span.track-name", Name(ctx, s)),
      el("div.track-bar", { role: "meter", "aria-valuemin": 0, "aria-valuemax": target, "aria-valuenow": v.scores[s],
        "aria-label": `${Name(ctx, s)}: ${v.scores[s]} of ${target}` },
        el(`div.track-fill.p${s}`, { style: `width:${pct}%` }),
        el("div.track-peg", { style: `left:${pct}%` })),
      el("span.track-num", `${v.scores[s]}`));
  });
  return el("div.track", { "data-testid": "score-track" }, el("div.track-title", `Game to ${target}`), rows);
}

function trickArea(ctx, v) {
  const { bottom } = seatsOf(ctx);
  const area = el("div.trick.two");
  const slot = (seat) => area.querySelector(seat === bottom ? ".slot-bottom" : ".slot-top");
  area.append(el("div.slot.slot-top"), el("div.slot.slot-bottom"));
  // A completed trick the page holds (or the last trick asked for) is drawn over the view's own; the
  // view's last trick stays until the next lead, and after the game's end (its deciding trick).
  const shown = shownTrick(ctx);
  const lt = shown ? shown.trick : !v.trick.length && (v.phase === "play" || v.phase === "over") ? v.last_trick : null;
  if (lt) {
    lt.cards.forEach((c, i) => slot((lt.leader + i) % 2).append(cardButton(c, { from: `seat-${(lt.leader + i) % 2}` })));
    area.classList.add("done");
    if (shown && shown.peek) area.classList.add("peek");
    area.append(trickLabel(ctx, lt, shown && shown.peek));
  } else if (v.trick.length) {
    slot(v.leader).append(cardButton(v.trick[0], { from: `seat-${v.leader}` }));
  }
  return area;
}

function turnUp(ctx, v) {
  const box = el("div.turnup-area");
  const stock = backs(Math.min(4, Math.ceil(v.stock_size / 8)), { cls: "stock", origin: "stock" });
  box.append(el("div.stock-wrap", stock, el("span.caption", `Stock ${v.stock_size}`)));
  if (v.turn_up) {
    const card = cardButton(v.turn_up, { from: "stock", flip: true, cls: "turned" });
    card.dataset.flip = `up-${v.turn_up}`;
    const trumpLine = v.phase === "play" && v.trump
      ? el("span.caption.trump-caption", "Trumps: ", suitText(v.trump))
      : el("span.caption", "Turn-up (trumps for nothing)");
    box.append(el("div.turnup", card, trumpLine));
  } else {
    box.append(el("div.turnup", el("div.card-space"), el("span.caption", "No turn-up yet")));
  }
  return box;
}

function offer(ctx, v) {
  if (!ctx.legal.includes("redeal")) return null;
  const rule = resolvedOptions(ctx).redeal === "no_ace_or_face"
    ? "no Ace, King, Queen or Jack" : "no card above a Ten (no Ace, King, Queen, Jack, nor the 7♦)";
  return el("div.offer", { "data-testid": "redeal-offer" },
    el("p", `Your hand has ${rule}. You may throw it in: it is shown to your opponent and the same dealer deals again.`),
    el("div.row",
      el("button.primary", { onclick: () => ctx.act("keep"), "data-action": "keep" }, "Keep the hand (K)"),
      el("button", { onclick: () => ctx.act("redeal"), "data-action": "redeal" }, "Ask for a redeal (R)")));
}

function hand(ctx, v) {
  const { bottom } = seatsOf(ctx);
  if (ctx.me === null || !v.hand) {
    return el("div.hand.hidden-hand", { "data-origin": `seat-${bottom}` }, backs(handSize(v, bottom)));
  }
  const trump = v.phase === "play" ? v.trump : null;
  return handRow(ctx, v.hand, {
    myTurn: ctx.legal.length > 0 && !ctx.legal.includes("redeal"),
    trump,
    tag: (c) => (trump && c[1] === trump ? "★" : null),
    dealt: !ctx.prevView || ctx.prevView.deal !== v.deal || (ctx.prevView.hand || []).length < v.hand.length,
  });
}

function shown(ctx, v) {
  // A hand thrown in is news until the first trick of the new deal is played.
  if (!v.shown_hands || !v.shown_hands.length || v.tricks_won[0] + v.tricks_won[1] > 0) return null;
  return el("div.shown", v.shown_hands.map((h) => el("div",
    `${Name(ctx, h.seat)} showed `, cardsText(h.cards), " and threw the hand in.")));
}

export default {
  render(board, ctx) {
    const v = ctx.view;
    const { bottom, top } = seatsOf(ctx);
    const oppHand = backs(handSize(v, top), { origin: `seat-${top}`, count: true });
    put(board,
      el("div.pn-top", seatPanel(ctx, v, top), el("div.opp-hand", oppHand)),
      el("div.pn-middle", turnUp(ctx, v), trickArea(ctx, v), track(ctx, v)),
      shown(ctx, v),
      offer(ctx, v),
      hintBox(ctx, moveText),
      hand(ctx, v),
      el("div.pn-bottom", seatPanel(ctx, v, bottom)));
  },

  status(ctx) {
    const v = ctx.view;
    if (ctx.legal.includes("redeal")) return "Your turn: keep your hand or ask for a redeal.";
    if (ctx.legal.length) {
      if (!v.trick.length) return "Your lead: play any card.";
      const led = v.trick[0][1];
      const ledName = `${SUIT_NAMES[led]} ${SUITS[led]}`;
      const holds = (v.hand || []).some((c) => c[1] === led);
      if (!holds) return `Your turn: you have no ${ledName}, so any card will do.`;
      if (resolvedOptions(ctx).follow === "suit" || led === v.trump) return `Your turn: follow with ${ledName}.`;
      return `Your turn: play ${ledName} or a trump (${SUIT_NAMES[v.trump]} ${SUITS[v.trump]}).`;
    }
    if (v.current_player === null || v.current_player === undefined) return "";
    return `${ctx.names[v.current_player]} to play…`;
  },

  narrate(e, ctx) {
    const n = (s) => Name(ctx, s);
    switch (e.type) {
      case "draw":
        if (e.dealer === null) {
          return el("span", `Drawing for the deal: ${n(0)} `, cardText(e.cards[0]), `, ${n(1)} `, cardText(e.cards[1]),
            " — equal, so they draw again.");
        }
        return el("span", `Drawing for the deal: ${n(0)} `, cardText(e.cards[0]), `, ${n(1)} `, cardText(e.cards[1]),
          ` — the lower card deals: ${n(e.dealer)}.`);
      case "deal":
        return el("span.deal-line", `Deal ${e.deal + 1}, dealt by ${e.dealer === ctx.me ? "you" : n(e.dealer)}.`);
      case "redeal":
        return el("span", `${n(e.seat)} threw in a hand without a high card (`, cardsText(e.cards),
          "); the same dealer deals again.");
      case "keep":
        return el("span", `${n(e.seat)} kept the hand.`);
      case "turn_up": {
        // The deal's last turn-up (the card bonus comes straight after it) sets no trump.
        const evs = (ctx.msg && ctx.msg.events) || [];
        const next = evs[evs.indexOf(e) + 1];
        const last = evs.includes(e) && next && next.type === "card_bonus";
        const parts = [`${n(e.seat)} turned up `, cardText(e.card)];
        if (!last) parts.push(": ", suitText(e.trump), " are trumps");
        if (e.points) parts.push(` — ${e.points} ${e.card === "7D" ? "for Penneech itself" : "points"} to ${e.seat === ctx.me ? "you" : n(e.seat)}`);
        return el("span", ...parts, ".");
      }
      case "action":
        return leadLine(e, ctx, n);
      case "trick":
        return el("span", `${n(e.winner)} won the trick: `, cardsText(e.cards),
          e.points ? ` — ${e.points} in honours.` : ".");
      case "card_bonus":
        return el("span", `${n(e.seat)} took the most tricks: ${e.points} for cards.`);
      case "game_over": {
        const sc = e.scores;
        if (e.winner === null) return el("strong", `The deal ends level, ${sc[0]}–${sc[1]}.`);
        return el("strong", `${e.winner === ctx.me ? "You win" : `${n(e.winner)} wins`}, ${sc[e.winner]} to ${sc[1 - e.winner]}.`);
      }
      default:
        return null;
    }
  },

  result(ctx) {
    const v = ctx.view;
    const sc = v.scores;
    const w = v.winner;
    if (w === null || w === undefined) {
      const r = ctx.table.returns;
      if (r && r[0] !== r[1]) {
        const best = r[0] > r[1] ? 0 : 1;
        return `${best === ctx.me ? "You win" : `${ctx.names[best]} wins`} the deal, ${sc[best]} to ${sc[1 - best]}.`;
      }
      return `Level at ${sc[0]}–${sc[1]}.`;
    }
    return `${w === ctx.me ? "You win" : `${ctx.names[w]} wins`}, ${sc[w]} to ${sc[1 - w]}.`;
  },

  // Where the game stands, as events, for a page that arrives after the deal began.
  opening(v) {
    return [{ type: "deal", deal: v.deal, dealer: v.dealer }];
  },

  pauseAfter(msg) {
    return msg.events.some((e) => e.type === "trick") ? 1100 : 650;
  },

  // The last completed trick a view shows, for a page that arrived after it (its "Last trick").
  lastTrick(v) {
    return v.last_trick || null;
  },

  keyboard(ev, ctx, board) {
    if (ctx.legal.includes("redeal")) {
      if (ev.key === "k" || ev.key === "K") return ctx.act("keep"), true;
      if (ev.key === "r" || ev.key === "R") return ctx.act("redeal"), true;
    }
    return cardKeys(ev, board);
  },

  describe(action) {
    return moveText(action);
  },
};
