"""What a Penneech seat or a spectator sees: the observation, its tensor, and the events of the last
action (docs/rules/penneech.md, What each player knows). One view function builds both the seat's
observation and the spectator's: the public part, then the seat's own hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, cast

from gamester.core.cards import SUITS, card_code, cards_of, mask_of
from gamester.games.penneech.deal import _PHASE_NAMES, OVER
from gamester.games.penneech.rules import TRICKS, TURNUP_POINTS, trump_of

if TYPE_CHECKING:
    from gamester.games.penneech.game import PenneechState


def codes(mask: int) -> list[str]:
    return [card_code(c) for c in cards_of(mask)]


# Observation tensor layout (per observing seat):
#   hand 52 | turn-up 52 | trump 4 | led card 52 | my plays 52 | opponent plays 52 | earlier turn-ups 52
#   | opponent known voids 4 | phase 3 | I deal 1 | I am to act 1 | tricks mine, theirs (/7) 2
#   | scores mine, theirs (/target) 2 | opponent known redeal-eligible, known not 2
_O_HAND: Final = 0
_O_TURNUP: Final = 52
_O_TRUMP: Final = 104
_O_LED: Final = 108
_O_MINE: Final = 160
_O_THEIRS: Final = 212
_O_EARLIER: Final = 264
_O_VOIDS: Final = 316
_O_PHASE: Final = 320
_O_SCALARS: Final = 323
OBS_SIZE: Final = _O_SCALARS + 8


def view(state: PenneechState, player: int | None) -> dict[str, Any]:
    """The one view function: the public part, then (for a seat) that seat's own hand."""
    trick: list[str] = [] if state._led < 0 else [card_code(state._led)]
    lt = state._last_trick
    turned = state._turned()
    view: dict[str, Any] = {
        "game": "penneech",
        "seat": player,
        "phase": _PHASE_NAMES[state._phase],
        "current_player": None if state._phase == OVER else state._cur,
        "dealer": state._dealer,
        "deal": state._deal_no,
        "hand_sizes": [state._hands[0].bit_count(), state._hands[1].bit_count()],
        "turn_up": card_code(turned[-1]) if turned else None,
        "trump": SUITS[state._trump] if state._trump >= 0 else None,
        "earlier_turn_ups": [card_code(c) for c in turned[:-1]],
        "stock_size": 52 - state._pos,
        "leader": state._leader,
        "trick": trick,
        "last_trick": None
        if lt is None
        else {
            "leader": lt[0],
            "cards": [card_code(lt[1]), card_code(lt[2])],
            "winner": lt[3],
            "points": lt[4],
        },
        "tricks_won": list(state._tricks),
        "played": [codes(state._played(0)), codes(state._played(1))],
        "known_voids": [[SUITS[s] for s in range(4) if state._voids[p] >> s & 1] for p in (0, 1)],
        "redeal_eligible": list(state._eligible),
        "shown_hands": [{"seat": s, "cards": codes(m)} for s, m in state._shown],
        "scores": list(state._scores),
        "target": state._target,
        "winner": None if state._phase != OVER or state._winner < 0 else state._winner,
    }
    if player is not None:
        view["hand"] = codes(state._hands[player])
        view["opponent_hand_size"] = state._hands[1 - player].bit_count()
    return view


def observation_tensor(state: PenneechState, player: int) -> list[float]:
    opp = 1 - player
    t = [0.0] * OBS_SIZE

    def bits(mask: int, base: int) -> None:
        for c in cards_of(mask):
            t[base + c] = 1.0

    bits(state._hands[player], _O_HAND)
    turned = state._turned()
    if turned:
        t[_O_TURNUP + turned[-1]] = 1.0
        t[_O_TRUMP + state._trump] = 1.0
        bits(mask_of(turned[:-1]), _O_EARLIER)
    if state._led >= 0:
        t[_O_LED + state._led] = 1.0
    bits(state._played(player), _O_MINE)
    bits(state._played(opp), _O_THEIRS)
    for s in range(4):
        if state._voids[opp] >> s & 1:
            t[_O_VOIDS + s] = 1.0
    t[_O_PHASE + state._phase] = 1.0
    b = _O_SCALARS
    t[b] = float(state._dealer == player)
    t[b + 1] = float(state._cur == player)
    t[b + 2] = state._tricks[player] / TRICKS
    t[b + 3] = state._tricks[opp] / TRICKS
    t[b + 4] = min(1.0, state._scores[player] / state._target)
    t[b + 5] = min(1.0, state._scores[opp] / state._target)
    t[b + 6] = float(state._eligible[opp] is True)
    t[b + 7] = float(state._eligible[opp] is False)
    return t


# The events the engine leaves as a marker when a trick ends (game.py's _TRICK, _TRICK_TURNUP): the
# trick alone, or the trick and the turn-up its winner made; pending_events makes them.
TRICK_PENDING: Final = "trick_pending"
TRICK_TURNUP_PENDING: Final = "trick_turnup_pending"
PENDING: Final = (TRICK_PENDING, TRICK_TURNUP_PENDING)


def pending_events(state: PenneechState) -> list[tuple[Any, ...]]:
    """The events of the last action as tuples, a marker (or a clone's copy of one) made into the
    events it stands for: the trick from ``_last_trick``, the turn-up from the stock card just turned."""
    events = state._events
    if not events or events[0][0] not in PENDING:
        return events
    leader, led, c, winner, pts = cast(tuple[int, int, int, int, int], state._last_trick)
    out: list[tuple[Any, ...]] = [("trick", winner, leader, led, c, pts)]
    if events[0][0] == TRICK_TURNUP_PENDING:
        turned = state._pack[state._pos - 1]
        out.append(("turnup", winner, turned, TURNUP_POINTS[turned]))
    return out


def last_events(state: PenneechState) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for e in pending_events(state):
        kind = e[0]
        if kind == "draw":
            out.append(
                {
                    "type": "draw",
                    "cards": [card_code(e[1]), card_code(e[2])],
                    "dealer": None if e[3] < 0 else e[3],
                }
            )
        elif kind == "deal":
            out.append({"type": "deal", "dealer": e[1], "deal": e[2]})
        elif kind == "turnup":
            out.append(
                {
                    "type": "turn_up",
                    "seat": e[1],
                    "card": card_code(e[2]),
                    "trump": SUITS[trump_of(e[2])],
                    "points": e[3],
                }
            )
        elif kind == "trick":
            out.append(
                {
                    "type": "trick",
                    "winner": e[1],
                    "leader": e[2],
                    "cards": [card_code(e[3]), card_code(e[4])],
                    "points": e[5],
                }
            )
        elif kind == "bonus":
            out.append({"type": "card_bonus", "seat": e[1], "points": e[2]})
        elif kind == "redeal":
            out.append({"type": "redeal", "seat": e[1], "cards": codes(e[2])})
        elif kind == "keep":
            out.append({"type": "keep", "seat": e[1]})
        elif kind == "over":
            out.append(
                {"type": "game_over", "winner": None if e[1] < 0 else e[1], "scores": list(state._scores)}
            )
    return out


def summary_extra(state: PenneechState) -> dict[str, Any]:
    return {
        "dealer": state._dealer,
        "deal": state._deal_no,
        "trump": SUITS[state._trump] if state._trump >= 0 and state._phase != OVER else None,
        "turn_up": card_code(state._pack[state._pos - 1]) if state._pos > 14 else None,
        "tricks_won": list(state._tricks),
    }
