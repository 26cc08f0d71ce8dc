"""What a Piquesept seat or a spectator sees: the observation, its tensor, the events of the last
action and the summary's fields (docs/rules/piquesept.md, What each player knows). One view function
builds both the seat's observation and the spectator's: the public part, the trade as far as the
reader saw it, then the seat's own hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gamester.games.piquesept.deal import _PHASE_NAMES, CODE, LAST_TRICK, OVER, codes, mask_to_actions
from gamester.games.piquesept.rules import TOTAL_POINTS

if TYPE_CHECKING:
    from gamester.games.piquesept.game import PiqueseptState


def obs_layout(n: int) -> tuple[int, ...]:
    """Offsets of the observation tensor's blocks (seats relative to the observer, observer first):

    hand 32 | current trick by seat n*32 | played this deal by seat n*32 | soloist n | dealer n |
    leader n | to act n | drawn card 32 | given card 32 | trade stage 3 | phase 4 |
    card points this deal by seat n (/130) | returns so far by seat n | trick, deal progress 2 | size
    """
    sizes = (32, n * 32, n * 32, n, n, n, n, 32, 32, 3, 4, n, n, 2)
    out = [0]
    for s in sizes:
        out.append(out[-1] + s)
    return tuple(out)


def view(state: PiqueseptState, player: int | None) -> dict[str, Any]:
    """The one view function: the public part, the trade as far as ``player`` saw it, his hand."""
    n = state._n
    over = state._phase == OVER
    knows = state.knows_trade(player)
    x, y = state._x, state._y
    s = state._soloist
    taken = state._taken
    view: dict[str, Any] = {
        "game": "piquesept",
        "seat": player,
        "players": n,
        "phase": _PHASE_NAMES[state._phase],
        "current_player": None if over else state._cur,
        "dealer": state._dealer,
        "deal": state._deal_no,
        "deals": state._deals,
        "hand_sizes": [h.bit_count() for h in state._hands],
        "soloist": s,
        "drawer": state._drawer,
        "trick_number": min(state._ntricks + 1, state._tricks_per_deal),
        "leader": state._leader,
        "trick": [CODE[a] for a in state._trick],
        "tricks": [
            {"leader": t[0], "cards": [CODE[a] for a in t[1]], "winner": t[2], "points": t[3]}
            for t in state._done
        ],
        "trade_visible": state._visible,
        "trade": {
            "stage": ("pending", "drawn", "given")[state.trade_stage()],
            "drawn": CODE[x] if x >= 0 and knows else None,
            "given": CODE[y] if y >= 0 and knows else None,
        },
        "card_points": list(taken),
        "side_points": [taken[s], sum(taken) - taken[s]],
        "scores": state._scores(taken),
        "returns_so_far": list(state._ret),
        "past_deals": deal_results(state),
    }
    if player is not None:
        view["hand"] = codes(state._hands[player])
    return view


def observation_tensor(state: PiqueseptState, me: int) -> list[float]:
    """The observation as numbers (layout in :func:`obs_layout`), seats relative to ``me``."""
    n = state._n
    o = obs_layout(n)
    t = [0.0] * o[-1]
    rel = [(q - me) % n for q in range(n)]

    def bits(mask: int, base: int) -> None:
        for a in mask_to_actions(mask):
            t[base + a] = 1.0

    bits(state._hands[me], o[0])
    seat = state._leader
    for a in state._trick:
        t[o[1] + 32 * rel[seat] + a] = 1.0
        seat = state._next[seat]
    for leader, cards, _w, _p in state._done:
        seat = leader
        for a in cards:
            t[o[2] + 32 * rel[seat] + a] = 1.0
            seat = state._next[seat]
    seat = state._leader
    for a in state._trick:
        t[o[2] + 32 * rel[seat] + a] = 1.0
        seat = state._next[seat]
    t[o[3] + rel[state._soloist]] = 1.0
    t[o[4] + rel[state._dealer]] = 1.0
    t[o[5] + rel[state._leader]] = 1.0
    if state._phase != OVER:
        t[o[6] + rel[state._cur]] = 1.0
    if state.knows_trade(me):
        if state._x >= 0:
            t[o[7] + state._x] = 1.0
        if state._y >= 0:
            t[o[8] + state._y] = 1.0
    t[o[9] + state.trade_stage()] = 1.0
    t[o[10] + state._phase] = 1.0
    scale = float(state._deals * (n - 1))
    taken = state._taken
    for q in range(n):
        t[o[11] + rel[q]] = taken[q] / TOTAL_POINTS
        t[o[12] + rel[q]] = state._ret[q] / scale
    t[o[13]] = state._ntricks / state._tricks_per_deal
    t[o[13] + 1] = state._deal_no / state._deals
    return t


def last_events(state: PiqueseptState) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if state._trick:
        return out
    n = state._n
    events = state._events
    if events is LAST_TRICK:
        events = [("trick", state._done[-1])]
    for e in events:
        kind = e[0]
        if kind == "deal":
            out.append({"type": "deal", "dealer": e[1], "deal": e[2]})
            out.append({"type": "soloist", "seat": e[3]})
        elif kind == "trick":
            leader, cards, winner, pts = e[1]
            out.append(
                {
                    "type": "trick",
                    "winner": winner,
                    "leader": leader,
                    "cards": [CODE[a] for a in cards],
                    "points": pts,
                }
            )
        elif kind in ("draw", "give"):
            r, s, card = e[1], e[2], e[3]
            ev = {"type": kind, "drawer": r, "soloist": s, "card": CODE[card]}
            if not state._visible:
                ev["seats"] = [r, s]
                others = [q for q in range(n) if q != r and q != s]
                out.append(ev)
                out.append({"type": kind, "drawer": r, "soloist": s, "card": None, "seats": others})
            else:
                out.append(ev)
        elif kind == "deal_over":
            out.append(
                {
                    "type": "deal_over",
                    "soloist": e[1],
                    "card_points": [e[2], TOTAL_POINTS - e[2]],
                    "returns": list(e[3]),
                }
            )
        elif kind == "game_over":
            out.append(
                {
                    "type": "game_over",
                    "returns": state.returns(),
                    "scores": state.scores(),
                    "deals": deal_results(state),
                }
            )
    return out


def last_events_seen_by(state: PiqueseptState, viewer: int | None) -> list[dict[str, Any]]:
    """As the protocol's, except that a spectator gets the blank version of a hidden trade (the
    one meant for the seats who did not see it), like every seat outside the trade."""
    out = []
    for e in last_events(state):
        seats = e.get("seats")
        if seats is None or (viewer in seats if viewer is not None else e.get("card") is None):
            out.append(e)
    return out


def deal_results(state: PiqueseptState) -> list[dict[str, Any]]:
    """Each finished deal: dealer, soloist, card points (soloist's side, defenders'), returns."""
    return [
        {
            "dealer": p[0],
            "soloist": p[1],
            "card_points": [p[6], TOTAL_POINTS - p[6]],
            "returns": list(p[7]),
        }
        for p in state._past
    ]


def summary_extra(state: PiqueseptState) -> dict[str, Any]:
    if state._phase == OVER:
        last = state._past[-1]
        soloist, sp = last[1], last[6]
        side = [sp, TOTAL_POINTS - sp]
    else:
        soloist = state._soloist
        taken = state._taken
        sp = taken[soloist]
        side = [sp, sum(taken) - sp]
    return {
        "soloist": soloist,
        "card_points": side,
        "dealer": state._dealer,
        "deal": state._deal_no,
        "tricks_played": state._ntricks,
        "deal_results": deal_results(state),
    }
