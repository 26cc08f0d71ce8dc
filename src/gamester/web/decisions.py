"""A live table's decisions: pure functions over (row, state, now), with no locks and no I/O.

Everything a table decides is here: whether a move is taken and what the row becomes after it
(:func:`act`), who may join and when the table starts playing (:func:`join`, :func:`starts`), who
leaves (:func:`leave`), the end on time (:func:`forfeit`), what each viewer is shown (:func:`frame`,
:func:`view_text`, :func:`public`), and what is due next — a bot's turn, a timer, a timeout
(:func:`due`). The room (``room.py``) awaits the repository and applies what these return; the tests
(``tests/test_web_decisions.py``) call them without a database. A refusal is a domain error
(:mod:`gamester.web.errors`: ``NotYourTurn``, ``SeatTaken``, ``Stale``…) with a machine code and one
line; what it becomes over HTTP or a WebSocket is the edge's business (:mod:`gamester.web.edge`).

What a viewer may see is built once per action from ``observation(seat)`` / ``public_observation()``
and the game's ``action_event_seen_by`` / ``last_events_seen_by``: nothing else of a state is ever
handed out before the game is over.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gamester.agents import best_agent_spec
from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.rng import derive
from gamester.store.port import NO_RUNNER, SeatRow, TableRow
from gamester.web import lessons, slow
from gamester.web.errors import (
    BadInput,
    BadToken,
    Conflict,
    IllegalAction,
    Left,
    Malformed,
    NotAllowed,
    NotOver,
    NotPlaying,
    NotTheLesson,
    NotYourTurn,
    SeatTaken,
    Stale,
)
from gamester.web.menu import MenuError, agent_menu, check_options, check_seat

SPECTATOR = -1
"""The viewer key of a spectator in frames."""

MAX_NAME = 40
MAX_SPEC = 200
MAX_ACTION = 80
KEEP_FRAMES = 8
MAX_CLOCK_SECONDS = slow.MAX_SECONDS

Frame = dict[int, tuple[str, str, str, str, str]]
"""Per viewer (a seat or SPECTATOR): the JSON text of its view, its events and its legal moves, the
extra fields of its message (a lesson's words for the lesson's pupil, else ""), and the JSON text of
the legal moves' parts (``Game.action_parts``; "" where it has no legal moves or the game gives
no parts)."""


@dataclass(frozen=True)
class SeatOwner:
    """The account a seat is joined for (docs/web.md, People): its key, the name shown, and its
    token for a seat (the same on every device)."""

    key: str
    name: str
    token_for: Callable[[str, int], str]
    shunned: frozenset[str] = frozenset()  # accounts it blocks or is blocked by: never at one table


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


# -- what viewers see -----------------------------------------------------------------------------
def viewers(n: int) -> list[int]:
    return [*range(n), SPECTATOR]


def frame(
    state: State,
    before: State | None,
    action: int | None,
    n: int,
    lesson: str | None = None,
    table_events: list[dict[str, Any]] | None = None,
) -> Frame:
    """What each viewer sees of ``state`` (reached from ``before`` by ``action``), and at a lesson's
    table (``lesson``: the tutorial's id) the pupil's ``tutorial`` field (web/lessons.py).
    ``table_events`` (public: the table's, not the game's, e.g. ``{"type": "timeout", "seat": p}``)
    come first in every viewer's events. Kept as text:
    encoded once however many sockets send it, and strings give the garbage collector nothing to scan
    (a server keeps thousands of frames)."""
    out: Frame = {}
    cp = state.current_player()
    terminal = state.is_terminal()
    legal = [] if terminal else sorted(state.legal_action_strings())  # one pass (Pentyrch overpay)
    legal_json = dumps(legal)
    parts = move_parts(state.game, legal)
    parts_json = "" if parts is None else dumps(parts)
    pupil = lessons.pupil(lesson) if lesson is not None else None
    for v in viewers(n):
        who = None if v == SPECTATOR else v
        events: list[dict[str, Any]] = list(table_events or [])
        if before is not None and action is not None:
            events.append(before.action_event_seen_by(action, who))
        events.extend(state.last_events_seen_by(who))
        view = state.public_observation() if who is None else state.observation(who)
        mine = who is not None and not terminal and cp == who
        extra = (
            ',"tutorial":' + dumps(lessons.note(lesson, state)) if lesson is not None and v == pupil else ""
        )
        out[v] = (dumps(view), dumps(events), legal_json if mine else "[]", extra, parts_json if mine else "")
    return out


def move_parts(game: Game, actions: list[str]) -> list[dict[str, Any] | None] | None:
    """The parts of each of ``actions`` (``Game.action_parts``), in the same order, or None for a
    game that gives no parts for any of them (Penneech, Piquesept, a game without the hook). Read
    from the very strings the viewer is sent, so they show nothing the strings do not."""
    parts = [game.action_parts(a) for a in actions]
    return parts if any(p is not None for p in parts) else None


def hint_parts(game: Game, action: str) -> dict[str, dict[str, Any]]:
    """The hint message's ``move``: the parts of its action, for a game that gives them; else {}."""
    p = game.action_parts(action)
    return {} if p is None else {"move": p}


def keep(frames: OrderedDict[int, Frame], seq: int, f: Frame) -> None:
    """Keep ``f`` as the frame of ``seq``, and only the last ``KEEP_FRAMES``."""
    frames[seq] = f
    while len(frames) > KEEP_FRAMES:
        frames.popitem(last=False)


def clock_json(row: TableRow, state: State, now: float) -> dict[str, Any] | None:
    if row.clock is None:
        return None
    out = dict(row.clock)
    p = state.current_player() if row.deadline is not None else None
    out["seat"] = p if p is not None and p >= 0 else None  # whose clock is running
    out["deadline"] = row.deadline
    out["remaining"] = None if row.deadline is None else max(0.0, round(row.deadline - now, 2))
    return out


def view_text(
    row: TableRow, state: State, frames: OrderedDict[int, Frame], seq: int, viewer: int, now: float
) -> tuple[str, str] | None:
    """The ``view`` message of ``seq`` for ``viewer`` as JSON text, with its status; None if that
    frame is no longer kept."""
    f = frames.get(seq)
    if f is None:
        return None
    current = seq == row.seq
    status = row.status if current else "playing"
    view, events, legal, extra, moves = f[viewer]
    if status != "playing":
        legal = "[]"
        moves = ""
    if moves:  # beside legal, only where there are legal moves and the game gives their parts
        moves = f'"moves":{moves},'
    tail = dumps(
        {
            "clock": clock_json(row, state, now) if current else None,
            "seat": None if viewer == SPECTATOR else viewer,
            "returns": row.returns if current else None,
            "forfeit": row.forfeit if current else None,
        }
    )
    text = (
        f'{{"type":"view","seq":{seq},"status":"{status}","view":{view},"legal":{legal},'
        f'{moves}"events":{events}{extra},{tail[1:]}'
    )
    return text, status


def public(row: TableRow, connected: dict[int, int]) -> dict[str, Any]:
    """The table as ``GET /api/tables/{id}`` and the ``table`` message show it."""
    return {
        "id": row.id,
        "game": row.game,
        "options": row.options,
        "status": row.status,
        "seq": row.seq,
        "seats": [
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": s.name if s.kind == "human" else s.agent,
                "agent": s.agent,
                "connected": s.kind == "bot" or connected.get(s.seat, 0) > 0,
                "joined": s.kind == "bot" or s.token_hash is not None,
                "account": s.name if s.account is not None else None,
            }
            for s in row.seats
        ],
        "returns": row.returns,
        "clock": row.clock,
        "forfeit": row.forfeit,
        "created": row.created,
        "tutorial": row.lesson,
        "rated": row.rated,
        "open": row.open,
        "private": row.private,
    }


