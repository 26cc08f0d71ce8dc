"""Accounts, sessions, player pages and leaderboards (docs/web.md, People): an ``APIRouter``.

- ``POST /api/accounts {"name", "password"}`` → 201 ``{"name"}``. Names: 3 to 20 of ``A-Z a-z 0-9 _ -``,
  unique ignoring case, not a look-alike of a word the page uses ("You") or of a computer player.
  Passwords: 8 to 200 characters, kept only as an argon2id hash (argon2-cffi's defaults, RFC 9106's
  low-memory profile); at most two hashes are computed at once per server.
- ``POST /api/session {"name", "password"}`` → ``{"name", "session"}`` and the session as an HttpOnly,
  SameSite=Lax cookie ``gamester_session`` (over https ``__Host-gamester_session``, ``Secure``:
  web/proxy.py's ``session_cookie``); scripts send
  ``Authorization: Bearer SESSION`` instead. Sessions are random, kept as their SHA-256, and last 30
  days. Failed log-ins are rate-limited per name and per address (429 ``rate_limited``), in token
  buckets kept in the database so that every server on it shares them (:class:`Throttle`). A name
  nobody has is checked against a dummy hash (:func:`dummy_hash`): the same answer after the same work.
- ``DELETE /api/session`` logs this session out; ``?everywhere=true`` every session of the account.
- ``GET /api/me`` → ``{"name", "ratings", "seats"}`` or 401; ``GET /api/session`` → ``{"name"}``, null
  for a guest (what the page asks: it is never a 401).
- ``POST /api/me/password {"old", "new"}`` → ``{"name", "ended"}``: every other session ends.
- ``DELETE /api/me {"password"}``: the account goes; its finished tables stay, its seats there shown
  as :data:`DELETED`; refused (409) while it holds a seat at a table not over.
- ``GET /api/players/{name}`` and ``GET /api/leaderboard/{game}``.

:class:`People` holds what the table routes need: the account of a request (:meth:`People.account_of`)
and the seat token an account gets at a table (:meth:`People.seat_token`: derived from a secret
kept with the account, so the account can sit down again from any device and be given the same token).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from gamester.store.port import AccountRow, Bucket, ModerationRepository, PeopleRepository, Rating
from gamester.web.blocks import refuse_banned
from gamester.web.decisions import hash_token as _hash
from gamester.web.errors import BadInput, Conflict, NotAllowed, NotFound, NotLoggedIn, Refused
from gamester.web.proxy import session_cookie, session_from_cookie
from gamester.web.ratings import rate

SESSION_SECONDS = 30 * 24 * 3600
MIN_PASSWORD = 8
MAX_PASSWORD = 200
NAME = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
RESERVED = {"you", "me", "spectator", "system", "gamester", "admin", "guest", "player", "bot", "nobody"}
# Characters read alike: a name whose skeleton is a reserved word's skeleton is refused.
_SKELETON = str.maketrans({"0": "o", "1": "l", "i": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b"})
HASHES_AT_ONCE = 2
# What a deleted account's seats at finished tables show, instead of its name (docs/web.md, People).
DELETED = "deleted"


def skeleton(name: str) -> str:
    """``name`` as it reads: case, ``_``/``-`` and look-alike digits folded.

    >>> skeleton("Y0u"), skeleton("Rand_0rn"), skeleton("he-ur1stic") == skeleton("heuristic")
    ('you', 'random', True)
    """
    text = name.casefold().replace("_", "").replace("-", "").translate(_SKELETON)
    return text.replace("rn", "m")


def _reserved_skeletons() -> set[str]:
    from gamester.agents import agent_names

    words = set(RESERVED)
    words.update(n.casefold() for n in agent_names())
    return {skeleton(w) for w in words}


def account_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be an account's name (one line), or None."""
    if not isinstance(name, str) or not NAME.match(name):
        return "name: expected 3 to 20 letters, digits, _ or - (A-Z, a-z, 0-9)"
    if skeleton(name) in _reserved_skeletons():
        return f"name: {name!r} reads like a word the tables use themselves (or a computer player's)"
    return None


