"""Abandoned seats: the pure decisions (docs/web.md, Leaving and abandoned seats).

A person's seat at a playing table is abandoned when its player leaves or is gone (no socket while the
game waited on the seat for ``abandon_seconds``): when a seat counts as gone (:func:`gone_at`), what
follows (:func:`abandon`: a stand-in plays on, or the table is aborted or forfeited), the row once it
is stored (:func:`abandoned`), who takes the seat back and how every viewer is told
(:func:`seat_events`). Like :mod:`gamester.web.decisions`, which asks these (what is due next, a
move's checks, who joins), they are functions over the row and the state, with no I/O; the room
(``room.py``) awaits the repository and applies them.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from gamester.agents import agent_refuses, best_agent_spec
from gamester.core.protocol import Game, State
from gamester.store.port import Abandonment, Ending, TableRow
from gamester.web.errors import Conflict
from gamester.web.menu import agent_menu


def forfeit_returns(n: int, p: int) -> list[float]:
    """The returns of a forfeit by seat ``p`` of ``n``: a loss for ``p`` however the game normally
    scores (−1), a win shared by every other seat (+1/(n−1))."""
    returns = [1.0 / (n - 1)] * n
    returns[p] = -1.0
    return returns


ABANDON_SECONDS = 90.0
"""Seconds a seat the game waits on may have no socket before it counts as abandoned (``--limits``)."""


def bot_of(row: TableRow, seat: int) -> str | None:
    """The agent playing ``seat`` now: a bot seat's, or an abandoned seat's stand-in; None: a person
    plays it (or nobody: an abandoned seat of a table that ended)."""
    if not 0 <= seat < len(row.seats):
        return None
    s = row.seats[seat]
    if s.kind == "bot":
        return s.agent or "random"
    return s.agent if s.abandoned is not None else None


def counts_absence(row: TableRow, abandon_seconds: float) -> bool:
    """Whether a seat's absence counts at this table: at a table without a clock, or with a clock
    shorter than ``abandon_seconds``. A slower clock (a slow game: up to days a move) waits for its
    players as long as their clock runs, and decides alone what an absent player's turn becomes. (And
    while a clock runs nobody is abandoned: under a short one an absent seat is, at the end of the
    turn in which its waits reach ``abandon_seconds``, instead of the clock's own ``on_timeout``.)"""
    return row.clock is None or float(row.clock["seconds_per_move"]) < abandon_seconds


def waiting_on(row: TableRow, state: State) -> int | None:
    """The seat a person holds that the game waits on now (to move), or None."""
    if row.status != "playing" or state.is_terminal():
        return None
    p = state.current_player()
    if not 0 <= p < len(row.seats):
        return None
    s = row.seats[p]
    return p if s.kind == "human" and s.abandoned is None else None


def absent_since(row: TableRow, seat: int) -> float:
    """Since when the game has waited on ``seat`` without a socket of it, if it has none now: since
    the later of the game's last move (or start) and the last time a server saw one of its sockets."""
    moved = row.moved if row.moved is not None else row.created
    seen = row.seats[seat].seen
    return moved if seen is None else max(moved, seen)


def gone_at(
    row: TableRow, state: State, here: Collection[int], abandon_seconds: float
) -> tuple[int, float] | None:
    """(seat, when it counts as gone) for the seat the game waits on if it has no socket here
    (``here``: the seats with a socket on this server; another server's sockets show as ``seen``,
    which each server renews for the seats it holds): ``abandon_seconds`` of waiting on it without a
    socket since it was last seen, this turn's wait and its earlier turns' (``waited``: turns that
    ended by its clock running out) together. None: nobody to wait on, a socket here, or a table
    whose absences do not count (:func:`counts_absence`)."""
    p = waiting_on(row, state)
    if p is None or p in here or not counts_absence(row, abandon_seconds):
        return None
    return p, absent_since(row, p) + abandon_seconds - row.seats[p].waited


