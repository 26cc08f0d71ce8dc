"""Quick play's seeks in the database (the SQL side of docs/web.md, Quick play).

A seek waits in a *pool* (one game, its options, rated or not, the player count and the clock). Who
sits with whom is decided by the caller's rule (``decide``, :mod:`gamester.web.seeks`); this module
only makes sure that the rule sees every seek of the pool as it is, and that what it decides is
written at once, whatever the number of servers:

- On PostgreSQL every write to a pool's seeks (a new seek, a poll, a match, the expiry) first takes
  a transaction-scoped advisory lock on the pool, so two servers never read the same waiting seeks
  at the same time; a new seek also takes a lock on its address first, so the count of that address's
  open seeks holds until it commits. Locks are taken in that order (address, then pool) and a
  transaction holds at most one of each, so no two transactions wait for each other in a circle.
- On SQLite the first statement of each such transaction is a write, which takes the database's one
  write lock before anything is read (the single-writer path): another process on the same file waits
  until this one commits, then reads what it left.

A match writes the new table (its seats already taken) and marks its seeks ``matched`` in the same
transaction, so a seek is seated at most once and its table exists the moment its status says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from gamester.store.port import Decide, Pool, SeekRepository, SeekRow, SeekTimes, TableRow
from gamester.store.repository import SqlTableRepository, insert_table
from gamester.store.schema import accounts, actions, blocks, seats, seeks, tables

WAITING = "waiting"
_ADDRESS_LOCKS = 0x5EE1  # the advisory locks' first key: an address's seeks, then a pool's
_POOL_LOCKS = 0x5EE2


def _row(r: sa.Row[Any]) -> SeekRow:
    m = dict(r._mapping)
    m["options"] = json.loads(m["options"])
    m["clock"] = None if m["clock"] is None else json.loads(m["clock"])
    m["rated"] = bool(m["rated"])
    return SeekRow(**m)


def _values(s: SeekRow) -> dict[str, Any]:
    out = dict(s.__dict__)
    out["options"] = json.dumps(s.options, separators=(",", ":"), sort_keys=True)
    out["clock"] = None if s.clock is None else json.dumps(s.clock, separators=(",", ":"), sort_keys=True)
    return out


def _lock_key(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big", signed=True)


class SeekStore:
    """Seeks over the table repository's engine (and its SQLite write queue). ``times``: how long a
    seek waits at most, and without its seeker asking about it."""

    def __init__(self, repo: SqlTableRepository, times: SeekTimes) -> None:
        self.repo = repo
        self.engine = repo.engine
        self.life = times.life
        self.unpolled = times.unpolled
        self.postgres = self.engine.dialect.name == "postgresql"

    # -- transactions ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def _pool(self, pool: str, address: str | None = None) -> Iterator[sa.Connection]:
        """A write transaction holding the pool (and first the address, when given)."""
        with self.repo.write() as c:
            if self.postgres:
                if address is not None:
                    c.execute(sa.text("SELECT pg_advisory_xact_lock(:a, :b)"),
                              {"a": _ADDRESS_LOCKS, "b": _lock_key(address)})  # fmt: skip
                c.execute(
                    sa.text("SELECT pg_advisory_xact_lock(:a, :b)"), {"a": _POOL_LOCKS, "b": _lock_key(pool)}
                )
            yield c

    def _alive(self, now: float) -> sa.ColumnElement[bool]:
        s = seeks.c
        return sa.and_(s.status == WAITING, s.created > now - self.life, s.polled > now - self.unpolled)

    def _expire(self, c: sa.Connection, pool: str, now: float) -> int:
        """Mark the pool's seeks that stopped living expired. Also the SQLite path's first write."""
        s = seeks.c
        stale = sa.or_(s.created <= now - self.life, s.polled <= now - self.unpolled)
        done = c.execute(
            seeks.update()
            .where(s.pool == pool, s.status == WAITING, stale)
            .values(status="expired", ended=now)
        )
        return int(done.rowcount)

    def _match(self, c: sa.Connection, pool: str, now: float, decide: Decide) -> TableRow | None:
        """Seat whoever the rule seats from the pool (at most one table a call)."""
        s = seeks.c
        q = sa.select(seeks).where(s.pool == pool, self._alive(now)).order_by(s.created, s.id).limit(200)
        live = [_row(r) for r in c.execute(q)]
        if not live:
            return None
        keys = sorted({x.account for x in live if x.account is not None})
        found: set[tuple[str, str]] = set()
        seat_keys: dict[str, str] = {}
        if keys:
            b = blocks.c
            q2 = sa.select(b.blocker, b.blocked).where(b.blocker.in_(keys), b.blocked.in_(keys))
            found = {(r[0], r[1]) for r in c.execute(q2)}
            q3 = sa.select(accounts.c.key, accounts.c.seat_key).where(accounts.c.key.in_(keys))
            seat_keys = {r[0]: r[1] for r in c.execute(q3)}
        made = decide(Pool(live, frozenset(found), seat_keys), now)
        if made is None:
            return None
        table, seated = made
        insert_table(c, table)
        for seek_id, seat in sorted(seated.items()):
            n = c.execute(
                seeks.update()
                .where(s.id == seek_id, s.status == WAITING)
                .values(status="matched", ended=now, table_id=table.id, seat=seat)
            ).rowcount
            if n != 1:  # cannot happen while the pool is held; never seat a seek twice
                raise RuntimeError(f"seek {seek_id} changed under the pool's lock")
        return table

    # -- a seeker's calls -------------------------------------------------------------------------
    def add(
        self, row: SeekRow, *, per_address: int | None, now: float, decide: Decide
    ) -> tuple[str, TableRow | None]:
        """Store a new seek and seat whoever can be seated now: ``("ok", table or None)``;
        ``("too_many", None)`` if its address already has ``per_address`` open seeks, or
        ``("again", None)`` if its account already waits in this pool (then nothing is stored)."""
        s = seeks.c
        with self._pool(row.pool, row.address_key) as c:
            self._expire(c, row.pool, now)
            if per_address is not None:
                held = c.execute(
                    sa.select(sa.func.count()).select_from(seeks).where(s.address_key == row.address_key,
                                                                        self._alive(now))
                ).scalar_one()  # fmt: skip
                if held >= per_address:
                    return "too_many", None
            if row.account is not None:
                twice = c.execute(
                    sa.select(s.id)
                    .where(s.pool == row.pool, s.account == row.account, self._alive(now))
                    .limit(1)
                ).first()
                if twice is not None:
                    return "again", None
            c.execute(seeks.insert().values(_values(row)))
            return "ok", self._match(c, row.pool, now, decide)

    def get(self, seek_id: str) -> SeekRow | None:
        with self.engine.connect() as c:
            r = c.execute(sa.select(seeks).where(seeks.c.id == seek_id)).first()
        return None if r is None else _row(r)

    def poll(self, seek: SeekRow, now: float, decide: Decide) -> tuple[SeekRow, TableRow | None]:
        """Its seeker asked: the seek lives on (``polled``), and its pool is looked at again (the
        rating window has widened, bots may be due). The seek as it is after, and the table made."""
        s = seeks.c
        with self._pool(seek.pool) as c:
            c.execute(
                seeks.update()
                .where(s.id == seek.id, s.status == WAITING, self._alive(now))
                .values(polled=now)
            )
            self._expire(c, seek.pool, now)
            table = self._match(c, seek.pool, now, decide)
            after = c.execute(sa.select(seeks).where(s.id == seek.id)).one()
        return _row(after), table

    def cancel(self, seek_id: str, now: float) -> SeekRow | None:
        """Withdraw a waiting seek (a matched one stays matched); the row after, None if gone."""
        s = seeks.c
        with self.repo.write() as c:
            c.execute(
                seeks.update()
                .where(s.id == seek_id, s.status == WAITING)
                .values(status="cancelled", ended=now)
            )
            r = c.execute(sa.select(seeks).where(s.id == seek_id)).first()
        return None if r is None else _row(r)

    # -- the lobby and the sweep ----------------------------------------------------------------------
    def open(self, now: float, limit: int) -> list[SeekRow]:
        """The live seeks, oldest first."""
        q = sa.select(seeks).where(self._alive(now)).order_by(seeks.c.created, seeks.c.id).limit(limit)
        with self.engine.connect() as c:
            return [_row(r) for r in c.execute(q)]

    def count_open(self, now: float) -> int:
        q = sa.select(sa.func.count()).select_from(seeks).where(self._alive(now))
        with self.engine.connect() as c:
            return int(c.execute(q).scalar_one())

    def sweep(self, now: float, decide: Decide, keep: float) -> tuple[int, list[TableRow]]:
        """Every pool with a waiting seek: the seeks that stopped living are marked expired and the
        rule is asked again (time alone may seat someone: a widened window, bots due). Seeks over
        for ``keep`` seconds are deleted. (How many expired, the tables made.)"""
        s = seeks.c
        with self.engine.connect() as c:
            pools = [
                r[0] for r in c.execute(sa.select(s.pool).where(s.status == WAITING).distinct().limit(500))
            ]
        expired = 0
        made: list[TableRow] = []
        for pool in pools:
            with self._pool(pool) as c:
                expired += self._expire(c, pool, now)
                table = self._match(c, pool, now, decide)
            if table is not None:
                made.append(table)
        with self.repo.write() as c:
            c.execute(seeks.delete().where(s.status != WAITING, s.ended < now - keep))
        return expired, made

    def withdraw_account(self, key: str, now: float) -> int:
        """Cancel every waiting seek of an account (a ban), each under its pool's lock."""
        s = seeks.c
        with self.engine.connect() as c:
            found = [
                (r[0], r[1])
                for r in c.execute(sa.select(s.id, s.pool).where(s.account == key, s.status == WAITING))
            ]
        done = 0
        for seek_id, pool in found:
            with self._pool(pool) as c:
                done += c.execute(
                    seeks.update()
                    .where(s.id == seek_id, s.status == WAITING)
                    .values(status="cancelled", ended=now)
                ).rowcount
        return done

    # -- your tables ----------------------------------------------------------------------------
    def account_tables(self, key: str, *, live: int, over: int) -> list[dict[str, Any]]:
        """Every table the account sits at that is not over (at most ``live``), and its ``over`` last
        finished ones: private, unrated and lessons included. Each with what is needed to know whose
        turn it is (game, options, seed, seq) and ``updated``: its last move's time, else its creation."""
        return _account_tables(self.engine, key, live, over)


