"""Accounts, sessions, player pages and leaderboards (docs/web.md, People): an ``APIRouter``.

- ``POST /api/accounts {"name", "password"}`` → 201 ``{"name"}``. Names: 3 to 20 of ``A-Z a-z 0-9 _ -``,
  unique ignoring case, not a look-alike of a word the page uses ("You") or of a computer player.
  Passwords: 8 to 200 characters, kept only as an argon2id hash (argon2-cffi's defaults, RFC 9106's
  low-memory profile); at most two hashes are computed at once per server.
- ``POST /api/session {"name", "password"}`` → ``{"name", "session"}`` and the session as an HttpOnly,
  SameSite=Lax cookie ``gamester_session`` (``Secure`` when the request came over https); scripts send
  ``Authorization: Bearer SESSION`` instead. Sessions are random, kept as their SHA-256, and last 30
  days. Failed log-ins are rate-limited per name and per address (429 ``rate_limited``).
- ``DELETE /api/session`` logs this session out; ``?everywhere=true`` every session of the account.
- ``GET /api/me`` → ``{"name", "ratings", "seats"}`` or 401; ``GET /api/session`` → ``{"name"}``, null
  for a guest (what the page asks: it is never a 401).
- ``GET /api/players/{name}`` and ``GET /api/leaderboard/{game}``.

:class:`People` holds what the table routes need: the account of a request (:meth:`People.account_of`)
and the seat token an account gets at a table (:meth:`People.seat_token`: derived from a secret
kept with the account, so the account can sit down again from any device and be given the same token).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from gamester.store.people import AccountRow, PeopleStore, Rating
from gamester.store.repository import SqlTableRepository
from gamester.web.decisions import ServiceError
from gamester.web.ratings import INITIAL, rate

COOKIE = "gamester_session"
SESSION_SECONDS = 30 * 24 * 3600
MIN_PASSWORD = 8
MAX_PASSWORD = 200
NAME = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
RESERVED = {"you", "me", "spectator", "system", "gamester", "admin", "guest", "player", "bot", "nobody"}
# Characters read alike: a name whose skeleton is a reserved word's skeleton is refused.
_SKELETON = str.maketrans({"0": "o", "1": "l", "i": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b"})
HASHES_AT_ONCE = 2


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


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class Throttle:
    """Token buckets by key: ``burst`` failures at once, then one per ``every`` seconds."""

    burst: float
    every: float
    buckets: dict[str, _Bucket] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        with self.lock:
            b = self.buckets.get(key)
            if b is None:
                return 0.0
            tokens = min(self.burst, b.tokens + (now - b.at) / self.every)
            return 0.0 if tokens >= 1.0 else (1.0 - tokens) * self.every

    def spend(self, key: str, now: float) -> None:
        with self.lock:
            b = self.buckets.get(key)
            if b is None:
                if len(self.buckets) > 50_000:  # forget the oldest half rather than grow without end
                    for k in list(self.buckets)[: len(self.buckets) // 2]:
                        del self.buckets[k]
                b = self.buckets[key] = _Bucket(self.burst, now)
            b.tokens = min(self.burst, b.tokens + (now - b.at) / self.every) - 1.0
            b.at = now


class People:
    """Accounts and sessions over a :class:`PeopleStore` (thread-safe; blocking calls)."""

    def __init__(self, repo: SqlTableRepository, *, clock: Any = time.time) -> None:
        from argon2 import PasswordHasher

        self.store = PeopleStore(repo, INITIAL)
        self.hasher = PasswordHasher()  # argon2id
        self.now = clock
        self.by_name = Throttle(burst=5, every=60.0)  # failed log-ins of one name
        self.by_address = Throttle(burst=20, every=15.0)  # failed log-ins from one address
        self.signups = Throttle(burst=10, every=60.0)  # accounts made from one address
        self.hashing = asyncio.Semaphore(HASHES_AT_ONCE)

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
            raise ServiceError("name_taken", f"name: {name!r} is taken (names are unique ignoring case)", 409)
        return row

    def check_password(self, name: str, password: str) -> AccountRow | None:
        from argon2.exceptions import InvalidHashError, VerificationError

        row = self.store.account(name.casefold())
        if row is None:
            return None
        try:
            self.hasher.verify(row.password_hash, password)
        except (VerificationError, InvalidHashError):
            return None
        return row

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
                raise ServiceError("bad_session", "Authorization: not a valid session; log in again", 401)
            return row
        cookie = request.cookies.get(COOKIE)
        return self.session_of(cookie) if cookie else None

    @staticmethod
    def session_text(request: HTTPConnection) -> str | None:
        header = request.headers.get("authorization")
        if header is not None:
            return header.partition(" ")[2].strip() or None
        return request.cookies.get(COOKIE)

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
            raise ServiceError("no_player", f"no player {name[:40]!r}", 404)
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


async def _credentials(request: Request) -> tuple[Any, Any]:
    from gamester.web.validate import body as read_body

    body = read_body(await request.body())
    unknown = sorted(set(body) - {"name", "password"})
    if unknown:
        raise ServiceError(
            "bad_request", f"unknown field {unknown[0][:40]!r}; valid fields: name, password", 422
        )
    return body.get("name"), body.get("password")


def router(people: dict[str, People]) -> APIRouter:
    """The routes, over ``people["people"]`` (set when the app starts)."""
    api = APIRouter()

    def ppl() -> People:
        return people["people"]

    @api.post("/api/accounts", status_code=201)
    async def create_account(request: Request) -> Any:
        name, password = await _credentials(request)
        problem = account_name_problem(name) or password_problem(password)
        if problem is not None:
            raise ServiceError("bad_name" if problem.startswith("name") else "bad_password", problem, 422)
        p, addr = ppl(), _client(request)
        wait = p.signups.wait(addr, time.monotonic())
        if wait > 0:
            return _limited(wait, "accounts made from this address")
        p.signups.spend(addr, time.monotonic())
        async with p.hashing:
            row = await run_in_threadpool(p.create, name, password)
        return {"name": row.name}

    @api.post("/api/session")
    async def log_in(request: Request) -> Any:
        name, password = await _credentials(request)
        if not isinstance(name, str) or not isinstance(password, str) or not name or len(name) > 20:
            raise ServiceError("bad_request", 'expected {"name": …, "password": …}', 422)
        if len(password) > MAX_PASSWORD:
            raise ServiceError("bad_password", f"password: at most {MAX_PASSWORD} characters", 422)
        p, addr, key = ppl(), _client(request), name.casefold()
        now = time.monotonic()
        wait = max(p.by_name.wait(key, now), p.by_address.wait(addr, now))
        if wait > 0:
            return _limited(wait, "failed log-ins")
        async with p.hashing:
            row = await run_in_threadpool(p.check_password, name, password)
        if row is None:
            now = time.monotonic()
            p.by_name.spend(key, now)
            p.by_address.spend(addr, now)
            raise ServiceError("bad_login", "wrong name or password", 401)
        session = await run_in_threadpool(p.open_session, row)
        out = JSONResponse({"name": row.name, "session": session})
        out.set_cookie(
            COOKIE,
            session,
            max_age=SESSION_SECONDS,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
            path="/",
        )
        return out

    @api.delete("/api/session")
    async def log_out(request: Request) -> Any:
        p = ppl()
        session = p.session_text(request)
        row = await run_in_threadpool(p.session_of, session) if session else None
        everywhere = request.query_params.get("everywhere", "false").lower() in ("1", "true", "yes")
        if row is not None:
            if everywhere:
                await run_in_threadpool(p.store.drop_sessions, row.key)
            else:
                await run_in_threadpool(p.store.drop_session, _hash(session or ""))
        out = JSONResponse({"ok": True, "name": row.name if row is not None else None})
        out.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return out

    @api.get("/api/session")
    async def who(request: Request) -> Any:
        """Who the session is, for the page: 200 either way (a 401 would be a console error)."""
        p = ppl()
        try:
            row = await run_in_threadpool(p.account_of, request)
        except ServiceError:
            row = None
        return {"name": row.name if row is not None else None}

    @api.get("/api/me")
    async def me(request: Request) -> Any:
        p = ppl()
        row = await run_in_threadpool(p.account_of, request)
        if row is None:
            raise ServiceError("not_logged_in", "not logged in", 401)
        return await run_in_threadpool(p.me, row)

    @api.get("/api/players/{name}")
    async def player(name: str) -> Any:
        return await run_in_threadpool(ppl().player, name)

    @api.get("/api/leaderboard/{game}")
    async def leaderboard(game: str, request: Request) -> Any:
        from gamester.core.registry import game_names

        if game not in game_names():
            raise ServiceError(
                "no_game", f"unknown game {game[:40]!r}; valid games: " + ", ".join(game_names()), 404
            )
        limit_text = request.query_params.get("limit", "100")
        if not limit_text.isdigit() or not 1 <= int(limit_text) <= 500:
            raise ServiceError("bad_limit", "limit: expected a whole number from 1 to 500", 422)
        return await run_in_threadpool(ppl().leaderboard, game, int(limit_text))

    return api