def stand_in(row: TableRow, game: Game) -> str:
    """The agent that plays an abandoned seat: the table's own bot (its first bot seat's), else the
    lobby's default opponent — the first agent of the heuristic's level (one star) that can play
    these options, else the first above random, else the game's best."""
    for s in row.seats:
        if s.kind == "bot" and s.agent:
            return s.agent
    menu = [e for e in agent_menu(game.name) if agent_refuses(str(e["spec"]), game) is None]
    levels = [int(e["strength"]) for e in menu]
    for gentle in (1, 2, 3):  # the heuristic's level, else the first above random
        if gentle in levels:
            return str(menu[levels.index(gentle)]["spec"])
    return best_agent_spec(game)


def abandon(row: TableRow, state: State, seat: int, how: str) -> Abandonment:
    """Seat ``seat`` is abandoned (``how``: ``left`` through leave, ``gone`` with no socket for the
    time allowed). Rated: before every person at the table has made a move of their own the table is
    aborted (no rating moves); after, the seat forfeits (−1 for it, a win for every other). Unrated:
    a stand-in (:func:`stand_in`) plays it at once, unless nobody else holds a seat any more, and the
    table is aborted rather than played out by bots alone."""
    s = row.seats[seat] if 0 <= seat < len(row.seats) else None
    if row.status != "playing" or s is None or s.kind != "human" or s.abandoned is not None:
        raise Conflict(f"seat {seat} cannot be abandoned now", code="not_playing")
    aborted = Ending(None, None, "aborted")
    people = [x for x in row.seats if x.kind == "human"]
    if row.rated:
        if not all(x.played for x in people):
            return Abandonment(seat, how, "aborted", None, aborted, True)
        end = Ending(forfeit_returns(len(row.seats), seat), seat, None)
        return Abandonment(seat, how, "forfeit", None, end, True)
    if not any(x.seat != seat and x.abandoned is None for x in people):
        return Abandonment(seat, how, "aborted", None, aborted, how == "gone")
    return Abandonment(seat, how, "bot", stand_in(row, state.game), None, how == "gone")


def abandoned(row: TableRow, plan: Abandonment) -> None:
    """The row once ``plan`` is stored (a seat left gives its token up)."""
    s = row.seats[plan.seat]
    s.abandoned, s.agent = plan.how, plan.agent
    if plan.how == "left":
        s.token_hash = None
    if not plan.keep_account:
        s.account = None
    if plan.end is not None:
        row.status, row.deadline = "over", None
        row.returns, row.forfeit, row.result = plan.end.returns, plan.end.forfeit, plan.end.result
        if plan.end.result == "aborted":
            row.rating_applied = True


def comes_back(row: TableRow, seat: int) -> bool:
    """Whether the seat's own token, arriving again (its page reconnected), takes its seat back from
    the stand-in: a seat ``gone`` (never one ``left``, whose token is void) of a table still playing."""
    s = row.seats[seat]
    return row.status == "playing" and s.abandoned == "gone" and s.token_hash is not None


SeatNews = list[tuple[str | None, str | None]]
"""Each seat's (abandoned, name): what :func:`seat_events` compares."""


def seat_news(row: TableRow) -> SeatNews:
    return [(s.abandoned, s.name) for s in row.seats]


def seat_events(before: SeatNews, row: TableRow) -> list[dict[str, Any]]:
    """The table events between two versions of a table (``before`` and ``row``): a seat abandoned
    (``abandoned``: its name, how, and what follows: ``bot``, ``forfeit`` or ``aborted``) or taken
    back from its stand-in (``taken_back``: the new player's name). Worked out from the rows, so a
    server that hears of the change from another tells its own sockets the same."""
    out: list[dict[str, Any]] = []
    for (was, _), s in zip(before, row.seats, strict=True):
        if was is None and s.abandoned is not None:
            then = "aborted" if row.result == "aborted" else "forfeit" if row.forfeit == s.seat else "bot"
            event = {"type": "abandoned", "seat": s.seat, "name": s.name, "how": s.abandoned, "then": then}
            if then == "bot":
                event["agent"] = s.agent
            out.append(event)
        elif was is not None and s.abandoned is None:
            out.append({"type": "taken_back", "seat": s.seat, "name": s.name})
    return out
