// Piquesept: the holder of the 7♠ plays alone against the rest; a forced first trick, a secret
// draw-and-give, then tricks for card points. The points to win, all there are, the trump suit and the
// order a hand is shown in come from the server (ctx.info.drawing, PiqueseptGame.drawing), never
// restated here.

import { cardsText, cardText, el, put, SUIT_NAMES, SUITS } from "/static/js/ui.js";
import { backs, cardButton, cardKeys, handRow, hintBox, leadLine, shownTrick, trickLabel }
  from "/static/js/games/common.js";

/** The engine's fixed facts for this drawing: points to win, total points, the trump suit, the hand's
 * card order. */
function facts(ctx) {
  return ctx.info.drawing;
}

/** The deal's outcome as the engine scored it: the sign of the soloist's return. */
function soloistWon(deal) {
  return Math.sign(deal.returns[deal.soloist]);
}

/** Where each seat sits on screen, the viewer (or seat 0 for a spectator) at the bottom. */
function positions(ctx, n) {
  const me = ctx.me === null ? 0 : ctx.me;
  const names = n === 4 ? ["bottom", "left", "top", "right"] : ["bottom", "left", "right"];
  const pos = {};
  for (let i = 0; i < n; i++) pos[(me + i) % n] = names[i];
  return pos;
}

function describe(action) {
  return cardText(action);
}

function seatPanel(ctx, v, seat, pos) {
  const solo = v.soloist === seat;
  const role = solo
    ? el("span.chip.soloist", { title: "Holds the 7♠ and plays alone" }, "Soloist", el("span.long", " · holds 7♠"))
    : el("span.chip.defender", "Defender");
  const drawing = v.drawer === seat && v.phase !== "over" && v.trade.stage !== "given"
    ? el("span.chip", { title: "Draws a card from the soloist after the first trick" }, "Draws") : null;
  const size = v.hand_sizes ? v.hand_sizes[seat] : 0;
  const hidden = seat !== ctx.me ? backs(size, { cls: "small", origin: `seat-${seat}`, max: 5, count: true }) : null;
  return el(`div.seat-panel.pos-${pos}${v.current_player === seat ? ".to-move" : ""}`,
    { "data-testid": `seat-${seat}`, "data-origin": seat === ctx.me ? null : `seat-${seat}` },
    el("div.seat-line", el("span.seat-name", ctx.names[seat]), role, drawing,
      v.dealer === seat ? el("span.chip.dealer", "Dealer") : null),
    el("div.seat-line", el("span.chip.score", `${v.phase === "over" ? v.scores[seat] : v.card_points[seat]} pts taken`)),
    hidden);
}

function trickArea(ctx, v, pos) {
  const n = v.players;
  const area = el(`div.trick.ring.n${n}`);
  const slots = {};
  for (const p of Object.values(pos)) {
    slots[p] = el(`div.slot.slot-${p}`);
    area.append(slots[p]);
  }
  let cards = v.trick;
  let leader = v.leader;
  let label = null;
  // A completed trick the page holds (or the last trick asked for) is drawn over the view's own; the
  // view's last trick stays until the next lead.
  const shown = shownTrick(ctx);
  const t = shown ? shown.trick : !cards.length && v.tricks.length ? v.tricks[v.tricks.length - 1] : null;
  if (t) {
    cards = t.cards;
    leader = t.leader;
    area.classList.add("done");
    if (shown && shown.peek) area.classList.add("peek");
    label = trickLabel(ctx, t, shown && shown.peek);
  }
  cards.forEach((c, i) => {
    const seat = (leader + i) % n;
    slots[pos[seat]].append(cardButton(c, { from: `seat-${seat}` }));
  });
  if (label) area.append(label);
  else area.append(el("div.trick-label.quiet", `Trick ${v.trick_number}`));
  return area;
}

