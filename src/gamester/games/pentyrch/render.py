"""Pentyrch in text: the cross for one player's observation, the moves grouped, one sentence per event.

Everything here is built from ``PentyrchState.observation(player)``, ``last_events()`` and the
canonical notation; nothing re-implements a rule (the rules, docs/rules/pentyrch.md,
live in ``gamester.games.pentyrch``). The board is one line per rank, 73 columns wide, so the board, the
hands and a turn's moves fit an 80 x 24 terminal.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from gamester.core.cards import SUIT_NAMES, SUITS
from gamester.core.words import Names, card, cards, third_person
from gamester.games.pentyrch.board import CELL_NAMES, FREE, GOAL, HOME, ROWS, SEAT_NAMES, SEAT_SUIT
from gamester.games.pentyrch.cards import POINTS

# The board's geometry and the seats come from the rules module (docs/rules/pentyrch.md, The board
# and Seats, court cards and hands); only their drawing lives here.
SEAT_SUITS = tuple(SUITS[i] for i in SEAT_SUIT)  # the suit letter of each seat's court cards
_SUIT_WORDS = dict(zip(SUITS, SUIT_NAMES, strict=True))
_FILES = "abcdefg"
_PRESENT = {int(row[0][1]): tuple(c[0] for c in row) for row in ROWS}
HOMES = tuple(CELL_NAMES[c] for c in HOME)  # West, North, East, South
_COURT_POINTS = ", ".join(f"{r} {p}" for r, p in zip("JQK", POINTS, strict=True))  # "J 3, Q 2, K 1"
GOALS = tuple(CELL_NAMES[c] for c in GOAL)
_W = 9  # characters inside a cell
NARRATES_MOVES = True  # the events say what each move did; no "X played …" line is needed

HELP = """How to read the Pentyrch board and write a move:
  The cross: files a-g, ranks 1-7; d4 in the middle is the free space. Each cell
  shows the value of the top card of its pile (A = 1), the pile's size in
  brackets when it holds more than one card, then the court cards standing
  there, bottom to top: "5(3) J♥Q♦" is a pile of 3 with a 5 on top, a jack of
  hearts under a queen of diamonds. W: N: E: S: mark the homes; # frames your
  home and your goal.
  Your court cards (J, Q, K of your suit) enter at your home and race to the
  home opposite.
  A move: court card, where, then payment (cards from your hand, 7-10):
    JH a4-b4 9C     step from a4 to b4, laying the 9♣ on the pile you take
                    (exchange)
    JH a4-b4 3S+5D  several cards laid, the first one ends on top
    JH a4-b4 =6C    show a 6 instead of exchanging (the pile there is a
                    single 6)
    QH @a4 9C       enter the queen of hearts on a4 by exchange; QH @a4 alone
                    enters by covering
    JH c4-d4        step onto the free space, or cover a court card, paying
                    nothing
    JH off          bear off from your goal to safety
    pass            when no move is possible
  Type the move's number from the list, or the move itself."""


def _value(code: str) -> str:
    r = code[0]
    return "10" if r == "T" else r


def _cell_text(name: str, cell: dict[str, Any]) -> str:
    pile = cell["pile"]
    home = "WNES"[HOMES.index(name)] + ":" if name in HOMES else ""
    if name == CELL_NAMES[FREE]:
        top = "free"
    elif pile:
        top = _value(pile[-1]) + (f"({len(pile)})" if len(pile) > 1 else "")
    else:
        top = "-"
    stack = "".join(card(c) for c in cell["stack"])
    text = f"{home}{top}" + (f" {stack}" if stack else "")
    if len(text) > _W and pile:  # drop the pile size before anything else
        text = f"{home}{_value(pile[-1])}" + (f" {stack}" if stack else "")
    return text[:_W].center(_W)


def names_for(obs: dict[str, Any], names: Names | None = None) -> Names:
    """The names of one view: seats by compass point, the viewer's own as "you"."""
    me = obs["player"] if names is None else names.me
    owners = tuple(obs["owners"])
    n = obs["players"]
    labels = tuple(
        "+".join(SEAT_NAMES[s] for s, o in enumerate(owners) if o == p) or f"player {p}" for p in range(n)
    )
    return Names(me, labels, owners)


def seat_name(s: int, nm: Names, cap: bool = False) -> str:
    """West, or "you" for a seat of the viewer (with the compass point when it has two seats)."""
    own = nm.owners[s] if s < len(nm.owners) else None
    if own is not None and own == nm.me:
        mine = [t for t, o in enumerate(nm.owners) if o == nm.me]
        text = "you" if len(mine) == 1 else f"you ({SEAT_NAMES[s]})"
        return text[0].upper() + text[1:] if cap else text
    return SEAT_NAMES[s]


