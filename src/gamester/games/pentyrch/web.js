// Pentyrch: court cards race across a cross of Ace–6 piles, paying with 7–10 hand cards.
// Pick a court card, then a lit destination, then the payment among the legal ones.

import { courtToken } from "/static/js/cards.js";
import { cardsText, cardText, el, put, SUITS } from "/static/js/ui.js";
import { cardButton, hintBox, resolvedOptions } from "/static/js/games/common.js";

/** The engine's fixed facts (ctx.info.drawing, PentyrchGame.drawing): the cross's rows and free space,
 * each seat's name, suit, home and goal, card values and court points; none is restated here. */
function facts(ctx) {
  return ctx.info.drawing;
}

function seatName(ctx, seat) {
  return facts(ctx).seats[seat];
}

/** The legal moves as the server splits them (ctx.moves beside ctx.legal: PentyrchGame.action_parts,
 * from the engine's notation), each with its action string and where it goes: a cell, or "off" for
 * bearing off (the button sits on the goal cell). The page never reads the notation itself. */
function legalMoves(ctx) {
  const parts = ctx.moves || [];
  return ctx.legal.map((action, i) => ({ ...parts[i], action }))
    .filter((m) => m.kind && m.kind !== "pass")
    .map((m) => ({ ...m, dest: m.kind === "off" ? "off" : m.to }));
}

/** The pass among the legal moves (its action string, as its parts say), or null. */
function passAction(ctx) {
  const parts = ctx.moves || [];
  const i = parts.findIndex((m) => m && m.kind === "pass");
  return i >= 0 ? ctx.legal[i] : null;
}

function seatOwner(v, seat) {
  return v.owners[seat];
}

function seatLabel(ctx, seat) {
  const v = ctx.view;
  const name = seatName(ctx, seat);
  const p = seatOwner(v, seat);
  if (p === null || p === undefined) return name;
  if (p === ctx.me) return v.my_seats && v.my_seats.length > 1 ? `your ${name}` : "you";
  return `${name} (${ctx.names[p]})`;
}

function Cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function value(ctx, code) {
  return facts(ctx).card_values[code];
}

/** A move in words, from its parts (the hint's ``move``); the notation as sent when there are none. */
function describeAction(a, m) {
  if (!m) return a;
  if (m.kind === "pass") return "pass";
  const parts = [cardText(m.court), " "];
  if (m.kind === "off") parts.push("bears off");
  else if (m.kind === "enter") parts.push(`enters on ${m.to}`);
  else parts.push(`${m.from} → ${m.to}`);
  if (m.show) parts.push(", showing ", cardText(m.show));
  else if (m.pay.length) parts.push(", paying ", ...cardsText(m.pay));
  return el("span", ...parts);
}

/** The hint's court card and cell (its parts), for lighting them up; null without a hint. */
function hinted(ctx) {
  return (ctx.hint && ctx.hint.move) || null;
}

