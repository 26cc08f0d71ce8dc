"""A bot's forced move takes as long as its real ones (web/pace.py; issue 22): answering at once with
one legal move would tell the table that the bot had only one card it could play."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from gamester.core.record import replay  # noqa: E402
from gamester.web.pace import TRICK_HOLD, ThinkTimes, completes_trick, trick_wait  # noqa: E402
from tests.web_helpers import client_on, new_table, next_view  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def test_a_forced_move_is_held_to_the_median_of_real_ones_within_the_budget() -> None:
    t = ThinkTimes(keep=3)
    assert t.hold("random", 0.001, 10.0) == 0.0, "nothing seen and no seconds in the spec"
    assert t.hold("ismcts:seconds=0.5", 0.1, 10.0) == pytest.approx(0.4), "the spec's own budget first"
    assert t.hold("ismcts:seconds=0.5", 0.1, 0.3) == pytest.approx(0.2), "never past the bot's budget"
    for s in (0.2, 0.9, 0.3, 0.4):  # the first falls out (keep=3): median of 0.9, 0.3, 0.4
        t.thought("heuristic", s)
    assert t.hold("heuristic", 0.1, 10.0) == pytest.approx(0.3)
    assert t.hold("heuristic", 0.5, 10.0) == 0.0, "already as long as usual"
    assert t.hold("rollout", 0.0, 10.0) == 0.0, "kept per spec"


@pytest.mark.parametrize("game", ["penneech", "piquesept", "pentyrch"])
def test_a_bot_after_a_completed_trick_waits_out_the_hold(game: str) -> None:
    """Issue 43: a move whose public events complete a trick holds the next bot's answer until
    TRICK_HOLD after it (minus what its thinking took), every other move none; Pentyrch has no
    tricks, so its bots never wait."""
    import random

    from gamester.core.registry import load_game

    state = load_game(game).new_initial_state(seed=4)
    rng = random.Random(4)
    tricks = others = 0
    while not state.is_terminal() and tricks < 5:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        events = state.last_events_seen_by(None)
        if completes_trick(events):
            tricks += 1
            assert trick_wait(100.0, events, 100.4) == pytest.approx(TRICK_HOLD - 0.4)
            assert trick_wait(100.0, events, 100.0 + TRICK_HOLD + 1) == 0.0, "thought longer than the hold"
        else:
            others += 1
            assert trick_wait(100.0, events, 100.0) == 0.0
    assert others > 0
    assert (tricks == 5) == (game != "pentyrch"), (game, tricks)


SLOW = 0.4  # seconds every real decision is made to take in the test below


@pytest.mark.slow
def test_a_bots_forced_moves_arrive_no_sooner_than_its_real_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two bots whose every real decision takes SLOW seconds: a spectator sees each forced move (the
    last cards of a deal, a card that must follow suit) come no sooner than about SLOW after the move
    before it. Without the hold it came within milliseconds."""
    from gamester.web.registry import Registry

    real = Registry.in_worker

    forced: dict[int, bool] = {}  # the seq each bot move makes: whether it was the only legal move

    async def slow_when_there_is_a_choice(self: Registry, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(fn, "__name__", "") == "choose":
            state = replay(args[0])
            forced[len(args[0]["actions"]) + 1] = only = len(state.legal_actions()) == 1
            if not only:
                await asyncio.sleep(SLOW)
        return await real(self, fn, *args, **kwargs)

    monkeypatch.setattr(Registry, "in_worker", slow_when_there_is_a_choice)
    with client_on(tmp_path / "p.db") as c:
        tid = new_table(c, "penneech", ["random", "random"])
        seen: dict[int, float] = {}
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            while len(seen) < 40:
                v = next_view(ws)
                seen.setdefault(v["seq"], time.monotonic())
                if v["status"] == "over":
                    break
    gaps = [seen[q] - seen[q - 1] for q, only in forced.items() if only and q in seen and q - 1 in seen]
    assert gaps, "no forced move in the first 40"
    assert min(gaps) > SLOW * 0.75, gaps