def password_problem(password: Any) -> str | None:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return f"password: expected {MIN_PASSWORD} to {MAX_PASSWORD} characters"
    if not password.strip():
        return "password: expected more than spaces"
    return None


@functools.cache
def _dummy_hash(time_cost: int, memory_cost: int, parallelism: int, hash_len: int, salt_len: int) -> str:
    from argon2 import PasswordHasher

    hasher = PasswordHasher(time_cost, memory_cost, parallelism, hash_len, salt_len)
    return hasher.hash(secrets.token_urlsafe(32))  # nobody knows this password, not even us


def dummy_hash(hasher: Any) -> str:
    """An argon2id hash of a random password with ``hasher``'s parameters, made once per process:
    what a log-in of an unknown name is verified against, so it costs what a wrong password costs."""
    return _dummy_hash(
        hasher.time_cost, hasher.memory_cost, hasher.parallelism, hasher.hash_len, hasher.salt_len
    )


@dataclass
class Throttle:
    """Token buckets by key, kept in the database so that every server on it shares them: ``burst``
    tries at once, then one per ``every`` seconds. Times are wall-clock (:attr:`People.now`), the
    one clock servers share."""

    store: PeopleRepository
    kind: str
    burst: float
    every: float
    taken: int = 0

    def bucket(self, key: str) -> Bucket:
        return Bucket(self.kind, key[:120], self.burst, self.every)

    def take(self, key: str, now: float) -> float:
        """Take a try for ``key``: 0.0 if taken, else the seconds until ``key`` may try again."""
        return take_all([(self, key)], now)

    def forget_now_and_then(self, now: float) -> None:
        self.taken += 1
        if self.taken % 512 == 0:  # now and then, forget the buckets that are full again
            self.store.forget_full_buckets(self.kind, now - self.burst * self.every)


def take_all(tries: list[tuple[Throttle, str]], now: float) -> float:
    """Take a try of each ``(throttle, key)``, all or none (one transaction): 0.0, or the seconds to
    wait (then none is taken)."""
    for throttle, _ in tries:
        throttle.forget_now_and_then(now)
    return tries[0][0].store.take_tokens([t.bucket(k) for t, k in tries], now)


