"""The store's port: the rows the server sees and everything it needs from storage.

No SQLAlchemy here (the adapters, :mod:`gamester.store.repository` for tables and
:mod:`gamester.store.people` for accounts, ratings and chat, are beside it): everything outside
``store/`` imports only this and the package's ``open_stores`` (tests/test_layering.py holds it so).
Every write that moves a game on is guarded by the table's ``seq`` (two writers can never both store
action ``n``); the rules (when a table starts, what needs a runner, what a rating is) are the
caller's (``gamester.web``), the port only stores what they decided. A database that cannot be reached
or cannot keep a write raises :class:`StoreUnavailable`, whatever the driver said.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol


class StoreUnavailable(Exception):
    """The database cannot be used now: it cannot be reached, its file vanished or was replaced, it
    is locked or read-only, or it did not answer in time. Nothing was written; the caller says so
    instead of accepting what it cannot keep. ``reason``: the database's own line, where it gave one
    (for the operator: the health probe shows it, a player is told only that it is unavailable)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


@dataclass
class SeatRow:
    seat: int
    kind: str  # "human" | "bot"
    agent: str | None = None
    name: str | None = None
    token_hash: str | None = None
    account: str | None = None  # the key of the account that owns the seat (joined while logged in)
    invite_hash: str | None = None  # the seat's invite code, hashed: a new occupant must give it
    abandoned: str | None = None  # "left" | "gone": nobody holds the seat (a stand-in bot may play it)
    seen: float | None = None  # when a server last knew the seat had a socket
    waited: float = 0.0  # seconds the game waited on it without a socket, in earlier turns since seen
    played: bool = False  # its player has made a move of their own


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
    moved: float | None = None  # when the game last moved on (the wait on the seat to move counts from it)
    result: str | None = None  # "aborted" (ended without a result), else None: returns and forfeit say
    seats: list[SeatRow] = field(default_factory=list)


@dataclass(frozen=True)
class Ending:
    """How a table ends other than by its game's own end: each seat's return (None: aborted, a result
    for nobody), the seat that forfeits (or None) and the table's ``result`` (``aborted`` or None)."""

    returns: list[float] | None
    forfeit: int | None
    result: str | None


@dataclass(frozen=True)
class Abandonment:
    """What an abandoned seat becomes, as the web decides it (web/absence.py) and the store writes it:
    ``then`` is ``bot`` (``agent`` plays it on), ``forfeit`` or ``aborted`` (``end`` ends the table);
    ``keep_account``: the seat stays its account's (a rated result needs it; a player merely gone may
    come back)."""

    seat: int
    how: str  # left | gone
    then: str  # bot | forfeit | aborted
    agent: str | None
    end: Ending | None
    keep_account: bool


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
    """What the live tables need from storage."""

    def writer_if_free(self) -> contextlib.AbstractContextManager[bool]:
        """Hold this server's turn to write if nobody holds it now (True inside), without waiting
        (False: a thread is writing; write from a thread instead). On PostgreSQL always True (rows are
        locked by the database, not here)."""
        ...

    def notify_conninfo(self) -> str | None:
        """The connection string for notices between servers (PostgreSQL's LISTEN/NOTIFY), or None for
        a database only this server uses (SQLite: its writes are this server's to order)."""
        ...

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
        played: int | None = None,
        waited: tuple[int, float] | None = None,
    ) -> bool:
        """Store action ``expected_seq + 1`` if the table is still at ``expected_seq`` and playing; the
        game moved on at ``at``. ``played``: the seat whose first move of its own this is; ``waited``:
        (seat, seconds) the game waited on a seat with no socket in the turn this move ends (a move
        made for it when its clock ran out)."""
        ...

    def finish(self, table_id: str, expected_seq: int, returns: list[float], forfeit: int | None) -> bool: ...

    def abandon(self, table_id: str, expected_seq: int, plan: Abandonment, held: str | None = None) -> bool:
        """Mark the human seat ``plan.seat`` abandoned (``plan.how``: ``left`` or ``gone``), played from
        now on by ``plan.agent`` (None: nobody). With ``held`` (a seat left) only while that token holds
        the seat, and the token is void after; the seat's account stays only with ``plan.keep_account``.
        With ``plan.end`` the table ends in the same transaction (an aborted table's rating counts as
        applied: there is nothing to count). False if the table is no longer at ``expected_seq`` and
        playing, or the seat is abandoned already."""
        ...

    def take_back(
        self, table_id: str, seat: int, name: str, token_hash: str, account: str | None, now: float
    ) -> bool:
        """A person sits down at an abandoned seat of a playing table (its stand-in stops), with
        ``token_hash`` (the seat's own token back, or a new one); False if the seat is not abandoned
        any more or the table not playing."""
        ...

    def mark_seen(self, seen: list[tuple[str, int]], at: float) -> None:
        """Each (table id, seat) of ``seen`` had a socket at ``at``: its wait without one starts again."""
        ...

    def join(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        starts: Callable[[TableRow], float | bool | None],
        account: str | None = None,
        at: float | None = None,
    ) -> TableRow | None:
        """Take the free human ``seat`` (None if it is not free), for ``account`` when given, and
        return the row after it, in one transaction that holds the table: ``starts(row)`` (the row
        with the seat taken) says whether the table starts playing now, and with which deadline (a
        number or None), or not (False). ``at``: now (the seat is seen then; a table that starts has
        moved on then)."""
        ...

    def leave(self, table_id: str, seat: int, token_hash: str) -> bool: ...

    def unleased(self, now: float, limit: int) -> list[LeaseInfo]:
        """Playing tables whose lease expired or was never taken."""
        ...

    def waiting_count(self, turns_key: str) -> int:
        """Waiting tables made from the address whose key is ``turns_key`` (its lobby places)."""
        ...

    def count_by_status(self) -> dict[str, int]:
        """How many tables the database holds in each status (every server's)."""
        ...

    def watch_errors(self, fn: Callable[[str], None]) -> None:
        """Call ``fn(kind)`` for every error the database driver raises (its class name), except a
        broken constraint, which is a guard doing its work (a name taken, a move made first)."""
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