def _is_me(s: int, nm: Names) -> bool:
    return s < len(nm.owners) and nm.owners[s] is not None and nm.owners[s] == nm.me


def board(obs: dict[str, Any], names: Names | None = None, partners: bool = False) -> str:
    """The cross and the table for one player's view (see HELP for how to read a cell)."""
    nm = names_for(obs, names)
    me = obs["player"]
    mine = [s for s, o in enumerate(obs["owners"]) if o == me]
    marked = {c for s in mine for c in (HOMES[s], GOALS[s])}
    cells = obs["board"]
    lines = [("  " + "".join(f.center(_W + 1) for f in _FILES)).rstrip()]
    for rank in range(7, 0, -1):
        present = _PRESENT[rank]
        row = "  "
        prev = False
        prev_marked = False
        for f in _FILES:
            name = f"{f}{rank}"
            if f in present:
                edge = "#" if name in marked or prev_marked else "|"
                row += edge + _cell_text(name, cells[name])
                prev, prev_marked = True, name in marked
            else:
                row += ("#" if prev_marked else "|" if prev else " ") + " " * _W
                prev = prev_marked = False
        row += "#" if prev_marked else "|" if prev else ""
        lines.append(f"{rank}{row[1:].rstrip()}")
    you = " and ".join(
        f"{SEAT_NAMES[s]}, {_SUIT_WORDS[SEAT_SUITS[s]]} (home {HOMES[s]}, goal {GOALS[s]})" for s in mine
    )
    line = f"You are {you}"
    if partners and len(mine) == 1:
        mate = (mine[0] + 2) % 4
        line += f"; your partner is {SEAT_NAMES[mate]}"
        owner = obs["owners"][mate]
        if (
            owner is not None
            and nm.labels
            and owner < len(nm.labels)
            and nm.labels[owner] != SEAT_NAMES[mate]
        ):
            line += f" ({nm.labels[owner]})"
    if mine:
        lines.append(line + ".")
    waiting = "; ".join(
        f"{seat_name(SEAT_NAMES.index(s), nm)} {cards(c)}" for s, c in obs["off_board"].items() if c
    )
    lines.append(f"Waiting to enter: {waiting or 'none'}")
    safe = "; ".join(f"{seat_name(SEAT_NAMES.index(s), nm)} {cards(c)}" for s, c in obs["safe"].items() if c)
    scores = ", ".join(
        f"{'you' if p == me else nm.labels[p] if p < len(nm.labels) else p} {v}"
        for p, v in enumerate(obs["scores"])
    )
    line = f"In safety: {safe or 'nothing yet'}.  Points: {scores}"
    lines.append(line if len(line) < 80 else f"In safety: {safe}.\nPoints: {scores}")
    others = []
    for h in obs["hands"]:
        if h["player"] == me:
            continue
        seats = "+".join(SEAT_NAMES[s] for s, o in enumerate(obs["owners"]) if o == h["player"])
        known = cards(h["known"], "")
        parts = [x for x in (known, f"{h['unknown']} unseen" if h["unknown"] else "") if x]
        others.append(f"{seats} {' + '.join(parts) or 'no cards'}")
    if "hand" in obs:
        line = f"Your hand: {cards(obs['hand'], '(empty)')}   Others: {'; '.join(others)}"
        if len(line) > 79:
            line = f"Your hand: {cards(obs['hand'], '(empty)')}\nOthers: {'; '.join(others)}"
        lines.append(line)
    else:
        lines.append(f"Hands: {'; '.join(others)}")
    seat = obs.get("seat_to_move")
    if seat is None:
        lines.append("The game is over.")
    else:
        who = "your turn" if _is_me(seat, nm) else f"{SEAT_NAMES[seat]} to move"
        if len(mine) > 1 and _is_me(seat, nm):
            who = f"your turn, with {SEAT_NAMES[seat]}"
        match = f"game {obs['match_game'] + 1} of {obs['games']}, " if obs["games"] > 1 else ""
        lines.append(f"Round {obs['round'] + 1} ({match}up to {obs['max_rounds']}): {who}.")
    return "\n".join(_fit(line) for text in lines for line in text.split("\n"))


