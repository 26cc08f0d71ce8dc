"""A table's game rebuilt from its stored moves: the room's state when it loads a table
(:func:`build`), the moves another server stored since (:func:`catch_up`), and, once the game is
over, its record (:func:`record`) and every step as one seat saw it (:func:`replay`). Pure, like
:mod:`gamester.web.decisions`, whose frames it builds.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from gamester.core.protocol import Game, State
from gamester.core.registry import load_game
from gamester.store.port import TableRow
from gamester.web import decisions as d
from gamester.web.errors import BadInput, Conflict, NotOver


def build(row: TableRow, acts: list[str]) -> tuple[TableRow, State, OrderedDict[int, d.Frame]]:
    """The state at ``row.seq`` rebuilt from the seed and the stored actions, with its frame: the
    only one a socket can be sent, as every socket arrives at the table's seq (the frames of the
    moves made later are kept as they come)."""
    game = load_game(row.game, **row.options)
    # From the seed, not the stored chance: a state given a chance list cannot draw past its end,
    # and the table's next deal needs new packs. The stored chance is checked against it below.
    state = game.new_initial_state(seed=row.seed)
    before: State | None = None
    a: int | None = None
    for i, text in enumerate(acts):
        a = state.string_to_action(text)
        if i == len(acts) - 1:  # the last move: its frame tells it
            before = state.clone()
        state.apply_action(a)
    row.seq = len(acts)
    frames: OrderedDict[int, d.Frame] = OrderedDict()
    frames[row.seq] = d.frame(state, before, a, game.num_players, row.lesson)
    now = d.chance_of(state)
    if now[: len(row.chance)] != row.chance[: len(now)]:
        raise Conflict(f"table {row.id}: its stored chance does not match its seed", code="corrupt")
    return row, state, frames


def catch_up(
    row: TableRow, fresh: TableRow, state: State, frames: OrderedDict[int, d.Frame], texts: list[str]
) -> None:
    """Apply the moves stored since ``row.seq`` (``texts``, read up to ``fresh.seq``) to ``state``,
    keeping their frames, each told as ``fresh`` tells it (a stand-in's move says so)."""
    n = len(row.seats)
    for text in texts[: fresh.seq - row.seq]:
        a = state.string_to_action(text)
        before = state.clone()
        told = d.stored_events(fresh, before.current_player())
        state.apply_action(a)
        row.seq += 1
        d.keep(frames, row.seq, d.frame(state, before, a, n, row.lesson, told))


def record(row: TableRow, state: State) -> dict[str, Any]:
    if row.status != "over":
        raise NotOver("the record is given out once the game is over")
    rec = state.record()
    if row.result == "aborted":
        rec["result"] = {"aborted": True}
    elif row.forfeit is not None:
        rec["result"] = {"forfeit": row.forfeit, "returns": row.returns}
    return rec


def check_replay_seat(row: TableRow, seat: Any) -> None:
    n = len(row.seats)
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
        raise BadInput(f"seat: expected a seat number from 0 to {n - 1}", code="bad_seat")


def replay(row: TableRow, rec: dict[str, Any], seat: Any) -> dict[str, Any]:
    """Every step of a finished game as ``seat`` (None: a spectator) saw it."""
    check_replay_seat(row, seat)
    game: Game = load_game(rec["game"], **rec["options"])
    state = game.new_initial_state(seed=rec["seed"], chance=rec["chance"])
    who = None if seat is None else seat

    def view() -> dict[str, Any]:
        return state.public_observation() if who is None else state.observation(who)

    steps = [{"seq": 0, "action": None, "view": view(), "events": state.last_events_seen_by(who)}]
    for i, text in enumerate(rec["actions"]):
        a = state.string_to_action(text)
        ev = state.action_event_seen_by(a, who)
        state.apply_action(a)
        steps.append(
            {
                "seq": i + 1,
                "action": ev.get("action"),
                "player": ev.get("player"),
                "view": view(),
                "events": [ev, *state.last_events_seen_by(who)],
            }
        )
    return {
        "id": row.id,
        "game": rec["game"],
        "seat": seat,
        "steps": steps,
        "returns": row.returns,
        "forfeit": row.forfeit,
        "result": d.result_of(row),
    }