# -- a new table ----------------------------------------------------------------------------------
def needs_runner(row: TableRow) -> bool:
    """Whether something runs for this table while it plays: a bot seat or a clock. Fixed when the
    table is created (seats and clock never change), so the row stores the answer (``NO_RUNNER``)."""
    return row.clock is not None or any(s.kind == "bot" for s in row.seats)


def new_table(
    game_name: str,
    options: dict[str, Any],
    seat_kinds: list[str],
    clock: Any,
    *,
    table_id: str,
    seed: int,
    now: float,
    creator: Any = None,
    token: str | None = None,
    lesson: str | None = None,
    rated: bool = False,
    owner: SeatOwner | None = None,
    access: tuple[bool, bool] = (False, False),
) -> tuple[TableRow, State]:
    """The row and initial state of a new table (a refusal, web/errors.py, on bad input). With
    ``creator`` (``{"seat": N, "name": "..."}``) that seat is taken with ``token`` in the same write,
    so nobody can sit down between creating and joining. ``access``: whether the table is open and
    whether it is private (``validate.access``); the caller gives out the invites
    (:func:`issue_invites`)."""
    from gamester.core.registry import load_game

    try:
        game = load_game(game_name, **options)
    except GameError as e:
        raise BadInput(str(e), code="bad_game") from None
    except (TypeError, ValueError, RecursionError) as e:
        raise BadInput(f"options: {type(e).__name__}: not valid", code="bad_game") from None
    try:
        check_options(game.name, game.options_json())
    except MenuError as e:
        raise BadInput(str(e), code="bad_options") from None
    menu = agent_menu(game.name)
    n = game.num_players
    if len(seat_kinds) != n:
        raise BadInput(
            f"seats: {game.spec()} has {n} players, "
            f'so give {n} entries ("human" or an agent spec), not {len(seat_kinds)}',
            code="bad_seats",
        )
    seats: list[SeatRow] = []
    for i, kind in enumerate(seat_kinds):
        if kind == "human":
            seats.append(SeatRow(seat=i, kind="human"))
            continue
        if len(kind) > MAX_SPEC:
            raise BadInput(f"seats[{i}]: agent spec longer than {MAX_SPEC}", code="bad_seats")
        try:  # read against the menu, never built here (the bot workers build it)
            check_seat(game, kind, menu)
        except MenuError as e:
            raise BadInput(f"seats[{i}]: {e}", code="bad_seats") from None
        seats.append(SeatRow(seat=i, kind="bot", agent=kind))
    checked = check_clock(clock)
    if rated and not any(s.kind == "human" for s in seats):
        raise BadInput("rated: a rated table needs a human seat (an account)", code="bad_rated")
    state = game.new_initial_state(seed=seed)
    status = "waiting" if any(s.kind == "human" for s in seats) else "playing"
    row = TableRow(
        id=table_id,
        game=game.name,
        options=game.options_json(),
        seed=seed,
        chance=chance_of(state),
        clock=checked,
        status=status,
        seq=0,
        created=now,
        seats=seats,
        lesson=lesson,
        rated=rated,
        open=access[0],
        private=access[1],
    )
    if not needs_runner(row):
        row.lease_owner = NO_RUNNER
    row.deadline = deadline(row, state, now) if status == "playing" else None
    if creator is not None:
        if not isinstance(creator, dict) or set(creator) - {"seat", "name"} or token is None:
            raise BadInput('join: expected {"seat": N, "name": "..."} (a human seat)', code="bad_join")
        plan = join(row, creator.get("seat"), creator.get("name"), None, token, owner)
        taken = row.seats[plan.seat]
        taken.name, taken.token_hash, taken.account = plan.name, hash_token(plan.token), plan.account
        first = starts(row, state, now)
        if not isinstance(first, bool):
            row.status, row.deadline = "playing", first
    return row, state