function meter(ctx, v) {
  // Once the game is over the deal's points are in its result.
  const last = v.past_deals[v.past_deals.length - 1];
  const [sp, dp] = v.phase === "over" && last ? last.card_points : v.side_points;
  const { win_points: win, total_points: total } = facts(ctx);
  const pct = (p) => `${((p / total) * 100).toFixed(2)}%`;
  // The two marks: where the soloist wins (from the left) and where the defenders do (from the right).
  return el("div.points-meter", { "data-testid": "side-points" },
    el("div.meter-labels", el("span", `Soloist ${sp}`), el("span.muted", `${win} of ${total} wins`), el("span", `Defenders ${dp}`)),
    el("div.meter-bar",
      el("div.meter-solo", { style: `width:${pct(sp)}` }),
      el("div.meter-def", { style: `width:${pct(dp)}` }),
      el("div.meter-mark", { style: `left:${pct(win)}` }),
      el("div.meter-mark", { style: `left:${pct(total - win)}` })));
}

function banner(ctx, v) {
  const solo = ctx.names[v.soloist];
  const drawer = ctx.names[v.drawer];
  const me = ctx.me;
  if (v.phase === "first_trick") {
    return el("div.explain", { "data-testid": "explain" },
      el("strong", "The first trick is forced. "),
      `${me === v.soloist ? "You hold" : `${solo} holds`} the 7♠ and ${me === v.soloist ? "lead" : "leads"} it; `,
      `each defender must play his highest trump ${SUITS[facts(ctx).trump]} — or, with no trump, his highest card. `,
      "The soloist wins it.");
  }
  if (v.phase === "give") {
    if (me === v.drawer) {
      return el("div.explain.act", { "data-testid": "explain" },
        "You drew ", cardText(v.trade.drawn), ` from ${solo}'s hand. Now give ${solo} one card of your choice — `,
        "it may be the card you just drew.");
    }
    if (me === v.soloist) {
      return el("div.explain", { "data-testid": "explain" }, `${drawer} drew `, cardText(v.trade.drawn),
        " from your hand and is choosing a card to give you.");
    }
    return el("div.explain", { "data-testid": "explain" },
      `${drawer} drew a card from ${solo}'s hand and gives one back; only the two of them see these cards.`);
  }
  if (v.trade.stage === "given" && (me === v.drawer || me === v.soloist) && v.trade.drawn && v.phase !== "over") {
    const text = me === v.drawer
      ? ["Trade: you drew ", cardText(v.trade.drawn), " and gave ", cardText(v.trade.given), "."]
      : ["Trade: you lost ", cardText(v.trade.drawn), " and received ", cardText(v.trade.given), "."];
    return el("div.explain.quiet", ...text);
  }
  return null;
}

function hand(ctx, v) {
  if (ctx.me === null || !v.hand) return null;
  return handRow(ctx, v.hand, {
    myTurn: ctx.legal.length > 0,
    trump: facts(ctx).trump,
    tag: (c) => (v.phase === "give" && v.drawer === ctx.me && v.trade.drawn === c ? "drawn" : null),
    dealt: !ctx.prevView || ctx.prevView.deal !== v.deal,
  });
}

/** "Spades ♠ are always trumps", from the trump suit the server gives. */
function trumpNote(ctx) {
  const t = facts(ctx).trump;
  const name = SUIT_NAMES[t];
  return `${name[0].toUpperCase()}${name.slice(1)} ${SUITS[t]} are always trumps`;
}

