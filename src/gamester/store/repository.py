"""The table repository: a port (what the use cases need) and its SQLAlchemy adapter.

Every write that moves a game on is one transaction guarded by the table's ``seq`` (optimistic
concurrency): ``append_action`` succeeds only if the stored ``seq`` is still the one the caller saw, so
two servers on one database can never both write action ``n``. Leases (``lease_owner`` +
``lease_expiry`` on the table row) say which server runs a table's bots and clock.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from gamester.store import migrate
from gamester.store.port import (
    NO_RUNNER,
    LeaseInfo,
    ReviewRow,
    SeatRow,
    StoreUnavailable,
    TableRepository,
    TableRow,
)
from gamester.store.schema import actions, chat, reviews, seats, tables

__all__ = [
    "LeaseInfo",
    "ReviewRow",
    "SeatRow",
    "SqlTableRepository",
    "StoreUnavailable",
    "TableRepository",
    "TableRow",
]


# The hot path's statements, built once (building SQL expressions costs more than running them).
_MOVE_WHERE = sa.and_(
    tables.c.id == sa.bindparam("b_id"), tables.c.seq == sa.bindparam("b_seq"), tables.c.status == "playing"
)
_MOVE_VALUES: dict[str, Any] = {
    "seq": sa.bindparam("n_seq"),
    "status": sa.bindparam("n_status"),
    "deadline": sa.bindparam("n_deadline"),
    "returns": sa.bindparam("n_returns"),
}
_MOVE = tables.update().where(_MOVE_WHERE).values(**_MOVE_VALUES)
_MOVE_WITH_CHANCE = tables.update().where(_MOVE_WHERE).values(**_MOVE_VALUES, chance=sa.bindparam("n_chance"))
_ADD_ACTION = actions.insert()
_PG_MOVE_SQL = (
    "WITH u AS (UPDATE gm_tables SET seq = :n_seq, status = :n_status, deadline = :n_deadline, "
    "returns = :n_returns{chance} WHERE id = :b_id AND seq = :b_seq AND status = 'playing' RETURNING id) "
    "INSERT INTO gm_actions (table_id, seq, action, at) SELECT id, :n_seq, :action, :at FROM u"
)
_PG_MOVE = sa.text(_PG_MOVE_SQL.format(chance=""))
_PG_MOVE_WITH_CHANCE = sa.text(_PG_MOVE_SQL.format(chance=", chance = :n_chance"))


def default_sqlite_url() -> str:
    """``sqlite:///`` + the per-user data file (``$XDG_DATA_HOME/gamester/gamester.db``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    path = Path(base) / "gamester" / "gamester.db"
    return f"sqlite:///{path}"


def load_json(text: str | None) -> Any:
    """A JSON column's value (None stays None); the other SQL adapters read their JSON with it too."""
    return None if text is None else json.loads(text)


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"))


# The gm_tables columns holding JSON text; every other column maps to the TableRow field of its name.
_JSON_COLUMNS = frozenset({"options", "chance", "clock", "returns"})


def _table_values(t: TableRow) -> dict[str, Any]:
    """The gm_tables row of ``t`` (its seats go to gm_seats)."""
    out: dict[str, Any] = {}
    for col in tables.c:
        value = getattr(t, col.name)
        out[col.name] = _dump(value) if col.name in _JSON_COLUMNS else value
    return out


def _table_row(r: sa.Row[Any]) -> TableRow:
    """The TableRow (without seats) of a gm_tables row."""
    return TableRow(**{k: load_json(v) if k in _JSON_COLUMNS else v for k, v in r._mapping.items()})


# Every gm_seats column but the table's id maps to the SeatRow field of its name.
_SEAT_FIELDS = tuple(col.name for col in seats.c if col.name != "table_id")


def _seat_values(s: SeatRow) -> dict[str, Any]:
    return {name: getattr(s, name) for name in _SEAT_FIELDS}


