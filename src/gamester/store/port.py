"""The table repository's port: the rows the live tables see and everything they need from storage.

No SQLAlchemy here (the adapter, :mod:`gamester.store.repository`, is beside it), so the decisions
and tests that work on rows import only this. Every write that moves a game on is guarded by the
table's ``seq`` (two writers can never both store action ``n``); the rules (when a table starts, what
needs a runner) are the caller's (``gamester.web.decisions``), the port only stores what they decided.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

NO_RUNNER = "-"
"""``lease_owner`` of a table nothing runs for (no bot, no clock): never listed as unleased."""


class StoreUnavailable(Exception):
    """The database cannot keep a write now: its file vanished or was replaced, or it did not answer
    in time. Nothing was written; the caller says so instead of accepting what it cannot keep."""


@dataclass
class SeatRow:
    seat: int
    kind: str  # "human" | "bot"
    agent: str | None = None
    name: str | None = None
    token_hash: str | None = None
    account: str | None = None  # the key of the account that owns the seat (joined while logged in)
    invite_hash: str | None = None  # the seat's invite code, hashed: a new occupant must give it


@dataclass
class TableRow:
    id: str
    game: str
    options: dict[str, Any]
    seed: int
    chance: list[Any]
    clock: dict[str, Any] | None
    status: str
    seq: int
    created: float
    deadline: float | None = None
    returns: list[float] | None = None
    forfeit: int | None = None
    lease_owner: str | None = None
    lease_expiry: float | None = None
    lesson: str | None = None  # the tutorial this table teaches (web/lessons.py)
    rated: bool = False
    rating_applied: bool = False
    rematch: str | None = None  # the next table at the same seats, once a seat asked for it
    open: bool = False  # anyone may take a free seat, from the lobby (no invites)
    private: bool = False  # never listed; watched only with an invite (watch code or a seat's)
    watch_hash: str | None = None  # the private table's watch code, hashed
    turns_key: str | None = None  # whose turn its bots take at the workers (web/fair.py address_key)
    seats: list[SeatRow] = field(default_factory=list)


@dataclass
class ReviewRow:
    """The review of one seat of a finished table (``result``: the review's JSON once done)."""

    table_id: str
    seat: int
    status: str  # working | done | failed
    result: Any
    owner: str | None
    started: float


@dataclass
class LeaseInfo:
    id: str
    owner: str | None
    expiry: float | None


class TableRepository(Protocol):
    """What the use cases need from storage."""

    def create(self, table: TableRow) -> None: ...

    def get(self, table_id: str) -> TableRow | None: ...

    def seq_of(self, table_id: str) -> int | None: ...

    def seqs(self, table_ids: list[str]) -> dict[str, tuple[int, str]]:
        """(seq, status) of each of ``table_ids`` that exists: one read, to see which changed."""
        ...

    def list_tables(self, status: str | None, limit: int) -> list[TableRow]: ...

    def actions(self, table_id: str, after: int = 0) -> list[str]: ...

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
    ) -> bool: ...

    def finish(self, table_id: str, expected_seq: int, returns: list[float], forfeit: int | None) -> bool: ...

    def join(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        starts: Callable[[TableRow], float | bool | None],
        account: str | None = None,
    ) -> TableRow | None:
        """Take the free human ``seat`` (None if it is not free), for ``account`` when given, and
        return the row after it, in one transaction that holds the table: ``starts(row)`` (the row
        with the seat taken) says whether the table starts playing now, and with which deadline (a
        number or None), or not (False)."""
        ...

    def leave(self, table_id: str, seat: int, token_hash: str) -> bool: ...

    def unleased(self, now: float, limit: int) -> list[LeaseInfo]:
        """Playing tables whose lease expired or was never taken (not those marked ``NO_RUNNER``)."""
        ...

    def waiting_count(self, turns_key: str) -> int:
        """Waiting tables made from the address whose key is ``turns_key`` (its lobby places)."""
        ...

    def waiting_since(self, before: float, limit: int) -> list[TableRow]:
        """Waiting tables created before ``before`` (oldest first): the candidates for expiry."""
        ...

    def delete_abandoned(self, table_id: str, seated_at_most: int) -> bool:
        """Delete a table that is still waiting with at most ``seated_at_most`` seats taken (False if
        it moved on meanwhile: a join at that instant wins)."""
        ...

    def idle_lessons(self, before: float, limit: int) -> list[str]:
        """Lesson tables made before ``before`` with no move since."""
        ...

    def delete_idle_lesson(self, table_id: str, before: float) -> bool:
        """Delete a lesson table nobody has moved at since ``before`` (False if somebody has)."""
        ...

    def mark_no_runner(self, table_id: str) -> None:
        """Nothing runs for this table: it is never listed as unleased again."""
        ...

    def take_lease(
        self, table_id: str, owner: str, until: float, now: float, dead_owner: str | None = None
    ) -> bool: ...

    def renew_leases(self, owner: str, until: float) -> None: ...

    def release_leases(self, owner: str, now: float | None = None) -> None: ...

    def leased_by(self, owner: str) -> list[str]: ...

    def dispose(self) -> None: ...

    def leases_held_by_others(self, me: str, limit: int) -> list[LeaseInfo]: ...

    def checkpoint(self) -> None: ...

    def probe(self, timeout: float) -> str | None:
        """Try a write (rolled back) within ``timeout`` seconds: None if the database can be
        written, else one line saying why not."""
        ...

    def review(self, table_id: str, seat: int) -> ReviewRow | None: ...

    def claim_review(self, table_id: str, seat: int, owner: str, now: float, stale_before: float) -> bool: ...

    def start_review(self, table_id: str, seat: int, owner: str, now: float) -> bool: ...

    def finish_review(self, table_id: str, seat: int, owner: str, status: str, result: Any) -> None: ...