def _account_tables(engine: sa.Engine, key: str, live: int, over: int) -> list[dict[str, Any]]:
    t = tables.c
    last = sa.select(sa.func.max(actions.c.at)).where(actions.c.table_id == t.id).scalar_subquery()
    q = (
        sa.select(t.id, t.game, t.options, t.seed, t.status, t.seq, t.rated, t.private, t.created,
                  seats.c.seat, sa.func.coalesce(last, t.created).label("updated"))
        .select_from(seats.join(tables, tables.c.id == seats.c.table_id))
        .where(seats.c.account == key)
        .order_by(sa.desc("updated"), t.id)
    )  # fmt: skip
    with engine.connect() as c:
        rows = list(c.execute(q.where(t.status != "over").limit(live)))
        rows += list(c.execute(q.where(t.status == "over").limit(over)))
        names: dict[str, list[str | None]] = {r.id: [] for r in rows}
        if names:
            q2 = sa.select(seats.c.table_id, seats.c.name, seats.c.agent).where(
                seats.c.table_id.in_(list(names))
            )
            for s in c.execute(q2.order_by(seats.c.table_id, seats.c.seat)):
                names[s.table_id].append(s.name or s.agent)
    return [
        {"id": r.id, "game": r.game, "options": json.loads(r.options), "seed": r.seed, "status": r.status,
         "seq": r.seq, "rated": bool(r.rated), "private": bool(r.private), "seat": r.seat,
         "updated": float(r.updated), "names": names[r.id]}
        for r in rows
    ]  # fmt: skip


def _conforms(store: SeekStore) -> SeekRepository:
    return store  # mypy checks here that the adapter implements the whole port