# -- people: accounts, sessions, ratings, chat (docs/web.md, People) --------------------------------
@dataclass(frozen=True)
class AccountRow:
    key: str
    name: str
    password_hash: str
    seat_key: str
    created: float
    skeleton: str | None = None  # how the name reads (web/names.py): no two accounts read alike


@dataclass(frozen=True)
class Rating:
    rating: float
    deviation: float
    volatility: float
    games: int


@dataclass(frozen=True)
class Participant:
    """One seat of a finished rated table, as the rating rule sees it."""

    seat: int
    key: str  # account key or bot key
    result: float  # the seat's return
    before: Rating


class Bucket(NamedTuple):
    """A throttle's bucket: which limit (``kind``), what it limits (``key``), its size and how many
    seconds bring one try back."""

    kind: str
    key: str
    burst: float
    every: float


RatingRule = Callable[[list[Participant], set[frozenset[int]]], list[tuple[Rating, float] | None]]
"""Each participant's new rating and its result at the table from 0 to 1, in the same order, given
the pairs of seats whose result is not to count (their pair's results of the day are used up); None
for a participant whose every comparison is such a pair (its rating stays as it was)."""


@dataclass(frozen=True)
class Rekey:
    """A new secret for an account's seat tokens (``seat_key``) and the token it derives for a
    seat: ``token_hash(table_id, seat)`` is the SHA-256 of the new token."""

    seat_key: str
    token_hash: Callable[[str, int], str]


@dataclass(frozen=True)
class Revoked:
    """What voiding an account's sessions and seat tokens did: sessions ended, and the tables not
    over whose seat tokens changed (their sockets holding the old ones are to be closed)."""

    sessions: int
    tables: list[str]


