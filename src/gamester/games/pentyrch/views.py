"""What a Pentyrch seat or spectator sees: the observation, the observation tensor, the events of the
last action and the record's summary.

docs/rules/pentyrch.md, What each player knows: the board, every pile, cards that changed hands at
exchanges, shown hands and cards; never the unplayed dealt cards of others or the set-aside card. One
view function builds both a seat's view and the public one (the seat's adds its own hand).

Events are recorded by the state as plain tuples whose first entry is an :class:`Event` kind; they are
turned into dictionaries only here, when someone asks.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING, Any

from gamester.games.pentyrch.board import CELL_INDEX, CELL_NAMES, COORDS, NUM_CELLS, PILE_CELLS, SEAT_NAMES
from gamester.games.pentyrch.cards import BIT, IDX40, NONCOURT, canon_cards, codes, court_code
from gamester.games.pentyrch.moves import SAFE
from gamester.games.pentyrch.scoring import unit_players

if TYPE_CHECKING:
    from gamester.games.pentyrch.state import PentyrchState


class Event(IntEnum):
    """The kinds of what an action did, first entry of each event tuple the state records:

    * ``NEW_GAME, g``; ``STEP, seat, k, frm, to, court cards under, the one just under (or -1),
      whether it is the mover's player's own``;
    * ``EXCHANGE, seat, k, frm, to, pile taken, top, rest mask``; ``SHOW, seat, k, frm, to, card``;
    * ``BEAR_OFF, seat, k, frm``; ``PASS, seat, hand shown or None, all safe``;
    * ``FINISHED, unit``; ``GAME_OVER, g, reason, winners, returns``;
    * ``MOVED`` alone: the step, exchange or show of the last move played, its tuple made only when
      asked for (``PentyrchState.events``), as most actions' events never are.
    """

    NEW_GAME = 0
    STEP = 1
    EXCHANGE = 2
    SHOW = 3
    BEAR_OFF = 4
    PASS = 5
    FINISHED = 6
    GAME_OVER = 7
    MOVED = 8


# Observation tensor layout (per observing player):
#   card places 40 x 29 (24 pile cells, own hand, known in each other hand (3, relative order),
#   unknown) | top of its pile 40 | pile heights 24 | court places 12 x 27 (25 cells, off, safe)
#   | court stack level 12 x 3 | unknown counts of the other hands 3 | set-aside 1
#   | seat to move 4 | my seats 4 | seats finished 4 | owner of each seat, relative 16
#   | round, moved this round, finish pending, game of match 4 | scores, relative 4
_PLACES = 29
_O_TOP = 40 * _PLACES
_O_HEIGHT = _O_TOP + 40
_O_COURT = _O_HEIGHT + 24
_O_LEVEL = _O_COURT + 12 * 27
_O_COUNTS = _O_LEVEL + 12 * 3
_O_SEATS = _O_COUNTS + 4
_O_SCALARS = _O_SEATS + 28
OBS_SIZE = _O_SCALARS + 8
_PILE_SLOT = {c: i for i, c in enumerate(PILE_CELLS)}


def _turn_cell(c: int, quarters: int) -> int:
    """Cell ``c`` after ``quarters`` quarter turns of the board anticlockwise about d4: each turn takes
    a seat's home cell to the home of the seat before it (d7, North's, to a4, West's)."""
    x, y = COORDS[c]
    for _ in range(quarters):
        x, y = 7 - y, x + 1  # about (3, 4): (x, y) -> (3 - (y - 4), 4 + (x - 3))
    return CELL_INDEX[f"{'abcdefg'[x]}{y}"]


