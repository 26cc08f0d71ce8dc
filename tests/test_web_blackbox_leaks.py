"""No hidden card ever reaches a seat or a spectator through a real ``gamester serve`` (issue 10).

Whole games of all three games run on the server: every human seat is a scripted WebSocket client playing
random legal moves, the other seats are the server's bots, and a spectator watches from before the start.
Once the game is over its record (``GET /api/tables/{id}/record``) gives the truth, replayed here move by
move. For every message a viewer received, every card code written anywhere in it must be one that viewer
is entitled to at that ``seq``: a card of its own view (``observation(seat)``, or ``public_observation()``
for the spectator), of the last move's events as that viewer may see them (``action_event_seen_by`` and
``last_events_seen_by``, the engine's own per-viewer narration), of its own legal moves, or of the table's
public options. Anything else, whether another seat's hand, the stock or the set-aside card, is a leak
and fails the test, named against the true hands. What is hidden is the game's: rules/penneech.md (the
other hand, the stock), rules/piquesept.md (the traded cards, seen only by the drawer and the soloist),
rules/pentyrch.md (cards dealt into other hands and not laid since, the set-aside card).

Also checked: the ``view`` is exactly the engine's view for that viewer at that ``seq``, ``legal`` is
exactly the seat's legal moves on its turn and ``[]`` otherwise, and a connected viewer sees every seq.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gamester
from gamester.core.rng import derive
from tests.web_support import (
    Api,
    ServerProcess,
    Truth,
    WsClient,
    jsonable,
    play_seat,
    random_chooser,
    sqlite_url,
    watch,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

# (game, options, seats): every game, several player counts, humans in every role.
CONFIGS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("penneech", {}, ["human", "human"]),
    ("penneech", {"ruleset": "cotton"}, ["heuristic", "human"]),
    ("piquesept", {"deals": 2}, ["human", "human", "random", "human"]),
    ("piquesept", {"players": 3}, ["human", "human", "human"]),
    ("pentyrch", {}, ["human", "random", "human", "human"]),
    ("pentyrch", {"players": 3}, ["human", "human", "random"]),
    ("pentyrch", {"players": 2}, ["human", "human"]),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("leaks")
    with ServerProcess(sqlite_url(directory), log_dir=directory) as srv:
        yield srv


async def play_table(
    server: ServerProcess, api: Api, game: str, options: dict[str, Any], seats: list[str], seed: int
) -> tuple[str, dict[int | None, list[dict[str, Any]]]]:
    table = api.create_table(game, seats, options)
    table_id = table["id"]
    spectator = asyncio.create_task(watch(server.ws_base, table_id, timeout=30))
    await asyncio.sleep(0.2)  # the spectator is in before the game starts
    humans = [i for i, kind in enumerate(seats) if kind == "human"]
    tokens = {i: api.join(table_id, i, f"guest{i}") for i in humans}
    rngs = {i: random.Random(derive(seed, "seat", i)) for i in humans}
    players = [
        play_seat(server.ws_base, table_id, tokens[i], random_chooser(rngs[i]), f"seat {i}", 30)
        for i in humans
    ]
    clients: list[WsClient] = await asyncio.gather(*players)
    watcher = await spectator
    received: dict[int | None, list[dict[str, Any]]] = {
        i: c.messages for i, c in zip(humans, clients, strict=True)
    }
    received[None] = watcher.messages
    return table_id, received


@pytest.mark.parametrize(
    ("game", "options", "seats"), CONFIGS, ids=[f"{g}-{o}-{len(s)}" for g, o, s in CONFIGS]
)
def test_no_hidden_card_reaches_anyone(
    server: ServerProcess, game: str, options: dict[str, Any], seats: list[str]
) -> None:
    api = Api(server.base)
    try:
        seed = CONFIGS.index((game, options, seats)) + 1
        table_id, received = asyncio.run(play_table(server, api, game, options, seats, seed))
        assert api.wait_status(table_id, "over", 30)["status"] == "over"
        r = api.record(table_id)
        assert r.status_code == 200, f"record after the end: {r.status_code} {r.text[:200]}"
        record = r.json()
        truth = Truth(record)
        assert truth.final.is_terminal(), "the record handed out does not reach the end of the game"
        problems: list[str] = []
        counts: dict[str, int] = {}
        for viewer, messages in received.items():
            found, checked = truth.check(viewer, messages)
            problems += found
            counts["spectator" if viewer is None else f"seat {viewer}"] = checked
        table = api.table(table_id)
        assert table["returns"] == truth.final.returns(), (table["returns"], truth.final.returns())
    finally:
        api.close()
    total = sum(len(m) for m in received.values())
    print(
        f"\n{game} {options} {seats}: {len(record['actions'])} actions, {total} messages to "
        f"{len(received)} viewers, views checked {counts}, {len(problems)} problems"
    )
    assert not problems, "\n".join(problems[:30])


def honest_messages(record: dict[str, Any], viewer: int | None) -> list[dict[str, Any]]:
    """The views a correct server would send ``viewer``, built from the engine (no server involved)."""
    state = gamester.replay({**record, "actions": []})
    out: list[dict[str, Any]] = []
    pre: list[dict[str, Any]] = []
    for n in range(len(record["actions"]) + 1):
        view = state.observation(viewer) if viewer is not None else state.public_observation()
        events = [*pre, *state.last_events_seen_by(viewer)]
        mine = viewer is not None and not state.is_terminal() and state.current_player() == viewer
        legal = [state.action_to_string(a) for a in state.legal_actions()] if mine else []
        status = "over" if state.is_terminal() else "playing"
        msg = {"type": "view", "seq": n, "status": status, "view": view, "legal": legal, "events": events}
        parts = [state.game.action_parts(a) for a in legal]
        if any(p is not None for p in parts):
            msg["moves"] = parts  # Pentyrch: beside its legal moves, their parts
        out.append(jsonable(msg))
        if n < len(record["actions"]):
            action = state.string_to_action(record["actions"][n])
            pre = [state.action_event_seen_by(action, viewer)]
            state.apply_action(action)
    return out


def test_the_checker_catches_leaks() -> None:
    """The check above is not vacuous: honest messages pass, each kind of leak is reported."""
    rng = random.Random(5)
    state = gamester.load_game("piquesept").new_initial_state(seed=11)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    record = state.record()
    truth = Truth(record)
    soloist = truth.views[-1][0]["soloist"]
    drawer = truth.views[-1][0]["drawer"]
    outsider = next(s for s in range(4) if s not in (soloist, drawer))
    for viewer in [*range(4), None]:
        assert truth.check(viewer, honest_messages(record, viewer)) == ([], len(record["actions"]) + 1)
    # The trade's give narrated in plain notation to a defender outside the trade.
    give_at = 4  # rules/piquesept.md: the first trick's four cards, then the drawer's give
    msgs = honest_messages(record, outsider)
    given = record["actions"][give_at]
    msgs[give_at + 1]["events"].append({"type": "action", "player": drawer, "action": given})
    found, _ = truth.check(outsider, msgs)
    assert any("LEAK" in p and given in p for p in found), found
    # Another seat's hand in a seat's view; a seat's view sent to the spectator.
    msgs = honest_messages(record, 0)
    other = sorted(truth.hands[3][1])[0]
    msgs[3]["view"]["note"] = other
    found, _ = truth.check(0, msgs)
    assert any("LEAK" in p and other in p for p in found), found
    msgs = honest_messages(record, None)
    msgs[2]["view"] = truth.views[2][1]
    found, _ = truth.check(None, msgs)
    assert any("LEAK" in p for p in found), found
    # A stale or skipped seq, and a wrong legal list, are reported too.
    msgs = honest_messages(record, 0)
    del msgs[5]
    msgs[0]["legal"] = ["7S"] if msgs[0]["legal"] != ["7S"] else []
    found, _ = truth.check(0, msgs)
    assert any("jumped" in p for p in found) and any("legal" in p for p in found), found


def test_the_checker_reads_the_parts_of_the_legal_moves() -> None:
    """Pentyrch's ``moves`` (docs/web.md): honest ones pass; parts missing, parts of another move, or
    parts naming a card the seat does not hold are reported (the last as a leak)."""
    rng = random.Random(3)
    state = gamester.load_game("pentyrch(players=2)").new_initial_state(seed=5)
    for _ in range(30):
        state.apply_action(rng.choice(state.legal_actions()))
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    record = state.record()
    truth = Truth(record)
    for viewer in [0, 1, None]:
        assert truth.check(viewer, honest_messages(record, viewer)) == ([], len(record["actions"]) + 1)
    msgs = honest_messages(record, 0)
    turns = [i for i, m in enumerate(msgs) if m["legal"]]
    assert turns and all(len(msgs[i]["moves"]) == len(msgs[i]["legal"]) for i in turns)
    a, b, c = turns[0], turns[1], turns[2]
    del msgs[a]["moves"]
    msgs[b]["moves"] = msgs[b]["moves"][::-1] if len(msgs[b]["moves"]) > 1 else [{"kind": "pass"}]
    other = sorted(truth.hands[c][1] - truth.entitled[c][0])[0]
    msgs[c]["moves"][0] = {**msgs[c]["moves"][0], "show": other}
    found, _ = truth.check(0, msgs)
    assert sum(f"seq {a}: moves" in p for p in found) == 1, found
    assert sum(f"seq {b}: moves" in p for p in found) == 1, found
    assert any("LEAK" in p and other in p for p in found), found
