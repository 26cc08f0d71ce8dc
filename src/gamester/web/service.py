"""The server's use cases: create a table, join, leave, act, hint, time out — no HTTP, no asyncio.

A :class:`TableService` owns an in-memory cache of live states (rebuilt from the stored record with the
game's own ``apply_action``) and a :class:`~gamester.store.TableRepository`. Every method is safe to
call from any thread: one lock per table guards ``act`` and everything else that moves a game on.

An action is checked by the engine on a clone, written in one transaction with the table's new ``seq``
(``append_action`` refuses if another writer got there first), and only then becomes the cached state
and is announced through the notifier. What a viewer may see is built here, once per action, from
``observation(seat)`` / ``public_observation()`` and the game's ``action_event_seen_by`` /
``last_events_seen_by``: nothing else of a state is ever handed out before the game is over.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gamester.agents import best_agent_spec
from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.registry import game_class, game_names, load_game
from gamester.store.repository import SeatRow, TableRepository, TableRow
from gamester.web.menu import MenuError, agent_menu, caps_json, check_options, check_seat

SPECTATOR = -1
"""The viewer key of a spectator in frames."""

MAX_NAME = 40
MAX_SPEC = 200
MAX_ACTION = 80
KEEP_FRAMES = 8
MAX_CLOCK_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class SeatOwner:
    """The account a seat is joined for (docs/web.md, People): its key, the name shown, and its
    token for a seat (the same on every device)."""

    key: str
    name: str
    token_for: Callable[[str, int], str]


class ServiceError(Exception):
    """A refused request: ``code`` for WebSocket errors, ``status`` for HTTP."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


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


@dataclass
class Entry:
    """One table in memory: its row (meta), its state at ``row.seq``, recent frames."""

    row: TableRow
    state: State
    lock: threading.RLock = field(default_factory=threading.RLock)
    frames: OrderedDict[int, dict[int, tuple[str, str, str]]] = field(default_factory=OrderedDict)
    chance_len: int = 0
    connected: dict[int, int] = field(default_factory=dict)


def _viewers(n: int) -> list[int]:
    return [*range(n), SPECTATOR]