ALONE = 1  # seats taken at most, for a waiting table to count as abandoned (its creator, alone)


def expires(row: TableRow, watched: bool, now: float, after_seconds: float) -> bool:
    """A waiting table nobody watches here expires ``after_seconds`` after it was created if nobody,
    or only one person (its creator, who sat down in the create request), has sat down at it. A table
    with two or more seated is a gathering: it waits for the rest however long it takes."""
    if row.status != "waiting" or watched or now - row.created < after_seconds:
        return False
    return sum(s.token_hash is not None for s in row.seats) <= ALONE


def check_clock(clock: Any) -> dict[str, Any] | None:
    if clock is None:
        return None
    if not isinstance(clock, dict):
        raise BadInput(
            'clock: expected null or {"seconds_per_move": S, "on_timeout": "bot"|"forfeit"}', code="bad_clock"
        )
    unknown = sorted(set(clock) - {"seconds_per_move", "on_timeout"})
    if unknown:
        raise BadInput(
            f"clock: unknown field {short(unknown[0])}; valid: seconds_per_move, on_timeout", code="bad_clock"
        )
    s = clock.get("seconds_per_move")
    if isinstance(s, bool) or not isinstance(s, int | float) or not 1 <= s <= MAX_CLOCK_SECONDS:
        raise BadInput(
            f"clock.seconds_per_move: expected a number of seconds from 1 to {MAX_CLOCK_SECONDS} "
            f"(over {slow.GUEST_SECONDS}: a slow table, accounts only), got {short(s)}",
            code="bad_clock",
        )
    t = clock.get("on_timeout", "bot")
    if t not in ("bot", "forfeit"):
        raise BadInput(f'clock.on_timeout: expected "bot" or "forfeit", got {short(t)}', code="bad_clock")
    return {"seconds_per_move": s, "on_timeout": t}


