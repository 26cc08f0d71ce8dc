"""The same table again: ``POST /api/tables/{id}/rematch {"token"}`` (docs/web.md, People).

Once a table is over, the first seat to ask makes the next table — the same game, options, clock,
bots in the same seats, the same ``rated``, ``open`` and ``private`` — and sits down in its own seat
there; every other seat asking joins the same table, in its own seat (kept for it by an invite only
the server can derive, unless the table is open). The deal moves on as at a real table: a new shuffle, and
in a game with a ``first_dealer`` option the seat after the last dealer deals first. Which table is
the rematch is decided in one guarded transaction (:meth:`PeopleStore.link_rematch`), so two seats
asking at once, on two servers, still find one table. Every socket of the old table then gets
``{"type": "rematch", "table": ID}``.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from gamester.core.record import replay
from gamester.core.registry import load_game
from gamester.store.port import AccountRow, SeatRow, TableRow
from gamester.web import decisions as d
from gamester.web.accounts import People
from gamester.web.commands import Join, Record, Rematched
from gamester.web.decisions import SeatOwner
from gamester.web.errors import BadToken, Conflict, NoTable, SeatTaken
from gamester.web.fair import TableQuota, address_key
from gamester.web.registry import Registry
from gamester.web.validate import new_table_id


def next_table(old: TableRow, last_dealer: Any, now: float) -> TableRow:
    """The row of the table after ``old``: its seats empty for people, its bots where they were."""
    options = dict(old.options)
    n = len(old.seats)
    if "first_dealer" in options and isinstance(last_dealer, int) and not isinstance(last_dealer, bool):
        moved = {**options, "first_dealer": (last_dealer + 1) % n}
        try:
            load_game(old.game, **moved)
            options = moved
        except Exception:  # noqa: BLE001 - a game that will not take that seat keeps its dealer rule
            pass
    game = load_game(old.game, **options)
    seed = secrets.randbits(62)
    state = game.new_initial_state(seed=seed)
    table_id = new_table_id()
    seats = [SeatRow(seat=s.seat, kind=s.kind, agent=s.agent) for s in old.seats]
    if not old.open:  # each seat kept for whoever held it, who sits down with its rematch invite
        for new, was in zip(seats, old.seats, strict=True):
            code = d.rematch_invite(was, table_id) if new.kind == "human" else None
            new.invite_hash = None if code is None else d.hash_token(code)
    humans = any(s.kind == "human" for s in seats)
    row = TableRow(
        id=table_id,
        game=game.name,
        options=game.options_json(),
        seed=seed,
        chance=[game.format_chance(e) for e in state.chance.entries()],
        clock=old.clock,
        status="waiting" if humans else "playing",
        seq=0,
        created=now,
        rated=old.rated,
        open=old.open,
        private=old.private,
        watch_hash=old.watch_hash,  # who could watch the last game can watch this one
        turns_key=old.turns_key,  # its bots take turns as the last table's did (``ask``: the asker's)
        seats=seats,
    )
    row.moved = None if humans else now
    d.dealt_over(row, state)  # a game over when dealt ends at once, as a new table's does
    return row


async def seat_owner(people: People, row: AccountRow) -> SeatOwner:
    """``row``'s account as the owner of a seat it takes (a join, a new table, a rematch): its name,
    its token for each seat, and the accounts it blocks or is blocked by, never at one table with it."""
    related = people.moderation.related if people.moderation is not None else None
    shunned = frozenset() if related is None else await asyncio.to_thread(related, row.key)
    return SeatOwner(row.key, row.name, lambda t, n: people.seat_token(row, t, n), shunned)


async def ask(
    reg: Registry, people: People, table_id: str, token: Any, quota: TableQuota, address: str
) -> dict[str, Any]:
    """The rematch for the seat of ``token``: ``{"table", "seat", "token"}``. The seat that makes it
    is charged for a table made (``quota``: its tables a minute and its tables waiting), as at any
    other way of making a table; its bots then take turns as that seat's address."""
    old = await reg.db(reg.repo.get, table_id)
    if old is None:
        raise NoTable(f"no table {table_id!r}")
    seat = d.authenticate(old, token)
    if seat is None:
        raise BadToken("token: not a seat's token at this table")
    if old.status != "over":
        raise Conflict("a rematch is offered once the game is over", code="not_over")
    made = False
    rid = old.rematch
    if rid is None:
        final = replay(await reg.call(table_id, Record()))
        new = next_table(old, final.public_observation().get("dealer"), reg.now())
        new.turns_key = address_key(address)
        async with quota.making(address, waiting=new.status == "waiting"):
            linked = await reg.db(people.store.link_rematch, table_id, new, write=True)
        rid, made = linked, linked == new.id
    mine = old.seats[seat]
    owner = None
    if mine.account is not None:
        row = await reg.db(people.store.account, mine.account)
        if row is not None:
            owner = await seat_owner(people, row)  # with the blocks made since
    if made:
        reg.tell(table_id, Rematched(rid))  # this server's sockets of the old table
        reg.publish(table_id, "rematch")  # and the other servers'
    try:
        joined = await reg.call(rid, Join(seat, mine.name, None, owner, d.rematch_invite(mine, rid)))
    except SeatTaken:
        raise SeatTaken(f"seat {seat} of the rematch is taken (asked already?)") from None
    return {"table": rid, "seat": seat, "token": joined["token"]}