def _frame(state: State, before: State | None, action: int | None, n: int) -> dict[int, tuple[str, str, str]]:
    """What each viewer sees of ``state`` (reached from ``before`` by ``action``): the JSON of its
    view, its events and its legal moves. Kept as text: encoded once however many sockets send it,
    and strings give the garbage collector nothing to scan (a server keeps thousands of frames)."""
    out: dict[int, tuple[str, str, str]] = {}
    cp = state.current_player()
    terminal = state.is_terminal()
    legal = [] if terminal else sorted(state.legal_action_strings())  # one pass (Pentyrch overpay)
    legal_json = _json(legal)
    for v in _viewers(n):
        who = None if v == SPECTATOR else v
        events: list[dict[str, Any]] = []
        if before is not None and action is not None:
            events.append(before.action_event_seen_by(action, who))
        events.extend(state.last_events_seen_by(who))
        view = state.public_observation() if who is None else state.observation(who)
        mine = who is not None and not terminal and cp == who
        out[v] = (_json(view), _json(events), legal_json if mine else "[]")
    return out


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class TableService:
    """The use cases over a repository; ``notify(table_id, kind)`` is called after each commit."""

    def __init__(
        self,
        repo: TableRepository,
        notify: Callable[[str, str], None] | None = None,
        *,
        clock: Callable[[], float] = time.time,
        max_cached: int = 5000,
    ) -> None:
        self.repo = repo
        self.notify = notify or (lambda _t, _k: None)
        self.now = clock
        self._cache: OrderedDict[str, Entry] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._max_cached = max_cached
        self.on_over: Callable[[str], None] | None = None
        """Called (outside the table's lock) once a rated table has ended here: the ratings' hook."""

    def _ended(self, table_id: str) -> None:
        if self.on_over is None:
            return
        try:
            self.on_over(table_id)
        except Exception:  # noqa: BLE001 - the move stands; the rating is caught up later
            import logging

            logging.getLogger("gamester.web").exception("rating table %s failed", table_id)

    # -- the cache -----------------------------------------------------------------------------
    def _build(self, row: TableRow) -> Entry:
        game = load_game(row.game, **row.options)
        # From the seed, not the stored chance: a state given a chance list cannot draw past its end,
        # and the table's next deal needs new packs. The stored chance is checked against it below.
        state = game.new_initial_state(seed=row.seed)
        n = game.num_players
        acts = self.repo.actions(row.id) if row.seq else []
        frames: OrderedDict[int, dict[int, tuple[str, str, str]]] = OrderedDict()
        start = max(0, len(acts) - KEEP_FRAMES)
        if start == 0:
            frames[0] = _frame(state, None, None, n)
        for i, text in enumerate(acts):
            a = state.string_to_action(text)
            if i + 1 > start:
                before = state.clone()
                state.apply_action(a)
                frames[i + 1] = _frame(state, before, a, n)
            else:
                state.apply_action(a)
        row.seq = len(acts)
        now = _chance(state)
        if now[: len(row.chance)] != row.chance[: len(now)]:
            raise ServiceError("corrupt", f"table {row.id}: its stored chance does not match its seed", 409)
        return Entry(row=row, state=state, frames=frames, chance_len=len(now))

    def _entry(self, table_id: str, *, sync: bool = True) -> Entry:
        """The cached entry, brought up to date with the database when ``sync``."""
        with self._cache_lock:
            entry = self._cache.get(table_id)
            if entry is not None:
                self._cache.move_to_end(table_id)
        if entry is None:
            row = self.repo.get(table_id)
            if row is None:
                raise ServiceError("no_table", f"no table {table_id!r}", 404)
            entry = self._build(row)
            with self._cache_lock:
                entry = self._cache.setdefault(table_id, entry)
                while len(self._cache) > self._max_cached:
                    self._cache.popitem(last=False)
            return entry
        if sync:
            self._sync(entry)
        return entry

    def _sync(self, entry: Entry) -> None:
        # The read is inside the table's lock: two syncs at once (a socket authenticating while its
        # token leaves) then apply in the order they read, and an older read never replaces a newer.
        with entry.lock:
            row = self.repo.get(entry.row.id)
            if row is None:
                raise ServiceError("no_table", f"no table {entry.row.id!r}", 404)
            if row.seq > entry.row.seq:
                n = entry.state.game.num_players
                for text in self.repo.actions(row.id, after=entry.row.seq)[: row.seq - entry.row.seq]:
                    a = entry.state.string_to_action(text)
                    before = entry.state.clone()
                    entry.state.apply_action(a)
                    entry.row.seq += 1
                    self._keep(entry, _frame(entry.state, before, a, n))
            connected = entry.connected
            row.seq = entry.row.seq
            entry.row = row
            entry.connected = connected

    def _keep(self, entry: Entry, frame: dict[int, tuple[str, str, str]]) -> None:
        entry.frames[entry.row.seq] = frame
        while len(entry.frames) > KEEP_FRAMES:
            entry.frames.popitem(last=False)

    def cached(self, table_id: str) -> bool:
        return table_id in self._cache

    def load(self, table_id: str) -> None:
        """Have the table in the cache (read from the database if it is not)."""
        self._entry(table_id, sync=False)

    def after_lease(self, table_id: str) -> None:
        """A lease was just taken: read the row again (taking it over moves the clock on by the time
        nobody ran the table) and tell the sockets if the clock moved."""
        entry = self._entry(table_id, sync=False)
        before = entry.row.deadline
        self._sync(entry)
        if entry.row.deadline != before:
            self.notify(table_id, "table")

    def clock_of(self, table_id: str) -> dict[str, Any] | None:
        return self._entry(table_id, sync=False).row.clock

    def public_table_cached(self, table_id: str) -> dict[str, Any]:
        return self._public(self._entry(table_id, sync=False))

    def refresh(self, table_id: str) -> None:
        """Bring the cache up to date after another server's commit (a notification)."""
        with self._cache_lock:
            entry = self._cache.get(table_id)
        if entry is not None:
            self._sync(entry)

    # -- describing ----------------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        from gamester.core.options import describe_options

        out = []
        for name in game_names():
            try:
                cls = game_class(name)
            except Exception:  # noqa: BLE001 - a broken third-party game must not break the lobby
                continue
            players = _player_counts(cls)
            opts = []
            import dataclasses

            fields = {f.name: f for f in dataclasses.fields(cls.options_class)}
            for opt, default, values, doc in describe_options(cls.options_class):
                f = fields[opt]
                choices = f.metadata.get("choices")
                t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
                opts.append(
                    {
                        "name": opt,
                        "type": t,
                        "default": default,
                        "values": values,
                        "choices": list(choices) if choices is not None else None,
                        "doc": doc,
                    }
                )
            rulesets = [
                {"name": rs.name, "options": dict(rs.options), "source": rs.source, "reading": rs.reading}
                for rs in cls.rulesets.values()
            ]
            out.append(
                {
                    "name": name,
                    "title": cls.title,
                    "players": players,
                    "options": opts,
                    "rulesets": rulesets,
                    "agents": agent_menu(name),
                    "caps": caps_json(name),
                }
            )
        return out

    def public_table(self, table_id: str) -> dict[str, Any]:
        entry = self._entry(table_id)
        return self._public(entry)

    def _public(self, entry: Entry) -> dict[str, Any]:
        r = entry.row
        return {
            "id": r.id,
            "game": r.game,
            "options": r.options,
            "status": r.status,
            "seq": r.seq,
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "name": s.name if s.kind == "human" else s.agent,
                    "agent": s.agent,
                    "connected": s.kind == "bot" or entry.connected.get(s.seat, 0) > 0,
                    "joined": s.kind == "bot" or s.token_hash is not None,
                    "account": s.name if s.account is not None else None,
                }
                for s in r.seats
            ],
            "returns": r.returns,
            "clock": r.clock,
            "forfeit": r.forfeit,
            "created": r.created,
            "rated": r.rated,
        }

    def list_tables(self, status: str | None, limit: int) -> list[dict[str, Any]]:
        out = []
        for row in self.repo.list_tables(status, limit):
            with self._cache_lock:
                entry = self._cache.get(row.id)
            connected = entry.connected if entry is not None else {}
            tmp = Entry(row=row, state=None, connected=connected)  # type: ignore[arg-type]
            out.append(self._public(tmp))
        return out

    # -- create, join, leave -------------------------------------------------------------------
    def create_table(
        self,
        game_name: str,
        options: dict[str, Any],
        seat_kinds: list[str],
        clock: dict[str, Any] | None,
        *,
        rated: bool = False,
    ) -> dict[str, Any]:
        try:
            game = load_game(game_name, **options)
        except GameError as e:
            raise ServiceError("bad_game", str(e), 422) from None
        except (TypeError, ValueError, RecursionError) as e:
            raise ServiceError("bad_game", f"options: {type(e).__name__}: not valid", 422) from None
        try:
            check_options(game.name, game.options_json())
        except MenuError as e:
            raise ServiceError("bad_options", str(e), 422) from None
        menu = agent_menu(game.name)
        n = game.num_players
        if len(seat_kinds) != n:
            raise ServiceError(
                "bad_seats",
                f"seats: {game.spec()} has {n} players, "
                f'so give {n} entries ("human" or an agent spec), not {len(seat_kinds)}',
                422,
            )
        seats: list[SeatRow] = []
        for i, kind in enumerate(seat_kinds):
            if kind == "human":
                seats.append(SeatRow(seat=i, kind="human"))
                continue
            if len(kind) > MAX_SPEC:
                raise ServiceError("bad_seats", f"seats[{i}]: agent spec longer than {MAX_SPEC}", 422)
            try:  # read against the menu, never built here (the bot workers build it)
                check_seat(game.name, kind, menu)
            except MenuError as e:
                raise ServiceError("bad_seats", f"seats[{i}]: {e}", 422) from None
            seats.append(SeatRow(seat=i, kind="bot", agent=kind))
        clock = check_clock(clock)
        if rated and not any(s.kind == "human" for s in seats):
            raise ServiceError("bad_rated", "rated: a rated table needs a human seat (an account)", 422)
        seed = secrets.randbits(62)
        state = game.new_initial_state(seed=seed)
        now = self.now()
        status = "waiting" if any(s.kind == "human" for s in seats) else "playing"
        row = TableRow(
            id=secrets.token_urlsafe(12),
            game=game.name,
            options=game.options_json(),
            seed=seed,
            chance=_chance(state),
            clock=clock,
            status=status,
            seq=0,
            created=now,
            rated=rated,
            seats=seats,
        )
        row.deadline = self._deadline(row, state) if status == "playing" else None
        self.repo.create(row)
        entry = Entry(row=row, state=state, chance_len=len(state.chance.entries()))
        entry.frames[0] = _frame(state, None, None, n)
        with self._cache_lock:
            self._cache[row.id] = entry
        self.notify(row.id, "table")
        return self._public(entry)

    def _deadline(self, row: TableRow, state: State) -> float | None:
        """When the player to move runs out of time (None: no clock, a bot's turn, or over)."""
        if row.clock is None or state.is_terminal():
            return None
        p = state.current_player()
        if p < 0 or p >= len(row.seats) or row.seats[p].kind != "human":
            return None
        return self.now() + float(row.clock["seconds_per_move"])

    def join(
        self, table_id: str, seat: Any, name: Any, token: Any = None, account: SeatOwner | None = None
    ) -> dict[str, Any]:
        """Take a seat (a new token), or prove a token is the seat's. With ``account``: the seat is
        the account's, its name the account's, and its token the account's token for it (so the
        account sitting down again, from any device, gets it back). A rated table seats accounts only,
        each once."""
        entry = self._entry(table_id)
        n = len(entry.row.seats)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ServiceError(
                "bad_seat", f"seat: expected a seat number from 0 to {n - 1}, got {_short(seat)}", 422
            )
        if name is None:
            name = f"Player {seat + 1}"
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise ServiceError("bad_name", f"name: expected a name of 1 to {MAX_NAME} characters", 422)
        name = " ".join(name.split())
        s = entry.row.seats[seat]
        if s.kind != "human":
            raise ServiceError("seat_taken", f"seat {seat} is a computer player ({s.agent})", 409)
        if account is not None and token is None:
            if s.account == account.key:  # the account's own seat, from another device
                return {"seat": seat, "token": account.token_for(table_id, seat), "table": table_id}
            if entry.row.rated and any(o.account == account.key for o in entry.row.seats):
                raise ServiceError("seat_taken", "rated: an account takes one seat of a rated table", 409)
            name = account.name
        elif entry.row.rated and token is None:
            raise ServiceError("account_needed", "rated: log in to sit at a rated table", 422)
        if token is not None:
            if (
                not isinstance(token, str)
                or s.token_hash is None
                or not hmac.compare_digest(hash_token(token), s.token_hash)
            ):
                raise ServiceError("bad_token", f"seat {seat}: that token is not this seat's", 403)
            return {"seat": seat, "token": token, "table": table_id}
        if s.token_hash is not None:
            raise ServiceError("seat_taken", f"seat {seat} is taken", 409)
        new_token = secrets.token_urlsafe(24) if account is None else account.token_for(table_id, seat)
        with entry.lock:
            deadline = self._deadline(entry.row, entry.state)
            owner = None if account is None else account.key
            if not self.repo.join(table_id, seat, name, hash_token(new_token), deadline, account=owner):
                raise ServiceError("seat_taken", f"seat {seat} is taken", 409)
            self._sync(entry)
        self.notify(table_id, "table")
        return {"seat": seat, "token": new_token, "table": table_id}

    def leave(self, table_id: str, token: Any) -> dict[str, Any]:
        entry = self._entry(table_id)
        seat = self.authenticate(table_id, token)
        if seat is None:
            raise ServiceError("bad_token", "token: not a seat's token at this table", 403)
        s = entry.row.seats[seat]
        assert s.token_hash is not None
        if not self.repo.leave(table_id, seat, s.token_hash):
            raise ServiceError("bad_token", "token: not a seat's token at this table", 403)
        self._sync(entry)
        self.notify(table_id, "table")
        return {"ok": True, "seat": seat}

    def authenticate(self, table_id: str, token: Any) -> int | None:
        """The seat whose token this is (None if none): every seat is compared in constant time."""
        if not isinstance(token, str) or not token or len(token) > 200:
            return None
        entry = self._entry(table_id)
        h = hash_token(token)
        found = None
        for s in entry.row.seats:
            if s.token_hash is not None and hmac.compare_digest(h, s.token_hash):
                found = s.seat
        return found

    def holds(self, table_id: str, seat: int, token_hash: str) -> bool:
        """Whether ``token_hash`` is still ``seat``'s (False once that token has left)."""
        current = self.seat_token_hash(table_id, seat)
        return current is not None and hmac.compare_digest(current, token_hash)

    def seat_token_hash(self, table_id: str, seat: int) -> str | None:
        seats = self._entry(table_id, sync=False).row.seats
        return seats[seat].token_hash if 0 <= seat < len(seats) else None

    def set_connected(self, table_id: str, seat: int, delta: int) -> None:
        entry = self._entry(table_id, sync=False)
        with entry.lock:
            entry.connected[seat] = max(0, entry.connected.get(seat, 0) + delta)
        self.notify(table_id, "local")

    # -- acting --------------------------------------------------------------------------------
    def act(
        self,
        table_id: str,
        player: int,
        text: Any,
        seq: Any,
        *,
        source: str = "human",
        token_hash: str | None = None,
    ) -> int:
        """Play ``text`` for ``player`` if ``seq`` is the table's; returns the new seq. With
        ``token_hash`` (a human's socket) the move is refused (``left``) unless that token still holds
        the seat."""
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise ServiceError("bad_message", "seq: required, a whole number (the view's seq)")
        if not isinstance(text, str) or not text or len(text) > MAX_ACTION:
            raise ServiceError("bad_message", f"action: expected an action in notation, got {_short(text)}")
        # The cache is not re-read here: the seq-guarded write below refuses a move if another
        # server got there first, and then the cache is brought up to date.
        entry = self._entry(table_id, sync=False)
        with entry.lock:
            row, state = entry.row, entry.state
            if token_hash is not None:
                held = row.seats[player].token_hash if 0 <= player < len(row.seats) else None
                if held is None or not hmac.compare_digest(held, token_hash):
                    raise ServiceError("left", "this token has left the seat")
            if row.status == "waiting":
                raise ServiceError("not_playing", "the table is waiting for players")
            if row.status == "over":
                raise ServiceError("game_over", "the game is over")
            if seq != row.seq:
                raise ServiceError(
                    "stale", f"seq {seq} is not the table's ({row.seq}): the view is out of date"
                )
            if state.current_player() != player:
                raise ServiceError("not_your_turn", f"it is not seat {player}'s turn")
            if source == "timeout" and (row.deadline is None or row.deadline > self.now()):
                raise ServiceError("stale", "the clock has not run out")
            try:
                a = state.string_to_action(text)
            except GameError as e:
                raise ServiceError("illegal_action", str(e)) from None
            except Exception:  # noqa: BLE001 - any parse failure is bad input
                raise ServiceError("illegal_action", f"{_short(text)} is not an action") from None
            if a not in state.legal_actions():
                legal = sorted(state.legal_action_strings())
                raise ServiceError("illegal_action", f"{text!r} is not legal now; legal: " + " ".join(legal))
            canonical = state.action_to_string(a)
            new = state.clone()
            new.apply_action(a)
            over = new.is_terminal()
            chance_now = len(new.chance.entries())
            chance = _chance(new) if chance_now != entry.chance_len else None
            tmp_row_status = "over" if over else "playing"
            deadline = None if over else self._deadline(row, new)
            returns = list(new.returns()) if over else None
            # The views are built before the write: once it has committed, nothing may fail before
            # the cache holds the new position too.
            frame = _frame(new, state, a, len(row.seats))
            if not self.repo.append_action(
                table_id,
                seq,
                canonical,
                self.now(),
                chance=chance,
                status=tmp_row_status,
                deadline=deadline,
                returns=returns,
            ):
                self._sync(entry)
                raise ServiceError("stale", "another move was made first; the view is out of date")
            entry.state = new
            entry.chance_len = chance_now
            row.seq += 1
            row.status = tmp_row_status
            row.deadline = deadline
            row.returns = returns
            if chance is not None:
                row.chance = chance
            self._keep(entry, frame)
            new_seq = row.seq
        if over and entry.row.rated:
            self._ended(table_id)
        self.notify(table_id, "act")
        return new_seq

    def forfeit(self, table_id: str, seq: int) -> bool:
        """The player to move ran out of time under ``on_timeout: forfeit``: the game ends."""
        entry = self._entry(table_id)
        with entry.lock:
            row, state = entry.row, entry.state
            if row.status != "playing" or row.seq != seq or row.deadline is None or row.deadline > self.now():
                return False
            p = state.current_player()
            n = len(row.seats)
            returns = [1.0 / (n - 1)] * n
            returns[p] = -1.0
            if not self.repo.finish(table_id, seq, returns, p):
                self._sync(entry)
                return False
            row.status, row.returns, row.forfeit, row.deadline = "over", returns, p, None
            rated = row.rated
        if rated:
            self._ended(table_id)
        self.notify(table_id, "table")
        return True

    # -- what the runtime and the clients read -------------------------------------------------
    def message_text(self, table_id: str, viewer: int, seq: int) -> tuple[str, str] | None:
        """The ``view`` message of ``seq`` for ``viewer`` (a seat or SPECTATOR) as JSON text, with its
        status; None if that frame is no longer kept."""
        entry = self._entry(table_id, sync=False)
        with entry.lock:
            frame = entry.frames.get(seq)
            if frame is None:
                return None
            row = entry.row
            current = seq == row.seq
            status = row.status if current else "playing"
            view, events, legal = frame[viewer]
            if status != "playing":
                legal = "[]"
            tail = _json(
                {
                    "clock": self._clock(row) if current else None,
                    "seat": None if viewer == SPECTATOR else viewer,
                    "returns": row.returns if current else None,
                    "forfeit": row.forfeit if current else None,
                }
            )
            text = (
                f'{{"type":"view","seq":{seq},"status":"{status}","view":{view},"legal":{legal},'
                f'"events":{events},{tail[1:]}'
            )
            return text, status

    def status(self, table_id: str) -> str:
        return self._entry(table_id, sync=False).row.status

    def current_seq(self, table_id: str) -> int:
        return self._entry(table_id, sync=False).row.seq

    def _clock(self, row: TableRow) -> dict[str, Any] | None:
        if row.clock is None:
            return None
        out = dict(row.clock)
        entry = self._cache.get(row.id)
        p = entry.state.current_player() if entry is not None and row.deadline is not None else None
        out["seat"] = p if p is not None and p >= 0 else None  # whose clock is running
        out["deadline"] = row.deadline
        out["remaining"] = None if row.deadline is None else max(0.0, round(row.deadline - self.now(), 2))
        return out

    def runner_state(self, table_id: str) -> tuple[str, int, float | None, bool]:
        """(status, seq, deadline, whether a bot is to move) for the bot/clock runtime."""
        entry = self._entry(table_id, sync=False)
        with entry.lock:
            row, state = entry.row, entry.state
            p = state.current_player()
            bot = row.status == "playing" and 0 <= p < len(row.seats) and row.seats[p].kind == "bot"
            return row.status, row.seq, row.deadline, bot

    def needs_runner(self, table_id: str) -> bool:
        entry = self._entry(table_id, sync=False)
        r = entry.row
        return r.status == "playing" and (r.clock is not None or any(s.kind == "bot" for s in r.seats))

    def job(self, table_id: str, kind: str, player: int | None = None, seq: int | None = None) -> Job | None:
        """A worker's job for the position now: the bot to move (``bot``), the best agent for a
        timed-out seat (``timeout``), or a hint for ``player`` (``hint``)."""
        entry = self._entry(table_id, sync=False)
        with entry.lock:
            row, state = entry.row, entry.state
            if row.status != "playing" or (seq is not None and seq != row.seq):
                return None
            p = state.current_player()
            if kind == "bot":
                if not (0 <= p < len(row.seats) and row.seats[p].kind == "bot"):
                    return None
                spec = row.seats[p].agent or "random"
            else:
                if player is not None and p != player:
                    return None
                spec = best_agent_spec(row.game)
            record = state.record()
            return Job(
                table_id=row.id,
                seq=row.seq,
                player=p,
                spec=spec,
                record=record,
                seed=(row.seed * 31 + row.seq * 7919 + (1 if kind == "hint" else 0)) % (1 << 62),
                kind=kind,
            )

    def hint_check(self, table_id: str, player: int, seq: Any) -> None:
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise ServiceError("bad_message", "seq: required, a whole number (the view's seq)")
        entry = self._entry(table_id, sync=False)
        with entry.lock:
            if entry.row.status != "playing":
                raise ServiceError(
                    "not_playing" if entry.row.status == "waiting" else "game_over",
                    "no hints: the table is not playing",
                )
            if seq != entry.row.seq:
                raise ServiceError("stale", f"seq {seq} is not the table's ({entry.row.seq})")
            if entry.state.current_player() != player:
                raise ServiceError("not_your_turn", f"it is not seat {player}'s turn")

    # -- after the end ------------------------------------------------------------------------
    def record(self, table_id: str) -> dict[str, Any]:
        entry = self._entry(table_id)
        with entry.lock:
            if entry.row.status != "over":
                raise ServiceError("not_over", "the record is given out once the game is over", 403)
            rec = entry.state.record()
            if entry.row.forfeit is not None:
                rec["result"] = {"forfeit": entry.row.forfeit, "returns": entry.row.returns}
            return rec

    def replay(self, table_id: str, seat: Any) -> dict[str, Any]:
        entry = self._entry(table_id)
        n = len(entry.row.seats)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise ServiceError("bad_seat", f"seat: expected a seat number from 0 to {n - 1}", 422)
        with entry.lock:
            if entry.row.status != "over":
                raise ServiceError("not_over", "the replay is given out once the game is over", 403)
            rec = entry.state.record()
        game: Game = load_game(rec["game"], **rec["options"])
        state = game.new_initial_state(seed=rec["seed"], chance=rec["chance"])
        who = None if seat is None else seat
        steps = []

        def view() -> dict[str, Any]:
            return state.public_observation() if who is None else state.observation(who)

        steps.append({"seq": 0, "action": None, "view": view(), "events": state.last_events_seen_by(who)})
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
            "id": table_id,
            "game": rec["game"],
            "seat": seat,
            "steps": steps,
            "returns": entry.row.returns,
            "forfeit": entry.row.forfeit,
        }