def _fit(line: str, width: int = 79) -> str:
    """A line of the table wrapped to the terminal's width (the board itself is 73 wide)."""
    if len(line) <= width:
        return line
    return textwrap.fill(line, width, subsequent_indent="  ", break_on_hyphens=False)


def _parse(text: str) -> tuple[str, str, str]:
    """A canonical move as (court card, where, payment): ``("JH", "a4-b4", "3S+5D")``."""
    parts = text.split()
    if len(parts) == 1:
        return "", parts[0], ""
    return parts[0], parts[1], parts[2] if len(parts) > 2 else ""


def _where(where: str) -> str:
    if where == "off":
        return "bear off"
    if where.startswith("@"):
        return f"enter {where[1:]}"
    return where.replace("-", "→")


def _pay(pay: str) -> str:
    if not pay:
        return "no payment"
    if pay.startswith("="):
        return f"show {card(pay[1:])}"
    return "+".join(card(c) for c in pay.split("+"))


class Group:
    """Moves of one court card to one place, differing only in payment."""

    def __init__(self, court: str, where: str) -> None:
        self.court = court
        self.where = where
        self.moves: list[tuple[int, str]] = []  # (index into the legal moves, payment notation)

    def label(self) -> str:
        if not self.court:
            return self.where
        text = f"{_where(self.where)}"
        if len(self.moves) > 1:
            return f"{text} ({len(self.moves)} ways to pay)"
        pay = self.moves[0][1]
        if pay:
            return f"{text} paying {_pay(pay)}"
        if self.where == "off":
            return text
        return f"{text} ({'free space' if self.where.endswith('d4') else 'covering'})"

    def payments(self) -> list[str]:
        return [_pay(p) for _, p in self.moves]


def _pay_cost(pay: str) -> tuple[int, int, str]:
    if not pay or pay.startswith("="):
        return (0, 0, pay)
    codes = pay.split("+")
    total = sum(1 if c[0] == "A" else 10 if c[0] == "T" else int(c[0]) for c in codes)
    return (len(codes), total, pay)


def move_groups(names: Sequence[str]) -> list[Group]:
    """The moves grouped by court card, then where it goes; each group's moves differ in payment."""
    groups: dict[tuple[str, str], Group] = {}
    for i, text in enumerate(names):
        court, where, pay = _parse(text)
        g = groups.get((court, where))
        if g is None:
            g = groups[(court, where)] = Group(court, where)
        g.moves.append((i, pay))
    for g in groups.values():  # cheapest first: showing, then one card by value, then several
        g.moves.sort(key=lambda m: _pay_cost(m[1]))
    # by court card (in the order they first appear), then place
    courts: list[str] = []
    for court, _ in groups:
        if court not in courts:
            courts.append(court)
    return [g for c in courts for (k, _), g in groups.items() if k == c]


def format_groups(groups: Sequence[Group], width: int = 79) -> list[str]:
    """One wrapped line per court card: ``J♦  [1] e5→e4 (3 ways to pay)  [2] e5→d4``."""
    lines: list[str] = []
    by_court: dict[str, list[str]] = {}
    for i, g in enumerate(groups, 1):
        by_court.setdefault(g.court, []).append(f"[{i}] {g.label()}")
    for court, items in by_court.items():
        head = f"  {card(court)}  " if court else "  "
        lines += _wrap(head, items, width)
    return lines


def format_payments(group: Group, width: int = 79) -> list[str]:
    to = _where(group.where)
    head = f"  Pay for {card(group.court)} {'to ' + to if to.startswith('enter') else to}:  "
    items = [f"[{k + 1}] {p}" for k, p in enumerate(group.payments())]
    note = "  ('back' chooses another move"
    if any("+" in p for _, p in group.moves):
        note += "; of several cards, the first listed ends on top"
    return _wrap(head, items, width) + [note + ")"]


def _wrap(head: str, items: Sequence[str], width: int) -> list[str]:
    out: list[str] = []
    line = head
    for item in items:
        if len(line) + 2 + len(item) > width and line.strip():
            out.append(line.rstrip())
            line = " " * len(head) + item
        else:
            line = line + ("  " if line.strip() and line != head else "") + item
    out.append(line.rstrip())
    return out