def deadline(row: TableRow, state: State, now: float) -> float | None:
    """When the player to move runs out of time (None: no clock, a bot's turn, or over)."""
    if row.clock is None or state.is_terminal():
        return None
    p = state.current_player()
    if p < 0 or p >= len(row.seats) or row.seats[p].kind != "human":
        return None
    return now + float(row.clock["seconds_per_move"])


# -- seats ----------------------------------------------------------------------------------------
def authenticate(row: TableRow, token: Any) -> int | None:
    """The seat whose token this is (None if none): every seat is compared in constant time."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return None
    h = hash_token(token)
    found = None
    for s in row.seats:
        if s.token_hash is not None and hmac.compare_digest(h, s.token_hash):
            found = s.seat
    return found


def holds(row: TableRow, seat: int, token_hash: str | None) -> bool:
    """Whether ``token_hash`` is still ``seat``'s (False once that token has left)."""
    held = row.seats[seat].token_hash if 0 <= seat < len(row.seats) else None
    return held is not None and token_hash is not None and hmac.compare_digest(held, token_hash)


@dataclass
class Join:
    """A join to write: ``token`` is new (None: the seat's own token came back, nothing to write)."""

    seat: int
    name: str
    token: str
    new: bool
    account: str | None = None  # the key of the account the seat is taken for


def join(
    row: TableRow,
    seat: Any,
    name: Any,
    token: Any,
    new_token: str,
    owner: SeatOwner | None = None,
    invite: Any = None,
) -> Join:
    """Who joins which seat (a refusal if not): ``new_token`` is the token handed out if the
    seat is taken now; a seat's own token given back joins again without a write. With ``owner`` (a
    logged-in player) the seat is the account's, under its name and with its token for the seat, so
    the account sitting down again, from any device, gets it back. A rated table seats accounts only,
    each once (docs/web.md, People). A seat with an invite is taken only with its code (``invite``)."""
    n = len(row.seats)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise BadInput(f"seat: expected a seat number from 0 to {n - 1}, got {short(seat)}", code="bad_seat")
    if name is None:
        name = f"Player {seat + 1}"
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise BadInput(f"name: expected a name of 1 to {MAX_NAME} characters", code="bad_name")
    name = " ".join(name.split())
    s = row.seats[seat]
    if s.kind != "human":
        raise SeatTaken(f"seat {seat} is a computer player ({s.agent})")
    if token is not None:
        if (
            not isinstance(token, str)
            or s.token_hash is None
            or not hmac.compare_digest(hash_token(token), s.token_hash)
        ):
            raise BadToken(f"seat {seat}: that token is not this seat's")
        return Join(seat, name, token, new=False)
    if owner is not None:
        mine = owner.token_for(row.id, seat)
        if s.account == owner.key and s.token_hash is not None:  # its own seat, from another device
            return Join(seat, owner.name, mine, new=False, account=owner.key)
        if row.rated and any(o.account == owner.key for o in row.seats):
            raise SeatTaken("rated: an account takes one seat of a rated table")
        if any(o.account in owner.shunned for o in row.seats if o.token_hash is not None):
            raise Conflict("someone at this table has blocked you, or you them", code="blocked")
        name, new_token = owner.name, mine
    elif row.rated:
        raise BadInput("rated: log in to sit at a rated table", code="account_needed")
    elif slow.is_slow(row.clock):
        raise BadInput("a slow table (a long clock) seats accounts: log in first", code="account_needed")
    if s.token_hash is not None:
        raise SeatTaken(f"seat {seat} is taken")
    if s.invite_hash is not None and not _matches(invite, s.invite_hash):
        if invite is None:
            raise NotAllowed(f"seat {seat} is kept for a friend: use its invite link", code="invite_needed")
        raise NotAllowed(f"seat {seat}: that invite is not this seat's", code="bad_invite")
    return Join(seat, name, new_token, new=True, account=None if owner is None else owner.key)