def check_clock(clock: Any) -> dict[str, Any] | None:
    if clock is None:
        return None
    if not isinstance(clock, dict):
        raise ServiceError(
            "bad_clock", 'clock: expected null or {"seconds_per_move": S, "on_timeout": "bot"|"forfeit"}', 422
        )
    unknown = sorted(set(clock) - {"seconds_per_move", "on_timeout"})
    if unknown:
        raise ServiceError(
            "bad_clock",
            f"clock: unknown field {_short(unknown[0])}; valid: seconds_per_move, on_timeout",
            422,
        )
    s = clock.get("seconds_per_move")
    if isinstance(s, bool) or not isinstance(s, int | float) or not 1 <= s <= MAX_CLOCK_SECONDS:
        raise ServiceError(
            "bad_clock",
            f"clock.seconds_per_move: expected a number of seconds from 1 "
            f"to {MAX_CLOCK_SECONDS}, got {_short(s)}",
            422,
        )
    t = clock.get("on_timeout", "bot")
    if t not in ("bot", "forfeit"):
        raise ServiceError(
            "bad_clock", f'clock.on_timeout: expected "bot" or "forfeit", got {_short(t)}', 422
        )
    return {"seconds_per_move": s, "on_timeout": t}


def _chance(state: State) -> list[Any]:
    g = state.game
    return [g.format_chance(e) for e in state.chance.entries()]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _player_counts(cls: type[Game]) -> list[int]:
    try:
        return cls.player_counts()
    except Exception:  # noqa: BLE001 - a game whose defaults cannot be built lists no count
        return []