function cellView(ctx, v, name, moves, selectable) {
  const cell = v.board[name];
  const [file, rank] = [name.charCodeAt(0) - 96, Number(name[1])];
  const classes = ["cell"];
  const { homes, goals, free } = facts(ctx);
  const homeOf = homes.indexOf(name);
  const goalOf = goals.indexOf(name);
  const mine = v.my_seats || [];
  if (name === free) classes.push("free");
  if (homeOf >= 0) classes.push("home", `home-${seatName(ctx, homeOf).toLowerCase()}`);
  const sel = ctx.selection;
  const dests = sel.court ? new Set(moves.filter((m) => m.court === sel.court).map((m) => m.dest)) : new Set();
  // Bearing off is offered where the court card stands (its goal cell): lit like the other targets.
  const bearsOff = dests.has("off") && cell.stack.includes(sel.court);
  const isDest = dests.has(name) || bearsOff;
  if (isDest) classes.push("dest");
  const hint = hinted(ctx);
  if (hint && hint.to === name) classes.push("hinted");
  if (sel.dest === name) classes.push("chosen");
  const lastTo = ctx.lastMove && ctx.lastMove.to === name;
  const lastFrom = ctx.lastMove && ctx.lastMove.from === name;
  if (lastTo) classes.push("last-to");
  if (lastFrom) classes.push("last-from");
  const box = el(`div.${classes.join(".")}`, {
    style: `grid-column:${file};grid-row:${8 - rank}`,
    "data-cell": name,
  });
  const labels = [];
  const seated = homeOf >= 0 && v.owners[homeOf] !== null && v.owners[homeOf] !== undefined;
  const myGoal = goalOf >= 0 && mine.includes(goalOf);
  if (seated && mine.includes(homeOf) && myGoal) {
    // Two players: this cell is one of your homes and the goal of your other seat.
    labels.push(el("span.cell-label.goal", `${seatName(ctx, homeOf)} home · ${seatName(ctx, goalOf)} goal`));
  } else if (myGoal) {
    labels.push(el("span.cell-label.goal", "your goal"));
  } else if (seated) {
    const own = mine.includes(homeOf);
    labels.push(el(`span.cell-label.seat-${homeOf}${own ? ".own" : ""}`, own ? "your home" : `${seatName(ctx, homeOf)} home`));
  }
  if (name === free) {
    box.append(el("div.free-mark", "free"));
  } else if (cell.pile.length) {
    const top = cell.pile[cell.pile.length - 1];
    const c = cardButton(top, { mini: true, flip: false, label: `${name}: top value ${value(ctx, top)}${cell.pile.length > 1 ? `, ${cell.pile.length} cards` : ""}` });
    box.append(c);
    if (cell.pile.length > 1) box.append(el("span.pile-count", { title: cell.pile.join(" ") }, `×${cell.pile.length}`));
  } else {
    box.append(el("div.empty-pile"));
  }
  if (cell.stack.length) {
    const st = el("div.stack");
    cell.stack.forEach((code, i) => {
      const top = i === cell.stack.length - 1;
      const can = top && selectable.has(code);
      const hint = hinted(ctx) && hinted(ctx).court === code ? ".hinted" : "";
      const t = el(`button.token-btn${can ? ".selectable" : ""}${sel.court === code ? ".selected" : ""}${hint}`, {
        type: "button",
        "data-flip": code,
        "data-court": code,
        disabled: can ? null : true,
        title: `${code}${top ? "" : " (under another card)"}`,
        onclick: can ? (ev) => {
          ev.stopPropagation();
          ctx.select({ court: sel.court === code ? null : code, dest: null });
        } : null,
      });
      t.append(courtToken(code));
      st.append(t);
    });
    box.append(st);
  }
  if (labels.length) box.append(el("div.cell-labels", labels));
  box.append(el("span.cell-name", name));
  if (dests.has(name)) {
    const pick = el("button.dest-btn", { type: "button", "aria-label": `move ${sel.court} to ${name}`, "data-dest": name,
      onclick: () => chooseDest(ctx, moves, name) });
    box.append(pick);
  }
  if (bearsOff) {
    box.append(el("button.dest-btn.bear-off", { type: "button", "aria-label": `bear ${sel.court} off to safety`,
      "data-dest": "off", "data-action": "bear-off", onclick: () => chooseDest(ctx, moves, "off") }, "Bear off"));
  }
  return box;
}

function chooseDest(ctx, moves, dest) {
  const options = moves.filter((m) => m.court === ctx.selection.court && m.dest === dest);
  if (options.length === 1) ctx.act(options[0].action);
  else ctx.select({ dest });
}

function payPanel(ctx, moves) {
  const sel = ctx.selection;
  if (!sel.court || !sel.dest) return null;
  const options = moves.filter((m) => m.court === sel.court && m.dest === sel.dest);
  const where = sel.dest === "off" ? "bear off" : `go to ${sel.dest}`;
  const pile = sel.dest !== "off" && ctx.view.board[sel.dest] ? ctx.view.board[sel.dest].pile : [];
  const top = pile.length ? pile[pile.length - 1] : null;
  return el("div.pay-panel", { "data-testid": "pay-panel" },
    el("p", "How does ", cardText(sel.court), ` ${where}? `,
      top ? el("span.muted", "The pile's top value there is ", String(value(ctx, top)), ".") : null),
    el("div.row.wrap", options.map((m) => {
      const label = m.show ? ["Show ", cardText(m.show), " (no cards change hands)"]
        : m.pay.length === 1 ? ["Lay ", cardText(m.pay[0])]
          : m.pay.length ? ["Lay ", ...cardsText(m.pay), ` (${cardText(m.pay[0]).textContent} on top)`]
            : ["Move (no payment)"];
      const hint = ctx.hint && ctx.hint.action === m.action ? ".hinted" : "";
      return el(`button.pay-option${hint}`, { type: "button", "data-action": m.action, onclick: () => ctx.act(m.action) }, ...label);
    }), el("button.small", { type: "button", onclick: () => ctx.select({ dest: null }) }, "Back")));
}