class People:
    """Accounts and sessions over a :class:`PeopleStore` (thread-safe; blocking calls)."""

    def __init__(
        self,
        store: PeopleRepository,
        *,
        clock: Any = time.time,
        moderation: ModerationRepository | None = None,
    ) -> None:
        from argon2 import PasswordHasher

        self.store = store
        self.moderation = moderation  # bans (docs/web.md, Blocks, reports and bans)
        self.hasher = PasswordHasher()  # argon2id
        self.now = clock
        # Failed log-ins of one name, failed log-ins from one address, accounts made from one address.
        self.by_name = Throttle(self.store, "login_name", burst=5, every=60.0)
        self.by_address = Throttle(self.store, "login_address", burst=20, every=15.0)
        self.signups = Throttle(self.store, "signup", burst=10, every=60.0)
        self.hashing = asyncio.Semaphore(HASHES_AT_ONCE)
        # Made now, beside the start, so that not even the first unknown name answers faster.
        threading.Thread(target=dummy_hash, args=(self.hasher,), daemon=True).start()

    def hashes_waiting(self) -> int:
        """Password hashes waiting for their turn (``gamester_hashes_waiting``)."""
        waiting = getattr(self.hashing, "waiting", None)  # the hashing line's, once it has one
        return int(waiting()) if callable(waiting) else 0

    # -- accounts and sessions -----------------------------------------------------------------
    def create(self, name: str, password: str) -> AccountRow:
        row = AccountRow(
            key=name.casefold(),
            name=name,
            password_hash=self.hasher.hash(password),
            seat_key=secrets.token_hex(32),
            created=self.now(),
        )
        if not self.store.create_account(row):
            raise Conflict(f"name: {name!r} is taken (names are unique ignoring case)", code="name_taken")
        return row

    def check_password(self, name: str, password: str) -> AccountRow | None:
        """The account if ``password`` is its password, else None. An unknown name costs the same
        argon2 verification as a wrong password (against :func:`dummy_hash`), so how long the answer
        takes does not tell whether the name exists."""
        row = self.store.account(name.casefold())
        if row is None:
            self.verify(dummy_hash(self.hasher), password)
            return None
        return row if self.verify(row.password_hash, password) else None

    def verify(self, stored: str, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        try:
            return bool(self.hasher.verify(stored, password))
        except (VerificationError, InvalidHashError):
            return False

    def take_tries(self, key: str, address: str) -> float:
        """Take a log-in try of the name ``key`` and of ``address``: 0.0, or the seconds to wait
        (then neither is taken). Taken before the password is checked, so many tries sent at once
        cannot all pass the check; a right password gives them back (:meth:`give_back_tries`)."""
        return take_all([(self.by_name, key), (self.by_address, address)], self.now())

    def give_back_tries(self, key: str, address: str) -> None:
        self.store.give_tokens([self.by_name.bucket(key), self.by_address.bucket(address)])

    def open_session(self, row: AccountRow) -> str:
        session = secrets.token_urlsafe(32)
        now = self.now()
        self.store.add_session(_hash(session), row.key, now, now + SESSION_SECONDS)
        return session

    def session_of(self, session: str) -> AccountRow | None:
        if not session or len(session) > 200:
            return None
        return self.store.session_account(_hash(session), self.now())

    def account_of(self, request: HTTPConnection) -> AccountRow | None:
        """The account of the request's session (blocking). A Bearer session that is not valid is
        refused (401); a cookie that is not valid any more is ignored (the visitor is a guest)."""
        header = request.headers.get("authorization")
        if header is not None:
            scheme, _, value = header.partition(" ")
            row = self.session_of(value.strip()) if scheme.lower() == "bearer" else None
            if row is None:
                raise NotLoggedIn("Authorization: not a valid session; log in again", code="bad_session")
            return row
        cookie = session_from_cookie(request)
        return self.session_of(cookie) if cookie else None

    @staticmethod
    def session_text(request: HTTPConnection) -> str | None:
        header = request.headers.get("authorization")
        if header is not None:
            return header.partition(" ")[2].strip() or None
        return session_from_cookie(request)

    # -- seats ---------------------------------------------------------------------------------
    @staticmethod
    def seat_token(row: AccountRow, table_id: str, seat: int) -> str:
        """The seat's token for this account: the same on every device, unknown without the account."""
        return hmac.new(
            bytes.fromhex(row.seat_key), f"{table_id}:{seat}".encode(), hashlib.sha256
        ).hexdigest()

    # -- ratings -------------------------------------------------------------------------------
    def table_over(self, table_id: str) -> None:
        """A table ended: move its players' ratings if it was rated (at most once, see the store)."""
        self.store.apply_rating(table_id, rate, self.now())

    def catch_up(self, limit: int = 200) -> int:
        """Apply every finished rated table not yet applied (a server stopped between the end of a
        table and its rating): at start."""
        done = 0
        for tid in self.store.unapplied(limit):
            done += self.store.apply_rating(tid, rate, self.now())
        return done

    def me(self, row: AccountRow) -> dict[str, Any]:
        live = [t for t in self.store.tables_of(row.key, 50) if t["status"] != "over"]
        return {
            "name": row.name,
            "ratings": _ratings_json(self.store.ratings_of(row.key)),
            "seats": [
                {"table": t["id"], "seat": t["seat"], "game": t["game"], "status": t["status"]} for t in live
            ],
        }

    def player(self, name: str) -> dict[str, Any]:
        row = self.store.account(name.casefold()) if NAME.match(name) else None
        if row is None:
            raise NotFound(f"no player {name[:40]!r}", code="no_player")
        recent = self.store.tables_of(row.key, 50)
        return {
            "name": row.name,
            "ratings": _ratings_json(self.store.ratings_of(row.key)),
            "tables": [t["id"] for t in recent],
            "recent": recent,
            "history": self.store.history_of(row.key, 200),
        }

    def leaderboard(self, game: str, limit: int) -> dict[str, Any]:
        return {
            "game": game,
            "players": [{"name": n, **_rating_json(r)} for n, r in self.store.leaderboard(game, limit)],
        }


def _rating_json(r: Rating) -> dict[str, Any]:
    return {"rating": round(r.rating, 1), "deviation": round(r.deviation, 1), "games": r.games}


def _ratings_json(found: dict[str, Rating]) -> dict[str, Any]:
    return {g: _rating_json(r) for g, r in found.items()}


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _limited(wait: float, what: str) -> JSONResponse:
    seconds = max(1, round(wait))
    return JSONResponse(
        {"error": "rate_limited", "message": f"too many {what}; try again in {seconds} s"},
        status_code=429,
        headers={"retry-after": str(seconds)},
    )


async def _fields(request: Request, *names: str) -> list[Any]:
    """The JSON body's ``names`` (None where missing); any other field is refused (422)."""
    from gamester.web.validate import body as read_body

    body = read_body(await request.body())
    unknown = sorted(set(body) - set(names))
    if unknown:
        raise BadInput(f"unknown field {unknown[0][:40]!r}; valid fields: {', '.join(names)}")
    return [body.get(n) for n in names]


async def _credentials(request: Request) -> tuple[Any, Any]:
    name, password = await _fields(request, "name", "password")
    return name, password


def _given_password(value: Any, field: str) -> str:
    """A password as typed, to check (not to keep): any string of up to MAX_PASSWORD characters."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_PASSWORD:
        raise BadInput(f"{field}: expected the password, 1 to {MAX_PASSWORD} characters")
    return value


async def _logged_in(p: People, request: Request) -> AccountRow:
    row = await run_in_threadpool(p.account_of, request)
    if row is None:
        raise NotLoggedIn("not logged in")
    return row


async def _prove(
    p: People, request: Request, row: AccountRow, password: str, field: str
) -> JSONResponse | None:
    """Check the account's password again (for a change or a deletion), throttled as log-ins are:
    None if right, a 429 answer if throttled; a wrong password is 403."""
    addr = _client(request)
    wait = await run_in_threadpool(p.take_tries, row.key, addr)
    if wait > 0:
        return _limited(wait, "failed log-ins")
    async with p.hashing:
        ok = await run_in_threadpool(p.verify, row.password_hash, password)
    if not ok:
        raise NotAllowed(f"{field}: not this account's password", code="wrong_password")
    await run_in_threadpool(p.give_back_tries, row.key, addr)
    return None


def router() -> APIRouter:
    """The routes, over the app's ``state.people`` (set when the app starts)."""
    api = APIRouter()

    def ppl(conn: HTTPConnection) -> People:
        people: People = conn.app.state.people
        return people

    @api.post("/api/accounts", status_code=201)
    async def create_account(request: Request) -> Any:
        name, password = await _credentials(request)
        problem = account_name_problem(name) or password_problem(password)
        if problem is not None:
            raise BadInput(problem, code="bad_name" if problem.startswith("name") else "bad_password")
        p, addr = ppl(request), _client(request)
        wait = await run_in_threadpool(p.signups.take, addr, p.now())
        if wait > 0:
            return _limited(wait, "accounts made from this address")
        async with p.hashing:
            row = await run_in_threadpool(p.create, name, password)
        return {"name": row.name}

    @api.post("/api/session")
    async def log_in(request: Request) -> Any:
        name, password = await _credentials(request)
        if not isinstance(name, str) or not isinstance(password, str) or not name or len(name) > 20:
            raise BadInput('expected {"name": …, "password": …}')
        if len(password) > MAX_PASSWORD:
            raise BadInput(f"password: at most {MAX_PASSWORD} characters", code="bad_password")
        p, addr, key = ppl(request), _client(request), name.casefold()
        wait = await run_in_threadpool(p.take_tries, key, addr)
        if wait > 0:
            return _limited(wait, "failed log-ins")
        async with p.hashing:
            row = await run_in_threadpool(p.check_password, name, password)
        if row is None:  # the same answer, after the same work, whether or not the name exists
            raise NotLoggedIn("wrong name or password", code="bad_login")
        await run_in_threadpool(p.give_back_tries, key, addr)
        if p.moderation is not None:  # a banned account is told so, and given no session (web/blocks.py)
            await run_in_threadpool(refuse_banned, p.moderation, row.key, p.now())
        session = await run_in_threadpool(p.open_session, row)
        out = JSONResponse({"name": row.name, "session": session})
        cookie, secure = session_cookie(request)
        out.set_cookie(
            cookie, session, max_age=SESSION_SECONDS, httponly=True, samesite="lax", secure=secure, path="/"
        )
        return out

    @api.delete("/api/session")
    async def log_out(request: Request) -> Any:
        p = ppl(request)
        session = p.session_text(request)
        row = await run_in_threadpool(p.session_of, session) if session else None
        everywhere = request.query_params.get("everywhere", "false").lower() in ("1", "true", "yes")
        if row is not None:
            if everywhere:
                await run_in_threadpool(p.store.drop_sessions, row.key)
            else:
                await run_in_threadpool(p.store.drop_session, _hash(session or ""))
        out = JSONResponse({"ok": True, "name": row.name if row is not None else None})
        cookie, secure = session_cookie(request)
        out.delete_cookie(cookie, path="/", secure=secure, httponly=True, samesite="lax")
        return out

    @api.get("/api/session")
    async def who(request: Request) -> Any:
        """Who the session is, for the page: 200 either way (a 401 would be a console error)."""
        p = ppl(request)
        try:
            row = await run_in_threadpool(p.account_of, request)
        except Refused:
            row = None
        return {"name": row.name if row is not None else None}

    @api.get("/api/me")
    async def me(request: Request) -> Any:
        p = ppl(request)
        return await run_in_threadpool(p.me, await _logged_in(p, request))

    @api.post("/api/me/password")
    async def change_password(request: Request) -> Any:
        """A new password; every other session of the account ends, this one stays."""
        p = ppl(request)
        row = await _logged_in(p, request)
        old, new = await _fields(request, "old", "new")
        old = _given_password(old, "old")
        problem = password_problem(new)
        if problem is not None:
            raise BadInput(problem.replace("password:", "new:", 1), code="bad_password")
        refused = await _prove(p, request, row, old, "old")
        if refused is not None:
            return refused
        async with p.hashing:
            new_hash = await run_in_threadpool(p.hasher.hash, new)
        keep = _hash(p.session_text(request) or "")
        ended = await run_in_threadpool(p.store.set_password, row.key, row.password_hash, new_hash, keep)
        if ended is None:
            raise Conflict("the password was changed meanwhile; log in again", code="changed")
        return {"name": row.name, "ended": ended}

    @api.delete("/api/me")
    async def delete_account(request: Request) -> Any:
        """The account goes: its login, sessions and ratings; its finished tables stay."""
        p = ppl(request)
        row = await _logged_in(p, request)
        (password,) = await _fields(request, "password")
        refused = await _prove(p, request, row, _given_password(password, "password"), "password")
        if refused is not None:
            return refused
        try:
            blocking = await run_in_threadpool(p.store.delete_account, row.key, row.password_hash, DELETED)
        except LookupError:
            raise Conflict("the account changed meanwhile; log in again", code="changed") from None
        if blocking:
            raise Conflict(
                f"you hold a seat at a table not over yet ({', '.join(blocking[:3])}); "
                "finish it or leave it first (GET /api/me lists them)",
                code="seated",
            )
        out = JSONResponse({"ok": True, "name": row.name, "deleted": True})
        cookie, secure = session_cookie(request)
        out.delete_cookie(cookie, path="/", secure=secure, httponly=True, samesite="lax")
        return out

    @api.get("/api/players/{name}")
    async def player(name: str, request: Request) -> Any:
        return await run_in_threadpool(ppl(request).player, name)

    @api.get("/api/leaderboard/{game}")
    async def leaderboard(game: str, request: Request) -> Any:
        from gamester.core.registry import game_names

        if game not in game_names():
            raise NotFound(
                f"unknown game {game[:40]!r}; valid games: " + ", ".join(game_names()), code="no_game"
            )
        limit_text = request.query_params.get("limit", "100")
        if not limit_text.isdigit() or not 1 <= int(limit_text) <= 500:
            raise BadInput("limit: expected a whole number from 1 to 500", code="bad_limit")
        return await run_in_threadpool(ppl(request).leaderboard, game, int(limit_text))

    return api