def _turn_order(r: int) -> tuple[int, ...]:
    """The index order ``order`` for which ``t[order]`` is observation tensor ``t`` seen as though seat
    ``r`` sat at seat 0: the board turned ``r`` quarters, so seat ``s``'s home, goal and forward
    become seat ``(s - r) % 4``'s, and every row of seat ``s`` (its court cards, whether it moves, is
    the observer's, has finished, who owns it) moved to seat ``(s - r) % 4``. Cards in piles and hands
    keep their suits, as suits never matter except to name a card (docs/rules/pentyrch.md, Cards),
    and so do the rows relative to the observing player. Turn order goes round the board, so it is
    the same after the turn."""
    image = list(range(OBS_SIZE))  # image[i]: where index i of t goes
    slot = [_PILE_SLOT[_turn_cell(c, r)] for c in PILE_CELLS]
    for card in range(40):
        for i in range(24):
            image[card * _PLACES + i] = card * _PLACES + slot[i]
    for i in range(24):
        image[_O_HEIGHT + i] = _O_HEIGHT + slot[i]
    for k in range(12):
        k2 = (k // 3 - r) % 4 * 3 + k % 3
        for x in range(27):
            image[_O_COURT + k * 27 + x] = _O_COURT + k2 * 27 + (_turn_cell(x, r) if x < NUM_CELLS else x)
        for level in range(3):
            image[_O_LEVEL + k * 3 + level] = _O_LEVEL + k2 * 3 + level
    for s in range(4):
        s2 = (s - r) % 4
        for block in range(3):
            image[_O_SEATS + block * 4 + s] = _O_SEATS + block * 4 + s2
        for rel in range(4):
            image[_O_SEATS + 12 + s * 4 + rel] = _O_SEATS + 12 + s2 * 4 + rel
    order = [0] * OBS_SIZE
    for i, j in enumerate(image):
        order[j] = i
    return tuple(order)


TURNS: tuple[tuple[int, ...], ...] = tuple(_turn_order(r) for r in range(4))
"""``TURNS[seat]``: the observation tensor's index order that shows it with ``seat`` at seat 0."""


def board(state: PentyrchState) -> dict[str, dict[str, list[str]]]:
    """Every cell's pile (top last) and stack of court cards (top last), by cell name."""
    piles = state._piles
    stacks = state._stacks
    return {
        CELL_NAMES[c]: {"pile": codes(piles[c]), "stack": [court_code(k) for k in stacks[c]]}
        for c in range(NUM_CELLS)
    }


def _courts_at(state: PentyrchState, where: int) -> dict[str, list[str]]:
    """Each playing seat's court cards at ``where`` (-1 off the board, ``SAFE``)."""
    cpos = state._cpos
    return {
        SEAT_NAMES[s]: [court_code(k) for k in range(s * 3, s * 3 + 3) if cpos[k] == where]
        for s in range(4)
        if state._owner[s] >= 0
    }


def view(state: PentyrchState, player: int | None) -> dict[str, Any]:
    """The one view function: the public part, then (for a player) that player's own hand."""
    n = state._n
    owner = state._owner
    hands = []
    for q in range(n):
        if q == player:
            hands.append({"player": q, "known": codes(canon_cards(state._hands[q])), "unknown": 0})
        else:
            hidden = state._hidden[q]
            hands.append(
                {
                    "player": q,
                    "known": codes(canon_cards(state._hands[q] & ~hidden)),
                    "unknown": hidden.bit_count(),
                }
            )
    over = state._over
    out: dict[str, Any] = {
        "game": "pentyrch",
        "player": player,
        "players": n,
        "my_seats": [] if player is None else [s for s in range(4) if owner[s] == player],
        "owners": [None if owner[s] < 0 else owner[s] for s in range(4)],
        "match_game": state._g,
        "games": state._games,
        "round": state._round,
        "max_rounds": state._max_rounds,
        "dealer": state._dealer,
        "seat_to_move": None if over else state._seat,
        "current_player": None if over else owner[state._seat],
        "board": board(state),
        "off_board": _courts_at(state, -1),
        "safe": _courts_at(state, SAFE),
        "hands": hands,
        "set_aside": 1 if state._setaside >= 0 else 0,
        "moved_this_round": state._moved,
        "finished": [list(state._unit_seats[u]) for u in state._finished],
        "scores": state.scores(),
        "results": [dict(r) for r in state._results],
    }
    if player is not None:
        out["hand"] = codes(canon_cards(state._hands[player]))
    return out


def observation_tensor(state: PentyrchState, player: int) -> list[float]:
    """The observation as numbers (layout at ``OBS_SIZE``), for learning agents."""
    n = state._n
    t = [0.0] * OBS_SIZE
    for c, pile in enumerate(state._piles):
        if pile:
            slot = _PILE_SLOT[c]
            for card in pile:
                t[IDX40[card] * _PLACES + slot] = 1.0
            t[_O_TOP + IDX40[pile[-1]]] = 1.0
            t[_O_HEIGHT + slot] = len(pile) / 16.0
    for q in range(n):
        hand = state._hands[q]
        if q == player:
            for card in canon_cards(hand):
                t[IDX40[card] * _PLACES + 24] = 1.0
            continue
        rel = (q - player) % n - 1
        for card in canon_cards(hand & ~state._hidden[q]):
            t[IDX40[card] * _PLACES + 25 + rel] = 1.0
        t[_O_COUNTS + rel] = state._hidden[q].bit_count() / 16.0
    # Every card not seen anywhere is unknown to this player.
    seen = state._hands[player]
    for q in range(n):
        seen |= state._hands[q] & ~state._hidden[q]
    for pile in state._piles:
        for card in pile:
            seen |= BIT[card]
    for card in NONCOURT:
        if not seen >> card & 1:
            t[IDX40[card] * _PLACES + 28] = 1.0
    t[_O_COUNTS + 3] = 1.0 if state._setaside >= 0 else 0.0
    for k in range(12):
        p = state._cpos[k]
        if p == -2:
            continue
        t[_O_COURT + k * 27 + (25 if p == -1 else 26 if p == SAFE else p)] = 1.0
        if 0 <= p < NUM_CELLS:
            t[_O_LEVEL + k * 3 + state._stacks[p].index(k)] = 1.0
    b = _O_SEATS
    if not state._over:
        t[b + state._seat] = 1.0
    for s in range(4):
        q = state._owner[s]
        if q == player:
            t[b + 4 + s] = 1.0
        if q >= 0:
            if state._unit[s] in state._finished:
                t[b + 8 + s] = 1.0
            t[b + 12 + s * 4 + (q - player) % n] = 1.0
    b = _O_SCALARS
    t[b] = state._round / state._max_rounds
    t[b + 1] = float(state._moved)
    t[b + 2] = float(bool(state._finished))
    t[b + 3] = state._g / state._games
    sc = state.scores()
    for q in range(n):
        t[b + 4 + (q - player) % n] = sc[q] / (12.0 * state._games)
    return t


def _move_event(seat: int, k: int, frm: int, to: int, how: str) -> dict[str, Any]:
    """The event of a court card entering (``frm < 0``) or moving on the board."""
    return {
        "type": "enter" if frm < 0 else "move",
        "seat": seat,
        "card": court_code(k),
        "from": None if frm < 0 else CELL_NAMES[frm],
        "to": CELL_NAMES[to],
        "how": how,
    }


def last_events(state: PentyrchState) -> list[dict[str, Any]]:
    """The events of the last action as dictionaries (docs/records.md)."""
    out: list[dict[str, Any]] = []
    for e in state.events():
        kind = e[0]
        if kind == Event.NEW_GAME:
            out.append(
                {"type": "new_game", "game": e[1], "owners": [None if o < 0 else o for o in state._owner]}
            )
        elif kind == Event.STEP:
            _, seat, k, frm, to, under, covered, protects = e
            ev = _move_event(seat, k, frm, to, "cover" if under else "free")
            if under:
                # docs/rules/pentyrch.md, Stacks: covering your own card protects it, covering
                # another's traps it; the covered card was on top of the stack, in everyone's sight.
                ev["covered"] = court_code(covered)
                ev["protects"] = protects
            out.append(ev)
        elif kind == Event.EXCHANGE:
            _, seat, k, frm, to, pile, top, rest = e
            out.append(_move_event(seat, k, frm, to, "exchange"))
            out.append(
                {
                    "type": "exchange",
                    "seat": seat,
                    "cell": CELL_NAMES[to],
                    "taken": codes(pile),
                    "laid": codes([top] + canon_cards(rest)),
                }
            )
        elif kind == Event.SHOW:
            _, seat, k, frm, to, top = e
            out.append(_move_event(seat, k, frm, to, "show"))
            out.append({"type": "show", "seat": seat, "cell": CELL_NAMES[to], "card": codes([top])[0]})
        elif kind == Event.BEAR_OFF:
            out.append({"type": "bear_off", "seat": e[1], "card": court_code(e[2]), "from": CELL_NAMES[e[3]]})
        elif kind == Event.PASS:
            out.append(
                {
                    "type": "pass",
                    "seat": e[1],
                    "all_safe": e[3],
                    "hand": None if e[2] is None else codes(canon_cards(e[2])),
                }
            )
        elif kind == Event.FINISHED:
            out.append(
                {
                    "type": "finished",
                    "finished_seats": list(state._unit_seats[e[1]]),
                    "players": unit_players(state, e[1]),
                }
            )
        elif kind == Event.GAME_OVER:
            out.append({"type": "game_over", "game": e[1], "reason": e[2], "winners": e[3], "returns": e[4]})
    return out


def summary_extra(state: PentyrchState) -> dict[str, Any]:
    """What a record's summary adds for Pentyrch: the board, the cards in safety, who moves."""
    return {
        "board": board(state),
        "safe": _courts_at(state, SAFE),
        "seat_to_move": None if state._over else SEAT_NAMES[state._seat],
        "round": state._round,
        "match_game": state._g,
        "results": [dict(r) for r in state._results],
    }