def starts(row: TableRow, state: State, now: float) -> float | bool | None:
    """Waiting → playing: once no human seat is free the table starts. Returns False if it does not
    start now, else the deadline of the first move (None without a clock)."""
    if row.status != "waiting" or any(s.kind == "human" and s.token_hash is None for s in row.seats):
        return False
    return deadline(row, state, now)


def leave(row: TableRow, token: Any) -> tuple[int, str]:
    """The seat ``token`` leaves and its token hash (``BadToken`` if it holds none)."""
    seat = authenticate(row, token)
    held = row.seats[seat].token_hash if seat is not None else None
    if seat is None or held is None:
        raise BadToken("token: not a seat's token at this table")
    return seat, held


# -- invites --------------------------------------------------------------------------------------
# A table that is not open keeps each free human seat for whoever has its invite code; a private
# table is also unlisted and watched only with a code (the watch code, or any seat's invite). Only
# hashes are stored. The codes are derived from a secret (the creator's token when the creator sits
# down in the create request), so the creator can ask for them again (:func:`invites_for`).
def _code(secret: str, table_id: str, label: str) -> str:
    mac = hmac.new(secret.encode("utf-8", "surrogatepass"), f"{table_id}:{label}".encode(), "sha256")
    return base64.urlsafe_b64encode(mac.digest()[:18]).decode("ascii")


def _matches(code: Any, held: str | None) -> bool:
    ok_type = isinstance(code, str) and 0 < len(code) <= 200
    return ok_type and held is not None and hmac.compare_digest(hash_token(code), held)


def issue_invites(row: TableRow, secret: str) -> dict[str, Any]:
    """Give every free human seat of a table that is not open an invite (and a private table its
    watch code), derived from ``secret``: ``{"invites": {"1": CODE}, "watch": CODE}`` as the creator
    is told (``watch`` only when private)."""
    out: dict[str, Any] = {"invites": {}}
    for s in row.seats:
        if s.kind == "human" and s.token_hash is None and not row.open:
            code = _code(secret, row.id, f"seat{s.seat}")
            s.invite_hash = hash_token(code)
            out["invites"][str(s.seat)] = code
    if row.private:
        code = _code(secret, row.id, "watch")
        row.watch_hash = hash_token(code)
        out["watch"] = code
    return out


def invites_for(row: TableRow, token: Any) -> dict[str, Any]:
    """The codes ``issue_invites`` gave out with the creator's ``token``, again (``BadToken``
    unless the token is a seat's; another seat's token finds none)."""
    if authenticate(row, token) is None:
        raise BadToken("token: not a seat's token at this table")
    out: dict[str, Any] = {"invites": {}}
    for s in row.seats:
        code = _code(token, row.id, f"seat{s.seat}")
        if _matches(code, s.invite_hash):
            out["invites"][str(s.seat)] = code
    code = _code(token, row.id, "watch")
    if _matches(code, row.watch_hash):
        out["watch"] = code
    return out


def rematch_invite(old: SeatRow, table_id: str) -> str | None:
    """The invite of ``old``'s seat at the rematch ``table_id``: derived from the old seat's token
    hash (which only the server holds), so the seat asking for the rematch sits down with it and
    nobody from the lobby can take it first. None for a seat nobody held."""
    return None if old.token_hash is None else _code(old.token_hash, table_id, f"rematch{old.seat}")


def may_watch(row: TableRow, invite: Any = None, token: Any = None, account: str | None = None) -> bool:
    """Whether a viewer may see the table: anyone, unless it is private; then a seat's token, an
    account holding a seat, the watch code or any seat's invite."""
    if not row.private or authenticate(row, token) is not None:
        return True
    if account is not None and any(s.account == account for s in row.seats):
        return True
    return _matches(invite, row.watch_hash) or any(_matches(invite, s.invite_hash) for s in row.seats)


def check_watch(row: TableRow, invite: Any = None, token: Any = None, account: str | None = None) -> None:
    if not may_watch(row, invite, token, account):
        raise NotAllowed("this table is private: open it with its invite link", code="private_table")