export default {
  render(board, ctx) {
    const v = ctx.view;
    const n = v.players;
    const pos = positions(ctx, n);
    const seatOf = Object.fromEntries(Object.entries(pos).map(([s, p]) => [p, Number(s)]));
    const panel = (p) => (seatOf[p] === undefined ? el(`div.seat-panel.pos-${p}.empty`) : seatPanel(ctx, v, seatOf[p], p));
    const deals = v.deals > 1 ? el("div.deal-count", `Deal ${Math.min(v.deal + 1, v.deals)} of ${v.deals}`) : null;
    // The seat at the bottom (the viewer) shares a row with the points, so that the hand below fits
    // on a laptop's screen with the whole table above it.
    put(board,
      el(`div.ps-table.n${n}`,
        panel("top"), panel("left"), trickArea(ctx, v, pos), panel("right")),
      el("div.ps-info", el("div.ps-bottom", seatPanel(ctx, v, seatOf.bottom, "bottom")),
        el("div.ps-points", deals, meter(ctx, v), el("span.muted.trump-note", trumpNote(ctx)))),
      banner(ctx, v),
      hintBox(ctx, describe),
      hand(ctx, v));
  },

  status(ctx) {
    const v = ctx.view;
    if (ctx.legal.length) {
      if (v.phase === "give") return "Your turn: choose the card to give the soloist.";
      if (v.phase === "first_trick") {
        return ctx.me === v.soloist ? "Your turn: lead the 7♠." : "Your turn: the rule picks your card — play it.";
      }
      if (!v.trick.length) return "Your lead: play any card.";
      if (ctx.me === v.soloist) return "Your turn: as soloist you may play any card.";
      return "Your turn: follow suit if you can; if not, trump if you can.";
    }
    if (v.current_player === null || v.current_player === undefined) return "";
    const who = ctx.names[v.current_player];
    return v.phase === "give" ? `${who} is choosing a card to give…` : `${who} to play…`;
  },

  // Where the game stands, as events, for a page that arrives after the deal began.
  opening(v) {
    const out = [{ type: "deal", deal: v.deal, dealer: v.dealer }];
    if (v.soloist !== null && v.soloist !== undefined) out.push({ type: "soloist", seat: v.soloist });
    return out;
  },

  narrate(e, ctx) {
    const n = (s) => (s === ctx.me ? "you" : ctx.names[s]);
    const N = (s) => ctx.names[s];
    switch (e.type) {
      case "deal":
        return el("span.deal-line", `Deal ${e.deal + 1}, dealt by ${n(e.dealer)}.`);
      case "soloist":
        return e.seat === ctx.me
          ? el("span", "You hold the 7♠: you play alone against everyone else.")
          : el("span", `${N(e.seat)} holds the 7♠ and plays alone against the rest.`);
      case "action":
        return leadLine(e, ctx, N);
      case "trick":
        return el("span", `${N(e.winner)} won the trick `, cardsText(e.cards), ` for ${e.points} points.`);
      case "draw":
        return el("span", `${N(e.drawer)} drew `, e.card ? cardText(e.card) : "a card",
          ` from ${e.soloist === ctx.me ? "your" : `${N(e.soloist)}'s`} hand.`);
      case "give":
        return el("span", `${N(e.drawer)} gave `, e.card ? cardText(e.card) : "a card", ` to ${n(e.soloist)}.`);
      case "deal_over": {
        const [sp, dp] = e.card_points;
        const won = soloistWon(e);
        const outcome = won === 0 ? "a draw" : won > 0 ? `${N(e.soloist)} (the soloist) wins` : "the defenders win";
        return el("strong", `The deal is over: soloist ${sp}, defenders ${dp} — ${outcome}.`);
      }
      case "game_over": {
        if (ctx.me === null) return el("strong", "The game is over.");
        const r = e.returns[ctx.me];
        return el("strong", `The game is over: your result ${r > 0 ? "+" : ""}${r}.`);
      }
      default:
        return null;
    }
  },

  result(ctx) {
    const v = ctx.view;
    const last = v.past_deals[v.past_deals.length - 1];
    const r = ctx.table.returns || v.returns_so_far;
    let text = "";
    if (last) {
      const [sp, dp] = last.card_points;
      const solo = last.soloist === ctx.me ? "You" : ctx.names[last.soloist];
      const won = soloistWon(last);
      text = won === 0 ? `A draw, ${sp}–${dp}.` : won > 0 ? `${solo} (alone) won, ${sp} to ${dp}.`
        : `The defenders won, ${dp} to ${sp}.`;
    }
    if (ctx.me !== null && r) text += ` Your result: ${r[ctx.me] > 0 ? "+" : ""}${r[ctx.me]}.`;
    return text;
  },

  pauseAfter(msg) {
    return msg.events.some((e) => e.type === "trick") ? 1200 : 600;
  },

  // The last completed trick a view shows, for a page that arrived after it (its "Last trick").
  lastTrick(v) {
    return v.tricks.length ? v.tricks[v.tricks.length - 1] : null;
  },

  keyboard(ev, ctx, board) {
    return cardKeys(ev, board);
  },
};