class ChatRepository(Protocol):
    """What a table's room needs of its chat and rematch."""

    def add_chat(
        self,
        table_id: str,
        seat: int | None,
        name: str,
        text: str,
        at: float,
        allowance: list[Bucket] | None = None,
        *,
        account: str | None = None,
    ) -> int | None:
        """Store a line (said by ``account``, a key, if any), spending a try of each ``allowance``
        bucket first (all or none): its id (lines of a table are ordered by id), or None if a bucket
        was empty (nothing stored). A table keeps only its last lines."""
        ...

    def last_chat(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        """The table's last ``limit`` lines, oldest first: ``{"id", "seat", "name", "text", "at",
        "account"}``."""
        ...

    def blocked_by(self, account: str) -> frozenset[str]:
        """The keys of the accounts ``account`` blocks (their lines never reach its sockets)."""
        ...

    def is_banned(self, account: str, now: float) -> bool:
        """Whether the account is banned at ``now`` (its lines are refused)."""
        ...

    def rematch_of(self, table_id: str) -> str | None: ...


class PeopleRepository(ChatRepository, Protocol):
    """Accounts, sessions, throttles, ratings and chat (thread-safe; blocking calls)."""

    def create_account(self, row: AccountRow) -> str | None:
        """None once made; else the name of the account whose name is the same or reads alike."""
        ...

    def name_like(self, skeleton: str) -> str | None: ...

    def fill_skeletons(self, skeleton: Callable[[str], str], limit: int = 10_000) -> int: ...

    def account(self, key: str) -> AccountRow | None: ...

    def add_session(self, token_hash: str, key: str, now: float, expires: float, keep: int = 50) -> None: ...

    def session_account(self, token_hash: str, now: float) -> AccountRow | None: ...

    def drop_session(self, token_hash: str) -> None: ...

    def set_password(self, key: str, was: str, new_hash: str, keep: str, rekey: Rekey) -> Revoked | None: ...

    def log_out_everywhere(self, key: str, rekey: Rekey) -> Revoked: ...

    def delete_account(self, key: str, was: str, shown_as: str) -> list[str]: ...

    def take_tokens(self, buckets: list[Bucket], now: float) -> float: ...

    def give_tokens(self, buckets: list[Bucket]) -> None: ...

    def forget_full_buckets(self, kind: str, before: float) -> int: ...

    def ratings_of(self, key: str) -> dict[str, Rating]: ...

    def leaderboard(self, game: str, limit: int) -> list[tuple[str, Rating]]: ...

    def tables_of(self, key: str, limit: int) -> list[dict[str, Any]]: ...

    def history_of(self, key: str, limit: int) -> list[dict[str, Any]]: ...

    def link_rematch(self, old_id: str, new: TableRow) -> str: ...

    def unapplied(self, limit: int) -> list[str]: ...

    def apply_rating(
        self,
        table_id: str,
        rule: RatingRule,
        now: float,
        *,
        bot_key: Callable[[str], str] = ...,
        movers: set[int] | None = None,
        pair_limit: int | None = None,
    ) -> bool: ...

    def chat_count(self, table_id: str) -> int: ...


# -- finding a game: seeks (docs/web.md, Quick play) -------------------------------------------------
@dataclass
class SeekRow:
    id: str
    token_hash: str
    pool: str
    game: str
    options: dict[str, Any]
    players: int
    rated: bool
    clock: dict[str, Any] | None
    bots_after: float | None
    fill_at: float | None
    account: str | None
    name: str
    rating: float | None
    address_key: str
    status: str
    created: float
    polled: float
    ended: float | None = None
    table_id: str | None = None
    seat: int | None = None


@dataclass
class Pool:
    """What a match is decided on: the pool's live seeks, oldest first; the blocks between their
    accounts, as (blocker, blocked); and each account's seat key (its seat tokens derive from it)."""

    seeks: list[SeekRow]
    blocks: frozenset[tuple[str, str]] = frozenset()
    seat_keys: dict[str, str] = field(default_factory=dict)


Decide = Callable[[Pool, float], "tuple[TableRow, dict[str, int]] | None"]
"""The caller's rule: a new table (its seats taken) and the seat of each seek it seats, or None."""


class SeekTimes(NamedTuple):
    """How long a seek lives at most (``life``) and without its seeker asking about it
    (``unpolled``), in seconds: the web's rule (web/seeks.py), given to the store that keeps them."""

    life: float
    unpolled: float


class SeekRepository(Protocol):
    """Seeks, matched where every server sees them (gamester/store/seeks.py): each write to a pool's
    seeks holds the pool (an advisory lock on PostgreSQL, the single writer on SQLite)."""

    def add(
        self, row: SeekRow, *, per_address: int | None, now: float, decide: Decide
    ) -> tuple[str, TableRow | None]:
        """Store a new seek and seat whoever can be seated now: ``("ok", table or None)``, or
        ``("too_many", None)`` / ``("again", None)`` (nothing stored)."""
        ...

    def get(self, seek_id: str) -> SeekRow | None: ...

    def poll(self, seek: SeekRow, now: float, decide: Decide) -> tuple[SeekRow, TableRow | None]: ...

    def cancel(self, seek_id: str, now: float) -> SeekRow | None: ...

    def open(self, now: float, limit: int) -> list[SeekRow]: ...

    def count_open(self, now: float) -> int: ...

    def sweep(self, now: float, decide: Decide, keep: float) -> tuple[int, list[TableRow]]: ...

    def withdraw_account(self, key: str, now: float) -> int: ...

    def account_tables(self, key: str, *, live: int, over: int) -> list[dict[str, Any]]:
        """Every table the account sits at not over (at most ``live``) and its ``over`` last finished
        ones, each with game, options, seed, seq, ``updated`` and the seats' ``names``."""
        ...


# -- blocks, reports, bans (docs/web.md, Blocks, reports and bans) -----------------------------------
@dataclass(frozen=True)
class Ban:
    account: str
    until: float | None  # None: for good
    reason: str | None
    created: float


class ModerationRepository(Protocol):
    """Blocks between accounts, reports and bans (gamester/store/moderation.py)."""

    def account_name(self, key: str) -> str | None: ...

    def block(self, blocker: str, blocked: str, now: float, most: int) -> str: ...

    def unblock(self, blocker: str, blocked: str) -> bool: ...

    def blocks_of(self, blocker: str) -> list[dict[str, Any]]: ...

    def related(self, key: str) -> frozenset[str]: ...

    def report(self, reporter: str, reported: str, table_id: str | None, reason: str, now: float) -> int: ...

    def reports(self, limit: int, now: float) -> list[dict[str, Any]]: ...

    def ban(self, key: str, until: float | None, reason: str | None, now: float) -> int: ...

    def unban(self, key: str) -> bool: ...

    def ban_of(self, key: str, now: float) -> Ban | None: ...

    def table_exists(self, table_id: str) -> bool: ...

    def delete_chat(self, table_id: str, name: str | None) -> int: ...

    def notify(self, channel: str, payload: str) -> bool:
        """Tell every server listening on this database (PostgreSQL's NOTIFY on ``channel``); False
        on a database that has no such thing (SQLite: servers read what changed as they go)."""
        ...


@dataclass(frozen=True)
class Stores:
    """One database's stores, as :func:`gamester.store.open_stores` opens them."""

    tables: TableRepository
    people: PeopleRepository
    seeks: SeekRepository
    moderation: ModerationRepository

    def dispose(self) -> None:
        self.tables.dispose()