# -- moves ----------------------------------------------------------------------------------------
@dataclass
class Move:
    """A move taken: what to write (``seq`` is the one it was made at) and the state after it."""

    seq: int
    action: int
    text: str
    state: State
    status: str
    deadline: float | None
    returns: list[float] | None
    chance: list[Any] | None  # the record's chance if the move drew any, else None
    chance_len: int
    frame: Frame


def act(
    row: TableRow,
    state: State,
    chance_len: int,
    player: int,
    text: Any,
    seq: Any,
    now: float,
    *,
    source: str = "human",
    token_hash: str | None = None,
) -> Move:
    """Play ``text`` for ``player`` if ``seq`` is the table's (a refusal if not). With
    ``token_hash`` (a human's socket) the move is refused (``left``) unless that token still holds the
    seat; a ``timeout`` move only once the clock has run out. ``state`` is not changed."""
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise Malformed("seq: required, a whole number (the view's seq)")
    if not isinstance(text, str) or not text or len(text) > MAX_ACTION:
        raise Malformed(f"action: expected an action in notation, got {short(text)}")
    if token_hash is not None and not holds(row, player, token_hash):
        raise Left("this token has left the seat")
    if row.status == "waiting":
        raise NotPlaying("the table is waiting for players")
    if row.status == "over":
        raise NotPlaying("the game is over", code="game_over")
    if seq != row.seq:
        raise Stale(f"seq {seq} is not the table's ({row.seq}): the view is out of date")
    if state.current_player() != player:
        raise NotYourTurn(f"it is not seat {player}'s turn")
    if source == "timeout" and (row.deadline is None or row.deadline > now):
        raise Stale("the clock has not run out")
    try:
        a = state.string_to_action(text)
    except GameError as e:
        raise IllegalAction(str(e)) from None
    except Exception:  # noqa: BLE001 - any parse failure is bad input
        raise IllegalAction(f"{short(text)} is not an action") from None
    if a not in state.legal_actions():
        legal = sorted(state.legal_action_strings())
        raise IllegalAction(f"{text!r} is not legal now; legal: " + " ".join(legal))
    canonical = state.action_to_string(a)
    if row.lesson is not None and source == "human":
        why = lessons.refusal(row.lesson, state, player, canonical)
        if why is not None:  # explained, never played: as the terminal's lesson does
            raise NotTheLesson(why)
    new = state.clone()
    new.apply_action(a)
    over = new.is_terminal()
    chance_now = len(new.chance.log)  # counted, not completed (a pack is a shuffle)
    return Move(
        seq=seq,
        action=a,
        text=canonical,
        state=new,
        status="over" if over else "playing",
        deadline=None if over else deadline(row, new, now),
        returns=list(new.returns()) if over else None,
        chance=chance_of(new) if chance_now != chance_len else None,
        chance_len=chance_now,
        frame=frame(new, state, a, len(row.seats), row.lesson, timed_out(source, player)),
    )


def timed_out(source: str, player: int) -> list[dict[str, Any]] | None:
    """The table event of a move the best agent made for ``player`` because the clock ran out."""
    return [{"type": "timeout", "seat": player}] if source == "timeout" else None


def applied(row: TableRow, move: Move) -> None:
    """The row once ``move`` is stored."""
    row.seq = move.seq + 1
    row.status = move.status
    row.deadline = move.deadline
    row.returns = move.returns
    if move.chance is not None:
        row.chance = move.chance


def forfeit(row: TableRow, state: State, now: float) -> tuple[list[float], int] | None:
    """Under ``on_timeout: forfeit``, the player to move who ran out of time loses: (returns, seat),
    or None if nobody has run out."""
    if row.status != "playing" or row.deadline is None or row.deadline > now:
        return None
    p = state.current_player()
    n = len(row.seats)
    if not 0 <= p < n:
        return None
    returns = [1.0 / (n - 1)] * n
    returns[p] = -1.0
    return returns, p


# -- what is due next -----------------------------------------------------------------------------
@dataclass
class Due:
    """What a table's runner does next: ``kind`` is ``none``, ``bot`` (a bot is to move), ``wait``
    (a clock runs out at ``at``), ``timeout`` (a seat ran out: the best agent moves for it) or
    ``forfeit`` (a seat ran out and loses)."""

    kind: str
    at: float | None = None


