"""The table repository's port: the rows the use cases see and what they need from storage.

No SQLAlchemy here (the adapter, :mod:`gamester.store.repository`, is beside it), so the decisions
and tests that work on rows import only this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


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
    rated: bool = False
    rating_applied: bool = False
    rematch: str | None = None  # the next table at the same seats, once a seat asked for it
    seats: list[SeatRow] = field(default_factory=list)


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
        deadline_if_started: float | None,
        account: str | None = None,
    ) -> bool: ...

    def leave(self, table_id: str, seat: int, token_hash: str) -> bool: ...

    def unleased(self, now: float, limit: int) -> list[LeaseInfo]: ...

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
