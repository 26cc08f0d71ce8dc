"""The room's door: one frozen dataclass per command a live table takes (web/room.py).

Whoever wants something of a table — a route, the table socket, a worker's answer, the lease loop, a
notice from another server, a rematch or a review — builds one of these and hands it to the table's
room: ``await registry.call(table_id, Act(...))`` returns what the command says it returns (a
``Command[T]`` answers a ``T``), ``room.post(Tick())`` queues one nobody waits for. The room runs
them one at a time, in the order they came, with one ``match`` over :data:`RoomCommand`; the type
checker sees every caller's fields and every answer, and a command the room does not handle does not
type-check (the match ends in ``assert_never``).

Fields typed ``Any`` are a client's values as they came (a JSON body, a socket message): the
decisions check them and refuse them with one line (web/errors.py), so they are never trusted here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypedDict, TypeVar, get_args

from gamester.web import messages
from gamester.web.decisions import SeatOwner

if TYPE_CHECKING:
    from gamester.web.sockets import Connection

T = TypeVar("T")


class Command(Generic[T]):
    """A command whose answer is a ``T`` (``None``: nothing but done, or the refusal it raised)."""

    __slots__ = ()


class Joined(TypedDict):
    seat: int
    token: str
    table: str


class LeftSeat(TypedDict):
    ok: bool
    seat: int


# -- moves --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Act(Command[int]):
    """A person's move from the seat's socket: ``action`` in notation at the view's ``seq``, refused
    (``left``) once the socket's token (``token_hash``) no longer holds the seat. Answers the new seq."""

    player: int
    action: Any
    seq: Any
    token_hash: str | None = None


@dataclass(frozen=True)
class Move(Command[None]):
    """A worker's move: a bot's, or the best agent's for a seat whose clock ran out (``timeout``)."""

    seq: int
    player: int
    text: str
    source: Literal["bot", "timeout"]


@dataclass(frozen=True)
class Unthink(Command[None]):
    """The worker's job for ``seq`` failed: what is due is looked at again."""

    seq: int


@dataclass(frozen=True)
class Tick(Command[None]):
    """Look again at what is due (a timer ran out, the lease loop came round)."""


# -- sockets ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Attach(Command[int | None]):
    """A socket arrives: a seat's with ``token`` (refused if it is not one), else a spectator's, whose
    chat lines go under ``name`` and, logged in, its ``account`` (a key: its blocks hide lines from
    it, a ban refuses its lines). It gets the view, the last chat lines and the rematch. Answers the
    seat (None: a spectator)."""

    conn: Connection
    token: str | None
    name: str = "Spectator"
    account: str | None = None  # a spectator's account (its key), whose chat allowance it spends
    per_address: bool = True  # chat allowances per address too (False: --limits off)


@dataclass(frozen=True)
class Detach(Command[None]):
    conn: Connection


@dataclass(frozen=True)
class Hint(Command[None]):
    """The seat's socket asks for a hint at ``seq``; the answer comes to it later (``Hinted``)."""

    conn: Connection
    seat: int
    seq: Any


@dataclass(frozen=True)
class Hinted(Command[None]):
    """A hint job's answer, for every socket of that seat that asked at that position."""

    key: tuple[int, int]
    answer: messages.Hint | messages.Error


@dataclass(frozen=True)
class Say(Command[None]):
    """A chat line from a socket of the table."""

    conn: Connection
    text: Any


@dataclass(frozen=True)
class Heard(Command[None]):
    """Chat lines were stored through another server: read and pass on the new ones."""


@dataclass(frozen=True)
class Reblock(Command[None]):
    """``account`` blocked or unblocked someone: its sockets here read whom it blocks again."""

    account: str


@dataclass(frozen=True)
class ChatDeleted(Command[None]):
    """The moderator deleted chat lines of the table: every socket starts its chat again."""


@dataclass(frozen=True)
class Rematched(Command[None]):
    """The table has a rematch now (``table``: its id; None: read it, it was made elsewhere)."""

    table: str | None = None


# -- seats and the table ------------------------------------------------------------------------
@dataclass(frozen=True)
class Join(Command[Joined]):
    seat: Any
    name: Any
    token: Any
    owner: SeatOwner | None = None
    invite: Any = None


@dataclass(frozen=True)
class Leave(Command[LeftSeat]):
    token: Any


@dataclass(frozen=True)
class Public(Command[dict[str, Any]]):
    """The table as ``GET /api/tables/{id}`` shows it (``fresh``: read the row again first)."""

    fresh: bool = True


@dataclass(frozen=True)
class Watch(Command[None]):
    """Refused (``private_table``) unless these may see a private table."""

    invite: Any
    token: Any
    account: str | None


@dataclass(frozen=True)
class Invites(Command[dict[str, Any]]):
    token: Any


@dataclass(frozen=True)
class Record(Command[dict[str, Any]]):
    """The finished game's record (refused until it is over)."""


@dataclass(frozen=True)
class Replay(Command[dict[str, Any]]):
    seat: Any


# -- between servers ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Notice(Command[None]):
    """Another server changed the table (``kind``: ``act`` or ``table``), or notices may have been
    missed: read it again."""

    kind: str


@dataclass(frozen=True)
class Lease(Command[None]):
    """This server just took the table's lease, until ``until``."""

    until: float


RoomCommand = (
    Act
    | Move
    | Unthink
    | Tick
    | Attach
    | Detach
    | Hint
    | Hinted
    | Say
    | Heard
    | Reblock
    | ChatDeleted
    | Rematched
    | Join
    | Leave
    | Public
    | Watch
    | Invites
    | Record
    | Replay
    | Notice
    | Lease
)
"""Every command a room takes."""

COMMANDS: tuple[type[Command[Any]], ...] = get_args(RoomCommand)