def bot_to_move(row: TableRow, state: State) -> bool:
    p = state.current_player()
    return row.status == "playing" and 0 <= p < len(row.seats) and row.seats[p].kind == "bot"


def due(row: TableRow, state: State, now: float) -> Due:
    if row.status != "playing" or not needs_runner(row):
        return Due("none")
    if bot_to_move(row, state):
        return Due("bot")
    if row.deadline is None:
        return Due("none")
    if row.deadline > now:
        return Due("wait", row.deadline)
    if row.clock is not None and row.clock.get("on_timeout") == "forfeit":
        return Due("forfeit")
    return Due("timeout")


@dataclass
class Job:
    """Work for a worker process: a bot move, a move for a timed-out seat, or a hint."""

    table_id: str
    seq: int
    player: int
    spec: str
    record: dict[str, Any]
    seed: int
    kind: str  # "bot" | "timeout" | "hint"
    lesson: str | None = None  # a lesson's bots play the lesson's own line (web/bots.py)


def job(row: TableRow, state: State, kind: str) -> Job | None:
    """A worker's job for the position now: the bot to move (``bot``), the best agent for the seat to
    move (``timeout``, ``hint``); None if there is none."""
    if row.status != "playing":
        return None
    p = state.current_player()
    if not 0 <= p < len(row.seats):
        return None
    if kind == "bot":
        if row.seats[p].kind != "bot":
            return None
        spec = row.seats[p].agent or "random"
    else:
        spec = best_agent_spec(row.game)
    return Job(
        table_id=row.id,
        seq=row.seq,
        player=p,
        spec=spec,
        record=state.record(),
        seed=derive(row.seed, kind, row.seq),
        kind=kind,
        lesson=row.lesson if kind == "bot" else None,
    )


def check_hint(row: TableRow, state: State, player: int, seq: Any) -> None:
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise Malformed("seq: required, a whole number (the view's seq)")
    if row.status != "playing":
        code = "not_playing" if row.status == "waiting" else "game_over"
        raise NotPlaying("no hints: the table is not playing", code=code)
    if seq != row.seq:
        raise Stale(f"seq {seq} is not the table's ({row.seq})")
    if state.current_player() != player:
        raise NotYourTurn(f"it is not seat {player}'s turn")


# -- after the end --------------------------------------------------------------------------------
def record(row: TableRow, state: State) -> dict[str, Any]:
    if row.status != "over":
        raise NotOver("the record is given out once the game is over")
    rec = state.record()
    if row.forfeit is not None:
        rec["result"] = {"forfeit": row.forfeit, "returns": row.returns}
    return rec


def check_replay_seat(row: TableRow, seat: Any) -> None:
    n = len(row.seats)
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
        raise BadInput(f"seat: expected a seat number from 0 to {n - 1}", code="bad_seat")


def replay(row: TableRow, rec: dict[str, Any], seat: Any) -> dict[str, Any]:
    """Every step of a finished game as ``seat`` (None: a spectator) saw it."""
    from gamester.core.registry import load_game

    check_replay_seat(row, seat)
    game: Game = load_game(rec["game"], **rec["options"])
    state = game.new_initial_state(seed=rec["seed"], chance=rec["chance"])
    who = None if seat is None else seat

    def view() -> dict[str, Any]:
        return state.public_observation() if who is None else state.observation(who)

    steps = [{"seq": 0, "action": None, "view": view(), "events": state.last_events_seen_by(who)}]
    for i, text in enumerate(rec["actions"]):
        a = state.string_to_action(text)
        ev = state.action_event_seen_by(a, who)
        state.apply_action(a)
        steps.append(
            {
                "seq": i + 1,
                "action": ev.get("action"),
                "player": ev.get("player"),
                "view": view(),
                "events": [ev, *state.last_events_seen_by(who)],
            }
        )
    return {
        "id": row.id,
        "game": rec["game"],
        "seat": seat,
        "steps": steps,
        "returns": row.returns,
        "forfeit": row.forfeit,
    }


# -- small helpers --------------------------------------------------------------------------------
def chance_of(state: State) -> list[Any]:
    g = state.game
    return [g.format_chance(e) for e in state.chance.entries()]


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