/** What the player is to do now, naming the lit targets the board shows. */
function prompt(ctx, moves) {
  const sel = ctx.selection;
  if (!moves.length || sel.dest) return null;
  if (!sel.court) return el("p.prompt", "Pick one of your court cards (lit up) to move.");
  const dests = new Set(moves.filter((m) => m.court === sel.court).map((m) => m.dest));
  const court = cardText(sel.court);
  if (!dests.has("off")) return el("p.prompt", "Now pick where ", court, " goes (the lit cells).");
  if (dests.size === 1) {
    return el("p.prompt", court, " has reached its goal: press “Bear off” on its lit cell to take it to safety.");
  }
  return el("p.prompt", "Now pick where ", court, " goes (the lit cells), or press “Bear off” on its cell to take it to safety.");
}

function seatBox(ctx, v, seat, selectable) {
  const p = seatOwner(v, seat);
  if (p === null || p === undefined) return null;
  const name = seatName(ctx, seat);
  const suit = facts(ctx).seat_suits[seat];
  const mine = (v.my_seats || []).includes(seat);
  const toMove = v.seat_to_move === seat;
  const off = (v.off_board[name] || []).map((code) => {
    const can = selectable.has(code);
    const hint = hinted(ctx) && hinted(ctx).court === code ? ".hinted" : "";
    const b = el(`button.token-btn${can ? ".selectable" : ""}${ctx.selection.court === code ? ".selected" : ""}${hint}`, {
      type: "button", "data-flip": code, "data-court": code, disabled: can ? null : true,
      onclick: can ? () => ctx.select({ court: ctx.selection.court === code ? null : code, dest: null }) : null,
    });
    b.append(courtToken(code));
    return b;
  });
  const safe = (v.safe[name] || []).map((code) => {
    const b = el("span.token-safe", { "data-flip": code });
    b.append(courtToken(code));
    return b;
  });
  // What is known of another player's hand, shown once per player (a two-player side has two seats).
  const h = v.hands.find((x) => x.player === p);
  const handInfo = h && p !== ctx.me && v.owners.indexOf(p) === seat
    ? el("div.hand-info", h.known.length ? ["Known: ", ...cardsText(h.known), " "] : null,
      el("span.muted", `${h.unknown} unseen`))
    : null;
  const partners = resolvedOptions(ctx).partners ? el("span.chip", `partner: ${seatName(ctx, (seat + 2) % 4)}`) : null;
  return el(`div.py-seat.seat-${seat}${toMove ? ".to-move" : ""}${mine ? ".mine" : ""}`, { "data-testid": `seat-${seat}` },
    el("div.seat-line", el(`span.suit-badge.s${suit}`, SUITS[suit]),
      el("span.seat-name", `${name}: ${p === ctx.me ? "you" : ctx.names[p]}`),
      v.dealer === seat ? el("span.chip.dealer", "Dealer") : null, partners,
      el("span.chip.score", `${v.scores[p] !== undefined ? scoreOfSeat(ctx, v, seat) : 0} pts`)),
    el("div.seat-line.tokens", el("span.muted", "Off board "), off.length ? off : el("span.muted", "—"),
      el("span.muted.sep", " Safe "), safe.length ? safe : el("span.muted", "—")),
    handInfo);
}

function scoreOfSeat(ctx, v, seat) {
  // What each court card of this seat in safety scores, by the engine's court points.
  const points = facts(ctx).court_points;
  return (v.safe[seatName(ctx, seat)] || []).reduce((s, c) => s + points[c[0]], 0);
}