def narrate(event: dict[str, Any], seat: int, names: Names | None = None) -> str | None:
    """One English sentence for an event, or None when ``seat`` may not see it."""
    allowed = event.get("seats")
    if allowed is not None and seat not in allowed:
        return None
    nm = names or Names(seat if seat >= 0 else None, (), ())
    kind = event.get("type")
    s = event.get("seat")
    who = seat_name(s, nm, cap=True) if s is not None else ""
    me = s is not None and _is_me(s, nm)

    def v(verb: str) -> str:
        return verb if me else third_person(verb)

    if kind == "new_game":
        return f"Game {event['game'] + 1} begins: the cross is laid out and the hands are dealt."
    if kind in ("move", "enter"):
        how = {
            "free": "onto the free space",
            "cover": "covering the court card there",
            "exchange": "by exchange",
            "show": "by showing a card",
        }[event["how"]]
        if event.get("covered"):
            verb = "protecting" if event.get("protects") else "trapping"
            how = f"covering and {verb} {card(event['covered'])}"
        if kind == "enter":
            return f"{who} {v('enter')} {card(event['card'])} on {event['to']} {how}."
        return f"{who} {v('move')} {card(event['card'])} from {event['from']} to {event['to']} {how}."
    if kind == "exchange":
        laid = event["laid"]
        return (
            f"{who} {v('take')} {cards(event['taken'])} from {event['cell']} and {v('lay')} "
            f"{cards(laid)}" + (f" ({card(laid[0])} on top)." if len(laid) > 1 else ".")
        )
    if kind == "show":
        return f"{who} {v('show')} {card(event['card'])} instead of exchanging on {event['cell']}."
    if kind == "bear_off":
        return f"{who} {v('bear')} {card(event['card'])} off from {event['from']} to safety."
    if kind == "pass":
        if event.get("all_safe"):
            return f"{who} {v('pass')}: all {'your' if me else 'its'} court cards are in safety."
        if event.get("hand") is not None:
            shown = cards(event["hand"], "an empty hand")
            return f"{who} cannot move and {v('pass')}, showing {shown}."
        return f"{who} cannot move and {v('pass')}."
    if kind == "finished":
        fs = event["finished_seats"]
        mine = all(_is_me(x, nm) for x in fs)
        names_ = "You" if mine else " and ".join(SEAT_NAMES[x] for x in fs)
        return f"{names_} {'have' if mine or len(fs) > 1 else 'has'} finished: every court card in safety."
    if kind == "game_over":
        reason = {
            "finished": "the round is complete",
            "blocked": "a whole round passed without a move",
            "max_rounds": "the round limit was reached",
        }[event["reason"]]
        won = event["winners"]
        if not won:
            return f"Game {event['game'] + 1} is over ({reason}): a draw."
        who_won = ["you" if p == nm.me else _player(p, nm) for p in won]
        verb = "win" if who_won == ["you"] or len(who_won) > 1 else "wins"
        return f"Game {event['game'] + 1} is over ({reason}): {' and '.join(who_won)} {verb}."
    return None


def _player(p: int, nm: Names) -> str:
    seats = [SEAT_NAMES[s] for s, o in enumerate(nm.owners) if o == p]
    if nm.labels and p < len(nm.labels):
        return nm.labels[p] + (f" ({'+'.join(seats)})" if seats and nm.labels[p] != "+".join(seats) else "")
    return "+".join(seats) or f"player {p}"


def to_move(obs: dict[str, Any], names: Names | None = None) -> str:
    """The seat whose turn it is, by name."""
    s = obs.get("seat_to_move")
    return "Nobody" if s is None else seat_name(s, names_for(obs, names), cap=True)


def final(obs: dict[str, Any], names: Names | None = None) -> str:
    """Who won each game and by how much: the court cards each seat brought to safety, and points."""
    nm = names_for(obs, names)
    me = obs["player"]
    parts = []
    for r in obs["results"]:
        won = r["winners"]
        who = " and ".join("you" if p == me else _player(p, nm) for p in won) or "nobody"
        verb = "won" if won else "won: a draw"
        parts.append(f"game {r['game'] + 1}: {who} {verb}" if len(obs["results"]) > 1 else f"{who} {verb}")
    safe = "; ".join(f"{seat_name(SEAT_NAMES.index(s), nm)} {len(c)}" for s, c in obs["safe"].items())
    points = ", ".join(f"{'you' if p == me else nm.labels[p]} {v}" for p, v in enumerate(obs["scores"]))
    head = "; ".join(parts)
    return (
        f"Game over: {head[0].upper() + head[1:]}. Court cards in safety: {safe}. "
        f"Points ({_COURT_POINTS}): {points}."
    )


def context(game: Any) -> dict[str, Any]:
    """What the board needs from the game's options (all public): whether there are partners."""
    return {"partners": bool(getattr(game.options, "partners", False))}