def insert_table(c: sa.Connection, table: TableRow) -> None:
    """Insert ``table`` and its seats inside the caller's transaction."""
    c.execute(tables.insert().values(_table_values(table)))
    c.execute(seats.insert(), [{"table_id": table.id, **_seat_values(s)} for s in table.seats])


class SqlTableRepository:
    """The repository on SQLAlchemy: SQLite (WAL) or PostgreSQL (psycopg 3)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        # SQLite has one writer at a time; threads that find it busy sleep in coarse steps (up to
        # 100 ms) inside SQLite. Queueing them on a Python lock instead wakes each one the moment the
        # previous write commits. PostgreSQL locks rows itself. Reentrant: the event loop holds it
        # around a write it makes inline (writer_if_free), and the write takes it again.
        self._lock = threading.RLock() if engine.dialect.name == "sqlite" else None
        # Whatever the driver raises when the database cannot be reached or written is the port's
        # StoreUnavailable: nobody outside the store catches a driver's or SQLAlchemy's errors.
        self._error_watchers: list[Callable[[str], None]] = []
        sa.event.listen(engine, "handle_error", self._on_error)
        # The SQLite file this server opened (device, inode): a file deleted or replaced under a
        # running server would otherwise take every later write into an unlinked inode, lost at exit.
        self._path: Path | None = None
        self._file: tuple[int, int] | None = None
        if self._lock is not None and engine.url.database:
            self._path = Path(engine.url.database)
            with contextlib.suppress(OSError):
                st = self._path.stat()
                self._file = (st.st_dev, st.st_ino)

    def _check_file(self) -> None:
        """Refuse to write if the SQLite file is no longer the one this server opened."""
        if self._path is None:
            return
        try:
            st = self._path.stat()
        except OSError:
            raise StoreUnavailable("the database file is gone; nothing can be stored") from None
        if self._file is None:
            self._file = (st.st_dev, st.st_ino)
        elif (st.st_dev, st.st_ino) != self._file:
            raise StoreUnavailable("the database file was replaced under the server; nothing can be stored")

    @contextlib.contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        with self._lock or contextlib.nullcontext():
            self._check_file()
            with self.engine.begin() as c:
                yield c

    @contextlib.contextmanager
    def writer_if_free(self) -> Iterator[bool]:
        lock = self._lock
        if lock is None:
            yield True
            return
        free = lock.acquire(blocking=False)
        try:
            yield free
        finally:
            if free:
                lock.release()

    def notify_conninfo(self) -> str | None:
        if self._lock is not None:
            return None
        return self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

    def write(self) -> contextlib.AbstractContextManager[sa.Connection]:
        """One write transaction, queued behind this server's other SQLite writes (for the other
        stores on this database, e.g. :mod:`gamester.store.people`)."""
        return self._write()

    def probe(self, timeout: float) -> str | None:
        """Write a row and roll it back: None if the database takes writes, else why not (one line).
        Bounded: the SQLite writer lock is waited for at most ``timeout`` s, PostgreSQL statements
        time out (the caller bounds the connection attempt)."""
        lock = self._lock
        if lock is not None and not lock.acquire(timeout=timeout):
            return f"the database did not take a write within {timeout:g} s"
        try:
            self._check_file()
            ms = max(1, int(timeout * 1000))
            with self.engine.connect() as c:
                try:
                    if lock is not None:  # another process holding SQLite's writer slot: wait no longer
                        c.exec_driver_sql(f"PRAGMA busy_timeout = {ms}")
                    else:  # PostgreSQL; SET LOCAL ends with the transaction
                        c.exec_driver_sql(f"SET LOCAL statement_timeout = {ms}")
                    c.execute(
                        tables.insert().values(
                            id="~health", game="~", options="{}", seed=0, chance="[]", status="probe", seq=0,
                            created=time.time(),
                        )
                    )  # fmt: skip
                finally:
                    c.rollback()
                    if lock is not None:
                        c.exec_driver_sql("PRAGMA busy_timeout = 10000")
            return None
        except StoreUnavailable as e:
            return e.reason
        except sa.exc.DBAPIError as e:
            reason = str(e.orig).strip().splitlines()[0] if e.orig is not None else type(e).__name__
            return f"the database cannot be written: {reason}"[:300]
        finally:
            if lock is not None:
                lock.release()

    # -- tables --------------------------------------------------------------------------------
    def create(self, table: TableRow) -> None:
        with self._write() as c:
            insert_table(c, table)

    def _rows(self, c: sa.Connection, rows: Sequence[sa.Row[Any]]) -> list[TableRow]:
        out: list[TableRow] = []
        by_id: dict[str, TableRow] = {}
        for r in rows:
            t = _table_row(r)
            out.append(t)
            by_id[t.id] = t
        if by_id:
            q = sa.select(seats).where(seats.c.table_id.in_(list(by_id))).order_by(seats.c.seat)
            for s in c.execute(q):
                by_id[s.table_id].seats.append(SeatRow(**{k: getattr(s, k) for k in _SEAT_FIELDS}))
        return out

    def get(self, table_id: str) -> TableRow | None:
        with self.engine.connect() as c:
            rows = c.execute(sa.select(tables).where(tables.c.id == table_id)).all()
            found = self._rows(c, rows)
        return found[0] if found else None

    def seqs(self, table_ids: list[str]) -> dict[str, tuple[int, str]]:
        if not table_ids:
            return {}
        q = sa.select(tables.c.id, tables.c.seq, tables.c.status).where(tables.c.id.in_(table_ids))
        with self.engine.connect() as c:
            return {r[0]: (int(r[1]), r[2]) for r in c.execute(q)}

    def seq_of(self, table_id: str) -> int | None:
        with self.engine.connect() as c:
            v = c.execute(sa.select(tables.c.seq).where(tables.c.id == table_id)).scalar()
        return None if v is None else int(v)

    def list_tables(self, status: str | None, limit: int) -> list[TableRow]:
        q = sa.select(tables).order_by(tables.c.created.desc(), tables.c.id).limit(limit)
        # A pupil's lesson is nobody else's table; a private table is found only by its invite.
        q = q.where(tables.c.lesson.is_(None), tables.c.private.is_(False))
        if status is not None:
            q = q.where(tables.c.status == status)
        with self.engine.connect() as c:
            return self._rows(c, c.execute(q).all())

    def actions(self, table_id: str, after: int = 0) -> list[str]:
        q = (
            sa.select(actions.c.action)
            .where(actions.c.table_id == table_id, actions.c.seq > after)
            .order_by(actions.c.seq)
        )
        with self.engine.connect() as c:
            return [r[0] for r in c.execute(q)]

    # -- moves ---------------------------------------------------------------------------------
    def append_action(
        self,
        table_id: str,
        expected_seq: int,
        action: str,
        at: float,
        *,
        chance: list[Any] | None,
        status: str,
        deadline: float | None,
        returns: list[float] | None,
    ) -> bool:
        params: dict[str, Any] = {
            "b_id": table_id,
            "b_seq": expected_seq,
            "n_seq": expected_seq + 1,
            "n_status": status,
            "n_deadline": deadline,
            "n_returns": _dump(returns),
        }
        if chance is not None:
            params["n_chance"] = _dump(chance)
        if self._lock is None:
            # PostgreSQL: the guarded update and the insert in one statement (one round trip); a
            # second writer of the same seq waits for the row lock, then finds seq moved on.
            params.update(action=action, at=at)
            with self.engine.begin() as c:
                stmt = _PG_MOVE_WITH_CHANCE if chance is not None else _PG_MOVE
                return bool(c.execute(stmt, params).rowcount == 1)
        with self._write() as c:
            # The guarded update comes first: it takes the write lock (SQLite) / row lock (PostgreSQL).
            n = c.execute(_MOVE_WITH_CHANCE if chance is not None else _MOVE, params).rowcount
            if n != 1:
                return False
            c.execute(
                _ADD_ACTION, {"table_id": table_id, "seq": expected_seq + 1, "action": action, "at": at}
            )
        return True

    def finish(self, table_id: str, expected_seq: int, returns: list[float], forfeit: int | None) -> bool:
        with self._write() as c:
            n = c.execute(
                tables.update()
                .where(tables.c.id == table_id, tables.c.seq == expected_seq, tables.c.status == "playing")
                .values(status="over", returns=_dump(returns), forfeit=forfeit, deadline=None)
            ).rowcount
        return bool(n == 1)

    # -- seats ---------------------------------------------------------------------------------
    def join(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        starts: Callable[[TableRow], float | bool | None],
        account: str | None = None,
    ) -> TableRow | None:
        """Take a free human seat (for ``account`` when given); ``starts`` (the caller's rule) decides
        whether the table starts."""
        with self._write() as c:
            # The table's row first: two joins of one table (through two servers) take turns, so the
            # second one sees the first's seat taken when it asks whether the table starts.
            if not c.execute(
                tables.update().where(tables.c.id == table_id).values(seq=tables.c.seq)
            ).rowcount:
                return None
            n = c.execute(
                seats.update()
                .where(
                    seats.c.table_id == table_id,
                    seats.c.seat == seat,
                    seats.c.kind == "human",
                    seats.c.token_hash.is_(None),
                )
                .values(name=name, token_hash=token_hash, account=account)
            ).rowcount
            if n != 1:
                return None
            row = self._rows(c, c.execute(sa.select(tables).where(tables.c.id == table_id)).all())[0]
            first = starts(row)
            if not isinstance(first, bool) and row.status == "waiting":
                c.execute(
                    tables.update()
                    .where(tables.c.id == table_id, tables.c.status == "waiting")
                    .values(status="playing", deadline=first)
                )
                row.status, row.deadline = "playing", first
        return row

    def leave(self, table_id: str, seat: int, token_hash: str) -> bool:
        with self._write() as c:
            n = c.execute(
                seats.update()
                .where(seats.c.table_id == table_id, seats.c.seat == seat, seats.c.token_hash == token_hash)
                .values(name=None, token_hash=None, account=None)
            ).rowcount
        return bool(n == 1)

    # -- leases --------------------------------------------------------------------------------
    def unleased(self, now: float, limit: int) -> list[LeaseInfo]:
        """Playing tables whose lease has expired or was never taken, except those nothing runs for
        (``NO_RUNNER``: which tables those are is the caller's rule, stored at creation)."""
        q = (
            sa.select(tables.c.id, tables.c.lease_owner, tables.c.lease_expiry)
            .where(
                tables.c.status == "playing",
                sa.or_(tables.c.lease_owner.is_(None), tables.c.lease_owner != NO_RUNNER),
                sa.or_(tables.c.lease_expiry.is_(None), tables.c.lease_expiry < now),
            )
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [LeaseInfo(r[0], r[1], r[2]) for r in c.execute(q)]

    def waiting_count(self, turns_key: str) -> int:
        q = (
            sa.select(sa.func.count())
            .select_from(tables)
            .where(tables.c.status == "waiting", tables.c.turns_key == turns_key)
        )
        with self.engine.connect() as c:
            return int(c.execute(q).scalar_one())

    def count_by_status(self) -> dict[str, int]:
        q = sa.select(tables.c.status, sa.func.count()).group_by(tables.c.status)
        with self.engine.connect() as c:
            return {str(status): int(n) for status, n in c.execute(q)}

    def watch_errors(self, fn: Callable[[str], None]) -> None:
        self._error_watchers.append(fn)

    def _on_error(self, ctx: sa.engine.ExceptionContext) -> None:
        """The engine's ``handle_error``: told to the watchers (metrics), then translated to the
        port's StoreUnavailable when the database cannot be reached or written."""
        kind = type(ctx.sqlalchemy_exception or ctx.original_exception).__name__
        if kind != "IntegrityError":
            for fn in self._error_watchers:
                fn(kind)
        _unavailable(ctx)

    def waiting_since(self, before: float, limit: int) -> list[TableRow]:
        q = (
            sa.select(tables)
            .where(tables.c.status == "waiting", tables.c.created < before)
            .order_by(tables.c.created)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return self._rows(c, c.execute(q).all())

    def delete_abandoned(self, table_id: str, seated_at_most: int) -> bool:
        taken = (
            sa.select(sa.func.count())
            .select_from(seats)
            .where(seats.c.table_id == table_id, seats.c.token_hash.is_not(None))
            .scalar_subquery()
        )
        with self._write() as c:
            # The guard is the write's (a join at this instant wins); which tables to try is the caller's.
            n = c.execute(
                tables.update()
                .where(
                    tables.c.id == table_id,
                    tables.c.status == "waiting",
                    tables.c.seq == 0,
                    taken <= seated_at_most,
                )
                .values(status="expired")
            ).rowcount
            if n != 1:
                return False
            c.execute(actions.delete().where(actions.c.table_id == table_id))
            c.execute(chat.delete().where(chat.c.table_id == table_id))  # spectators may have talked
            c.execute(seats.delete().where(seats.c.table_id == table_id))
            c.execute(tables.delete().where(tables.c.id == table_id))
        return True

    def idle_lessons(self, before: float, limit: int) -> list[str]:
        """Lesson tables made before ``before`` with no move since (which of them go is the caller's)."""
        moved = sa.select(actions.c.seq).where(actions.c.table_id == tables.c.id, actions.c.at >= before)
        q = (
            sa.select(tables.c.id)
            .where(tables.c.lesson.is_not(None), tables.c.created < before, ~moved.exists())
            .order_by(tables.c.created)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [r[0] for r in c.execute(q)]

    def delete_idle_lesson(self, table_id: str, before: float) -> bool:
        """Delete a lesson table (its moves, seats, chat and reviews) if still nobody has moved there
        since ``before`` (a move at this instant wins)."""
        moved = sa.select(actions.c.seq).where(actions.c.table_id == table_id, actions.c.at >= before)
        with self._write() as c:
            n = c.execute(
                tables.update()
                .where(tables.c.id == table_id, tables.c.lesson.is_not(None), ~moved.exists())
                .values(status="expired")
            ).rowcount
            if n != 1:
                return False
            for t in (actions, chat, reviews, seats):
                c.execute(t.delete().where(t.c.table_id == table_id))
            c.execute(tables.delete().where(tables.c.id == table_id))
        return True

    def mark_no_runner(self, table_id: str) -> None:
        with self._write() as c:
            c.execute(
                tables.update()
                .where(tables.c.id == table_id)
                .values(lease_owner=NO_RUNNER, lease_expiry=None)
            )

    def leases_held_by_others(self, me: str, limit: int) -> list[LeaseInfo]:
        q = (
            sa.select(tables.c.id, tables.c.lease_owner, tables.c.lease_expiry)
            .where(
                tables.c.status == "playing",
                tables.c.lease_owner.is_not(None),
                tables.c.lease_owner != me,
                tables.c.lease_owner != NO_RUNNER,
            )
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [LeaseInfo(r[0], r[1], r[2]) for r in c.execute(q)]

    def take_lease(
        self, table_id: str, owner: str, until: float, now: float, dead_owner: str | None = None
    ) -> bool:
        """Take the lease if it is free, expired, already ours, or held by ``dead_owner``.

        Time while no server held the table does not count against the seat to move: a lease taken
        over moves the clock's deadline on by the gap — since the lease was handed back
        (``lease_expiry`` of a released lease is when it was released), or, for a server that died
        or stopped renewing, since its last renewal could have been (expiry minus a lease)."""
        t = tables.c
        cond = sa.or_(t.lease_owner.is_(None), t.lease_expiry < now, t.lease_owner == owner)
        if dead_owner is not None:
            cond = sa.or_(cond, t.lease_owner == dead_owner)
        lease = max(0.0, until - now)
        gap = sa.case(
            (t.lease_owner == owner, 0.0),
            (t.lease_expiry.is_(None), 0.0),
            (t.lease_owner.is_(None), now - t.lease_expiry),
            else_=now - (t.lease_expiry - lease),
        )
        deadline = sa.case((sa.and_(t.deadline.is_not(None), gap > 0), t.deadline + gap), else_=t.deadline)
        with self._write() as c:
            n = c.execute(
                tables.update()
                .where(t.id == table_id, cond)
                .values(lease_owner=owner, lease_expiry=until, deadline=deadline)
            ).rowcount
        return bool(n == 1)

    def renew_leases(self, owner: str, until: float) -> None:
        with self._write() as c:
            c.execute(
                tables.update()
                .where(tables.c.lease_owner == owner, tables.c.status == "playing")
                .values(lease_expiry=until)
            )

    def release_leases(self, owner: str, now: float | None = None) -> None:
        """Hand ``owner``'s leases back; ``lease_expiry`` keeps when (the clock's pause starts)."""
        at = time.time() if now is None else now
        with self._write() as c:
            c.execute(
                tables.update().where(tables.c.lease_owner == owner).values(lease_owner=None, lease_expiry=at)
            )

    def leased_by(self, owner: str) -> list[str]:
        q = sa.select(tables.c.id).where(tables.c.lease_owner == owner, tables.c.status == "playing")
        with self.engine.connect() as c:
            return [r[0] for r in c.execute(q)]

    # -- reviews of finished tables -------------------------------------------------------------
    def review(self, table_id: str, seat: int) -> ReviewRow | None:
        q = sa.select(reviews).where(reviews.c.table_id == table_id, reviews.c.seat == seat)
        with self.engine.connect() as c:
            r = c.execute(q).first()
        if r is None:
            return None
        return ReviewRow(r.table_id, r.seat, r.status, load_json(r.result), r.owner, r.started)

    def claim_review(self, table_id: str, seat: int, owner: str, now: float, stale_before: float) -> bool:
        """Start the review of ``seat`` for ``owner``: True if there was none, or only one still
        ``working`` since before ``stale_before`` (its server died) or one that failed."""
        with self._write() as c:
            q = sa.select(reviews.c.status, reviews.c.started).where(
                reviews.c.table_id == table_id, reviews.c.seat == seat
            )
            found = c.execute(q.with_for_update()).first()
            values = {"status": "working", "result": None, "owner": owner, "started": now}
            if found is None:
                try:
                    with c.begin_nested():
                        c.execute(reviews.insert().values(table_id=table_id, seat=seat, **values))
                except sa.exc.IntegrityError:
                    return False  # another server claimed it a moment ago
                return True
            if found.status == "done" or (found.status == "working" and found.started >= stale_before):
                return False
            c.execute(
                reviews.update().where(reviews.c.table_id == table_id, reviews.c.seat == seat).values(values)
            )
            return True

    def start_review(self, table_id: str, seat: int, owner: str, now: float) -> bool:
        """``owner``'s claimed review begins to run now (its age counts from here): False if it is
        not ``owner``'s ``working`` review any more (taken over meanwhile)."""
        r = reviews.c
        with self._write() as c:
            n = c.execute(
                reviews.update()
                .where(r.table_id == table_id, r.seat == seat, r.owner == owner, r.status == "working")
                .values(started=now)
            ).rowcount
        return bool(n == 1)

    def finish_review(self, table_id: str, seat: int, owner: str, status: str, result: Any) -> None:
        """Store ``owner``'s outcome (``done`` with the review, ``failed`` with the reason)."""
        with self._write() as c:
            c.execute(
                reviews.update()
                .where(reviews.c.table_id == table_id, reviews.c.seat == seat, reviews.c.owner == owner)
                .values(status=status, result=_dump(result))
            )

    def checkpoint(self) -> None:
        """Copy the SQLite write-ahead log into the database file, without blocking writers."""
        if self._lock is None:
            return
        with self.engine.connect() as c:
            c.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    def dispose(self) -> None:
        if self._lock is not None:
            with contextlib.suppress(Exception):
                self.checkpoint()
        self.engine.dispose()


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a committed transaction survives the process being killed (the OS has it);
    # only a power cut could lose the last ones.
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    # No checkpoint inside a commit (it syncs the file to disk, which can take long on a busy disk);
    # the server runs them from a background thread instead (checkpoint()).
    cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


UNAVAILABLE = "the database is unavailable; try again"


def _unavailable(ctx: sa.engine.ExceptionContext) -> None:
    """An engine's ``handle_error``: a database that cannot be reached or used now (SQLAlchemy's
    OperationalError: refused, gone, locked, read-only, out of disk) is the port's StoreUnavailable,
    with the driver's own line as its reason."""
    if not isinstance(ctx.sqlalchemy_exception, sa.exc.OperationalError):
        return
    orig = ctx.original_exception
    reason = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    raise StoreUnavailable(UNAVAILABLE, f"the database cannot be written: {reason}"[:300]) from orig


def make_engine(url: str) -> sa.Engine:
    """An engine for a ``sqlite:///PATH`` or ``postgresql+psycopg://`` URL (ValueError otherwise)."""
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise ValueError(
            f"--db {url!r}: not a database URL (sqlite:///PATH or postgresql+psycopg://USER@HOST/DB)"
        ) from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        path = parsed.database
        if not path or path == ":memory:":
            raise ValueError(f"--db {url!r}: give SQLite a file path (sqlite:///PATH)")
        p = Path(path).expanduser()
        if p.is_dir():
            raise ValueError(f"--db {url!r}: {p} is a folder, not a database file")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"--db {url!r}: cannot create folder {p.parent}: {e.strerror}") from None
        engine = sa.create_engine(
            parsed.set(database=str(p)),
            pool_size=8,
            max_overflow=8,
            connect_args={"check_same_thread": False, "timeout": 10},
        )
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if backend == "postgresql":
        if parsed.get_driver_name() != "psycopg":
            parsed = parsed.set(drivername="postgresql+psycopg")
        return sa.create_engine(parsed, pool_size=8, max_overflow=8, pool_pre_ping=True)
    raise ValueError(
        f"--db {url!r}: unsupported database {backend!r}; use sqlite:///PATH or postgresql+psycopg://…"
    )


def open_repository(url: str) -> SqlTableRepository:
    """Connect, migrate to the newest schema, and return the repository (ValueError on a bad URL or
    an unreachable database, with one line saying which)."""
    engine = make_engine(url)
    try:
        migrate.upgrade(engine)
    except sa.exc.OperationalError as e:
        engine.dispose()
        reason = str(e.orig).strip().splitlines()[0] if e.orig is not None else str(e)
        raise ValueError(f"--db {url!r}: cannot open the database: {reason}") from None
    except sa.exc.DatabaseError as e:
        engine.dispose()
        reason = str(e.orig).strip().splitlines()[0] if e.orig is not None else str(e)
        raise ValueError(f"--db {url!r}: not a usable gamester database: {reason}") from None
    return SqlTableRepository(engine)


def _conforms(repo: SqlTableRepository) -> TableRepository:
    return repo  # mypy checks here that the adapter implements the whole port