function myHand(ctx, v, moves) {
  if (ctx.me === null || !v.hand) return null;
  const sel = ctx.selection;
  const singles = new Map();
  if (sel.court && sel.dest) {
    for (const m of moves) {
      if (m.court !== sel.court || m.dest !== sel.dest) continue;
      if (m.pay.length === 1) singles.set(m.pay[0], m.action);
    }
  }
  const row = el("div.hand.py-hand", { "data-testid": "hand", style: `--n:${v.hand.length}` });
  v.hand.forEach((c, i) => {
    const a = singles.get(c);
    const cls = a ? "playable" : singles.size ? "dimmed" : "";
    const b = cardButton(c, { cls, onclick: a ? () => ctx.act(a) : null });
    b.style.setProperty("--i", i);
    row.append(b);
  });
  if (!v.hand.length) row.append(el("span.muted", "Your hand is empty."));
  return el("div.hand-wrap", el("div.hand-title", "Your hand (7–10 cards pay for exchanges)"), row);
}

export default {
  render(board, ctx) {
    const v = ctx.view;
    const moves = legalMoves(ctx);
    const selectable = new Set(moves.map((m) => m.court));
    // With one court card to move, pick it for the player.
    if (!ctx.selection.court && selectable.size === 1) ctx.selection.court = [...selectable][0];
    const evs = (ctx.msg && ctx.msg.events) || [];
    const mv = evs.find((e) => e.type === "move" || e.type === "enter" || e.type === "bear_off");
    ctx.lastMove = mv ? { from: mv.from, to: mv.to } : null;
    const grid = el("div.cross", { "data-testid": "cross" });
    for (const row of facts(ctx).rows) for (const name of row) grid.append(cellView(ctx, v, name, moves, selectable));
    const seats = [0, 1, 2, 3].map((s) => seatBox(ctx, v, s, selectable));
    const passing = passAction(ctx);
    const pass = passing
      ? el("div.offer", el("p", "No move is legal for you: you must pass", resolvedOptions(ctx).reveal_on_pass === false ? "." : ", and your hand is shown to everyone."),
        el("button.primary", { type: "button", "data-action": "pass", onclick: () => ctx.act(passing) }, "Pass"))
      : null;
    const pay = payPanel(ctx, moves);
    put(board,
      el("div.py-layout",
        el("div.cross-wrap", grid),
        el("div.py-side", el("div.round", `Round ${v.round + 1}${v.games > 1 ? ` · game ${v.match_game + 1} of ${v.games}` : ""}`),
          seats),
        el("div.py-act", prompt(ctx, moves), pass, pay, hintBox(ctx, describeAction), myHand(ctx, v, moves))));
    // The payment is asked for by the cell just picked: brought into view if the screen is short.
    if (pay) requestAnimationFrame(() => pay.isConnected && pay.scrollIntoView({ block: "nearest" }));
  },

  status(ctx) {
    const v = ctx.view;
    if (ctx.legal.length) {
      const seat = v.seat_to_move;
      const which = v.my_seats && v.my_seats.length > 1 ? ` (${seatName(ctx, seat)})` : "";
      if (ctx.legal.length === 1 && passAction(ctx)) return `Your turn${which}: you cannot move.`;
      return `Your turn${which}: move a court card.`;
    }
    if (v.seat_to_move === null || v.seat_to_move === undefined) return "";
    return `${Cap(seatLabel(ctx, v.seat_to_move))} to move…`;
  },

  // Where the game stands, as events, for a page that arrives after the game began.
  opening(v) {
    return [{ type: "new_game", game: v.match_game }];
  },

  narrate(e, ctx) {
    const who = (s) => Cap(seatLabel(ctx, s));
    switch (e.type) {
      case "new_game":
        return el("span.deal-line", `Game ${e.game + 1}: the cross is laid out and the hands are dealt.`);
      case "enter":
      case "move": {
        const how = { free: " onto the free space", cover: ", covering the stack there", exchange: "", show: "" }[e.how];
        if (e.how === "cover") {
          // The engine names the covered card and whether the cover protects or traps it.
          const tail = e.covered ? [e.protects ? ", protecting " : ", trapping ", cardText(e.covered)] : [how];
          return e.type === "enter"
            ? el("span", `${who(e.seat)} entered `, cardText(e.card), ` on ${e.to}`, ...tail, ".")
            : el("span", `${who(e.seat)} moved `, cardText(e.card), ` ${e.from} → ${e.to}`, ...tail, ".");
        }
        if (e.how === "exchange" || e.how === "show") return null; // told with the exchange or show below
        return e.type === "enter"
          ? el("span", `${who(e.seat)} entered `, cardText(e.card), ` on ${e.to}${how}.`)
          : el("span", `${who(e.seat)} moved `, cardText(e.card), ` ${e.from} → ${e.to}${how}.`);
      }
      case "exchange": {
        const mv = ctx.msg && ctx.msg.events.find((x) => (x.type === "move" || x.type === "enter") && x.to === e.cell);
        const head = mv && mv.type === "move"
          ? [`${who(e.seat)} moved `, cardText(mv.card), ` ${mv.from} → ${e.cell}`]
          : mv ? [`${who(e.seat)} entered `, cardText(mv.card), ` on ${e.cell}`] : [`${who(e.seat)} exchanged on ${e.cell}`];
        return el("span", ...head, ", taking ", ...cardsText(e.taken), " and laying ", ...cardsText(e.laid), ".");
      }
      case "show": {
        const mv = ctx.msg && ctx.msg.events.find((x) => (x.type === "move" || x.type === "enter") && x.to === e.cell);
        const head = mv && mv.type === "move"
          ? [`${who(e.seat)} moved `, cardText(mv.card), ` ${mv.from} → ${e.cell}`]
          : mv ? [`${who(e.seat)} entered `, cardText(mv.card), ` on ${e.cell}`] : [`${who(e.seat)} moved onto ${e.cell}`];
        return el("span", ...head, " by showing ", cardText(e.card), ".");
      }
      case "bear_off":
        return el("span", `${who(e.seat)} bore `, cardText(e.card), " off to safety.");
      case "pass":
        if (e.all_safe) return el("span.muted", `${who(e.seat)} passes: all its court cards are safe.`);
        if (e.hand) return el("span", `${who(e.seat)} could not move and passed, showing `, e.hand.length ? cardsText(e.hand) : "an empty hand", ".");
        return el("span", `${who(e.seat)} could not move and passed.`);
      case "finished":
        return el("strong", `${e.finished_seats.map((s) => who(s)).join(" and ")} finished: every court card is safe.`);
      case "game_over": {
        const reason = { finished: "the round is complete", blocked: "a whole round passed without a move",
          max_rounds: "the round limit was reached" }[e.reason] || e.reason;
        const winners = e.winners.map((p) => (p === ctx.me ? "you" : ctx.names[p]));
        return el("strong", `Game ${e.game + 1} is over (${reason}): `, winners.length ? `${winners.join(" and ")} won.` : "a draw.");
      }
      default:
        return null;
    }
  },

  result(ctx) {
    const v = ctx.view;
    const last = v.results[v.results.length - 1];
    const r = ctx.table.returns;
    if (!last) return "The game is over.";
    const winners = last.winners.map((p) => (p === ctx.me ? "You" : ctx.names[p]));
    let text = winners.length ? `${winners.join(" and ")} won.` : "A draw: nobody came out ahead.";
    text += ` In safety: ${v.scores.map((s, p) => `${p === ctx.me ? "you" : ctx.names[p]} ${s}`).join(", ")} points.`;
    if (ctx.me !== null && r) text += ` Your result: ${r[ctx.me] > 0 ? "+" : ""}${Math.round(r[ctx.me] * 100) / 100}.`;
    return text;
  },

  pauseAfter() {
    return 700;
  },

  keyboard(ev, ctx, board) {
    // Tab moves between the lit court cards, cells and payments (all buttons); Escape goes back.
    if (ev.key === "Escape") {
      ctx.select({ court: null, dest: null });
      return true;
    }
    if ((ev.key === "p" || ev.key === "P") && passAction(ctx)) {
      ctx.act(passAction(ctx));
      return true;
    }
    if (/^[1-9]$/.test(ev.key)) {
      const opts = [...board.querySelectorAll(".pay-option, .dest-btn, .token-btn.selectable")];
      const b = opts[Number(ev.key) - 1];
      if (b) b.click();
      return !!b;
    }
    return false;
  },
};
