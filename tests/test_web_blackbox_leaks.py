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

from tests.web_support import (
    Api,
    ServerProcess,
    Truth,
    WsClient,
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
    spectator = asyncio.create_task(watch(server.ws_base, table_id, timeout=90))
    await asyncio.sleep(0.2)  # the spectator is in before the game starts
    humans = [i for i, kind in enumerate(seats) if kind == "human"]
    tokens = {i: api.join(table_id, i, f"guest{i}") for i in humans}
    rngs = {i: random.Random(seed * 100 + i) for i in humans}
    players = [
        play_seat(server.ws_base, table_id, tokens[i], random_chooser(rngs[i]), f"seat {i}", 90)
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
