"""Turns at the bot workers (gamester.web.fair): by key in turn, people's tables first, a cap per
key, and a cancelled job never keeps a slot."""

from __future__ import annotations

import asyncio

import pytest

from gamester.web.fair import FairGate


async def _jobs(gate: FairGate, jobs: list[tuple[str, str, bool]]) -> list[str]:
    """Queue every (key, name, urgent) behind one job that holds the gate; the order they ran in."""
    order: list[str] = []
    release = asyncio.Event()

    async def first() -> None:
        await release.wait()

    async def job(name: str) -> None:
        order.append(name)
        await asyncio.sleep(0)

    holder = asyncio.ensure_future(gate.run("holder", first))
    await asyncio.sleep(0)
    tasks = [asyncio.ensure_future(gate.run(k, lambda n=n: job(n), urgent=u)) for k, n, u in jobs]
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(holder, *tasks)
    assert gate.busy == 0 and gate.running == {} and gate.waiting() == 0
    return order


def test_keys_take_turns_whatever_one_of_them_queued() -> None:
    gate = FairGate(slots=1, per_key=1)
    jobs = [("a", f"a{i}", True) for i in range(4)] + [("b", "b0", True), ("c", "c0", True)]
    assert asyncio.run(_jobs(gate, jobs)) == ["a0", "b0", "c0", "a1", "a2", "a3"]


def test_a_table_with_a_person_goes_before_tables_of_bots_only() -> None:
    gate = FairGate(slots=1, per_key=1)
    jobs = [("a", "bots1", False), ("a", "bots2", False), ("b", "person", True)]
    assert asyncio.run(_jobs(gate, jobs)) == ["person", "bots1", "bots2"]


def test_one_key_holds_at_most_its_share_of_the_slots() -> None:
    async def run() -> tuple[int, int]:
        gate = FairGate(slots=3, per_key=1)
        most = 0
        gate_open = asyncio.Event()

        async def job() -> None:
            nonlocal most
            most = max(most, gate.running.get("a", 0))
            await gate_open.wait()

        tasks = [asyncio.ensure_future(gate.run("a", job)) for _ in range(5)]
        other = asyncio.ensure_future(gate.run("b", job))
        for _ in range(5):
            await asyncio.sleep(0)
        busy = gate.busy
        gate_open.set()
        await asyncio.gather(*tasks, other)
        return most, busy

    most, busy = asyncio.run(run())
    assert most == 1, "key a held more than one slot"
    assert busy == 2, "a's one slot and b's: the third stays free for another key"


def test_a_cancelled_job_gives_its_place_and_its_slot_back() -> None:
    async def run() -> list[str]:
        gate = FairGate(slots=1, per_key=1)
        order: list[str] = []
        hold = asyncio.Event()

        async def holder() -> None:
            await hold.wait()

        async def job(name: str) -> None:
            order.append(name)

        first = asyncio.ensure_future(gate.run("h", holder))
        await asyncio.sleep(0)
        doomed = asyncio.ensure_future(gate.run("x", lambda: job("doomed")))
        later = asyncio.ensure_future(gate.run("y", lambda: job("later")))
        await asyncio.sleep(0)
        doomed.cancel()
        hold.set()
        await first
        await later
        with pytest.raises(asyncio.CancelledError):
            await doomed
        assert gate.busy == 0 and gate.waiting() == 0
        return order

    assert asyncio.run(run()) == ["later"]
