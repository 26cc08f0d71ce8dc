"""Accounts, sessions, player pages and leaderboards (docs/web.md, People): an ``APIRouter``.

- ``POST /api/accounts {"name", "password"}`` → 201 ``{"name"}``. Names: 3 to 20 of ``A-Z a-z 0-9 _ -``,
  not reading like another account's name (web/names.py's skeleton), a word the page uses ("You") or
  a computer player. Passwords: 8 to 200 characters, not one of the 10,000 most common
  (``weak_password``), kept only as an argon2id hash (argon2-cffi's defaults, RFC 9106's low-memory
  profile).
- ``POST /api/session {"name", "password"}`` → ``{"name", "session"}`` and the session as an HttpOnly,
  SameSite=Lax cookie (``__Host-gamester_session`` over https, ``gamester_session`` over http); scripts
  send ``Authorization: Bearer SESSION`` instead. Sessions are random, kept as their SHA-256, and last
  30 days.
- Hashing a password (a log-in, a sign-up, a password change) waits its turn at
  :attr:`People.hashing`: two at once, addresses in turns, at most a few waiting, two per address
  (else ``429 busy`` with ``Retry-After``). Every log-in takes a try from its address's bucket, right
  or wrong; a failed one also from its (name, address) bucket, so nobody can lock another address out
  of a name; a device that has logged in to the account before (its ``gamester_device`` cookie)
  counts on its own bucket instead. The buckets are kept in the database so that every server on it
  shares them (:class:`Throttle`). A name nobody has is checked against a dummy hash
  (:func:`dummy_hash`): the same answer after the same work.
- ``DELETE /api/session`` logs this session out; ``?everywhere=true`` every session of the account,
  and voids its seat tokens, as ``POST /api/me/password`` does (their sockets are closed).
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
import base64
import functools
import hashlib
import hmac
import logging
import os
import queue
import re
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from gamester.store.port import (
    AccountRow,
    Bucket,
    ModerationRepository,
    PeopleRepository,
    Rating,
    Rekey,
    Revoked,
    TableRepository,
)
from gamester.web.blocks import refuse_banned
from gamester.web.decisions import hash_token as _hash
from gamester.web.errors import (
    BadInput,
    Conflict,
    NotAllowed,
    NotFound,
    NotLoggedIn,
    Overloaded,
    Refused,
)
from gamester.web.fair import FairGate, address_key
from gamester.web.names import reserved_skeletons, skeleton
from gamester.web.proxy import is_https
from gamester.web.ratings import PAIR_RESULTS_A_DAY, canonical_spec, movers, rate

log = logging.getLogger("gamester.web")

COOKIE = "gamester_session"
DEVICE = "gamester_device"
SECURE_PREFIX = "__Host-"
"""Over https a cookie is named ``__Host-…``: a browser then takes it only from a secure page of
this very host, with ``Path=/`` and no ``Domain``, so a plain-http page on another port of the same
host, or a sibling domain, cannot set it."""
DEVICE_SECONDS = 365 * 24 * 3600
DEVICE_ACCOUNTS = 4  # accounts a device cookie remembers
SESSION_SECONDS = 30 * 24 * 3600
MIN_PASSWORD = 8
MAX_PASSWORD = 200
NAME = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
RESERVED = {"admin", "guest", "player", "bot", "nobody", "root", "moderator", "server"}
"""More words no account may read like (beside web/names.py's, which no guest may either)."""
HASHES_AT_ONCE = max(1, (os.cpu_count() or 1) // 4)
"""Password hashes computed at once: argon2id's four lanes keep four cores busy with one hash, so a
small machine computes one at a time (a second at once would only halve the speed of both, and take
the event loop's core too) and a bigger one a hash per four cores."""
HASHES_WAITING = 16
"""Password hashes that may wait for a turn (beyond: ``429 busy``): a hash takes about 0.2 s and 64
MiB, so a few waiting is a second or two for everyone, not a queue without end."""
HASHES_PER_ADDRESS = 2
"""Hashes one address may have waiting or running at once."""
# What a deleted account's seats at finished tables show, instead of its name (docs/web.md, People).
DELETED = "deleted"


def account_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be an account's name (one line), or None. (Whether it reads like an
    existing account's name is the database's to say: :meth:`People.create`.)"""
    if not isinstance(name, str) or not NAME.match(name):
        return "name: expected 3 to 20 letters, digits, _ or - (A-Z, a-z, 0-9)"
    sk = skeleton(name)
    if sk in reserved_skeletons() or sk in {skeleton(w) for w in RESERVED}:
        return f"name: {name!r} reads like a word the tables use themselves (or a computer player's)"
    return None


@functools.cache
def common_passwords() -> frozenset[str]:
    """The 10,000 most common passwords of 8 characters or more, lower-cased (``data/``, made by
    ``tests/make_web_lists.py``)."""
    text = resources.files("gamester.web").joinpath("data/common_passwords.txt").read_text("utf-8")
    return frozenset(line for line in text.splitlines() if line)


def password_problem(password: Any, name: str | None = None) -> str | None:
    """Why ``password`` cannot be kept (one line, starting ``password:``), or None. A common password
    (or the account's own name) is ``weak_password`` (:func:`problem_code`)."""
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return f"password: expected {MIN_PASSWORD} to {MAX_PASSWORD} characters"
    if not password.strip():
        return "password: expected more than spaces"
    folded = password.casefold()
    if folded in common_passwords() or (name is not None and folded == name.casefold()):
        return "password: too common (it is on the lists guessers try first); choose another"
    return None


def problem_code(problem: str) -> str:
    """The error code of a :func:`password_problem` or :func:`account_name_problem` line."""
    if problem.startswith("name"):
        return "bad_name"
    return "weak_password" if "too common" in problem else "bad_password"


def cookie_name(base: str, conn: HTTPConnection) -> str:
    """The cookie ``base`` as named for this request: ``__Host-`` + ``base`` over https (to us or to a
    proxy we trust: web/proxy.py's ``is_https``, the one place that decides it)."""
    return SECURE_PREFIX + base if is_https(conn) else base


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
    """Accounts and sessions over a :class:`PeopleStore` (thread-safe; blocking calls, but for the
    hashing line, :meth:`hashed`, which is the event loop's)."""

    def __init__(
        self,
        store: PeopleRepository,
        *,
        tables: TableRepository | None = None,
        clock: Any = time.time,
        moderation: ModerationRepository | None = None,
    ) -> None:
        """``tables``: where a finished table's moves are read, to tell whether it was played;
        ``moderation``: bans (docs/web.md, Blocks, reports and bans)."""
        from argon2 import PasswordHasher

        self.store = store
        self.tables = tables
        self.moderation = moderation
        self.hasher = PasswordHasher()  # argon2id
        self.now = clock
        # Every log-in from one address (right or wrong), failed log-ins of one name from one address,
        # log-ins from a device that has logged in to the account before, accounts made from one address.
        self.by_address = Throttle(self.store, "login_address", burst=20, every=15.0)
        self.by_pair = Throttle(self.store, "login_pair", burst=5, every=60.0)
        self.by_device = Throttle(self.store, "login_device", burst=10, every=60.0)
        self.signups = Throttle(self.store, "signup", burst=10, every=60.0)
        self.hashing = FairGate(
            HASHES_AT_ONCE,
            1,  # one hash at a time per address: the other slot is always someone else's turn
            max_waiting=HASHES_WAITING,
            max_per_key=HASHES_PER_ADDRESS,
            slot_seconds=0.3,
        )
        self.on_revoke: Callable[[list[str]], Awaitable[None]] | None = None  # sockets to close
        self._rating: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._rater: threading.Thread | None = None
        # Made now, beside the start, so that not even the first unknown name answers faster.
        threading.Thread(target=dummy_hash, args=(self.hasher,), daemon=True).start()

    # -- hashing, in turns ---------------------------------------------------------------------
    def hashes_waiting(self) -> int:
        """Password hashes waiting for their turn (``gamester_hashes_waiting``)."""
        return self.hashing.waiting()

    async def hashed(self, address: str, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` (a hash or a verification) in a thread, once ``address``'s turn comes at
        :attr:`hashing` (``Refused`` ``busy`` at once when the line, or the address's share of it,
        is full)."""

        async def work() -> Any:
            return await asyncio.to_thread(fn, *args)

        return await self.hashing.run(address_key(address), work)

    # -- accounts and sessions -----------------------------------------------------------------
    def create(self, name: str, password_hash: str) -> AccountRow:
        row = AccountRow(
            key=name.casefold(),
            name=name,
            password_hash=password_hash,
            seat_key=secrets.token_hex(32),
            created=self.now(),
            skeleton=skeleton(name),
        )
        alike = self.store.create_account(row)
        if alike is not None:
            same = alike.casefold() == row.key
            why = "is taken (names are unique ignoring case)" if same else f"reads like {alike!r}'s"
            raise Conflict(f"name: {name!r} {why}", code="name_taken")
        return row

    def guest_name_problem(self, name: str) -> str | None:
        """Why a guest may not sit down as ``name``: it reads like an account's (blocking)."""
        alike = self.store.name_like(skeleton(name))
        if alike is None:
            return None
        return f"name: {' '.join(name.split())!r} reads like the account {alike!r}; choose another"

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

    # -- log-in tries --------------------------------------------------------------------------
    def take_tries(self, key: str, address: str, device: str | None = None) -> float:
        """Take a log-in try of the name ``key``: 0.0, or the seconds to wait (then none is taken).
        From a device that has logged in to this account before (``device``: its id, see
        :meth:`known_device`) the try is the device's own; else one of ``address``'s (every log-in,
        right or wrong: hashing is the address's share) and one of (``key``, ``address``)'s (given
        back when the password was right: :meth:`give_back_tries`). Taken before the password is
        checked, so many tries sent at once cannot all pass the check."""
        if device is not None:
            return take_all([(self.by_device, device)], self.now())
        return take_all([(self.by_pair, _pair(key, address)), (self.by_address, address)], self.now())

    def return_tries(self, key: str, address: str, device: str | None = None) -> None:
        """Every try :meth:`take_tries` took comes back (the log-in was not checked: ``busy``)."""
        if device is not None:
            self.store.give_tokens([self.by_device.bucket(device)])
        else:
            pair = self.by_pair.bucket(_pair(key, address))
            self.store.give_tokens([pair, self.by_address.bucket(address)])

    def give_back_tries(self, key: str, address: str, device: str | None = None) -> None:
        """A right password: the failed-log-in try of (name, address) comes back (the address's, and
        a device's, stay spent: a log-in is a hash whether right or wrong)."""
        if device is None:
            self.store.give_tokens([self.by_pair.bucket(_pair(key, address))])

    @staticmethod
    def _device_mac(row: AccountRow, device: str) -> str:
        mac = hmac.new(bytes.fromhex(row.seat_key), f"device:{device}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:16]).decode().rstrip("=")

    def known_device(self, row: AccountRow | None, cookie: str | None) -> str | None:
        """The device id of ``cookie`` if it has logged in to ``row``'s account before (and the
        account's seat key has not changed since: a password change forgets every device)."""
        if row is None or not cookie or len(cookie) > 300:
            return None
        device, *macs = cookie.split(".")
        mine = self._device_mac(row, device)
        return device if device and any(hmac.compare_digest(mine, m) for m in macs) else None

    def device_cookie(self, row: AccountRow, cookie: str | None) -> str:
        """The device cookie after ``row`` logged in: the same device, this account remembered first."""
        parts = (cookie or "").split(".") if cookie and len(cookie) <= 300 else []
        device = parts[0] if parts and re.fullmatch(r"[A-Za-z0-9_-]{16,40}", parts[0]) else None
        if device is None:
            device, parts = secrets.token_urlsafe(16), []
        mine = self._device_mac(row, device)
        macs = [mine, *(m for m in parts[1:] if m != mine)][:DEVICE_ACCOUNTS]
        return ".".join([device, *macs])

    # -- sessions ------------------------------------------------------------------------------
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
        cookie = request.cookies.get(cookie_name(COOKIE, request))
        return self.session_of(cookie) if cookie else None

    @staticmethod
    def session_text(request: HTTPConnection) -> str | None:
        header = request.headers.get("authorization")
        if header is not None:
            return header.partition(" ")[2].strip() or None
        return request.cookies.get(cookie_name(COOKIE, request))

    # -- seats ---------------------------------------------------------------------------------
    @staticmethod
    def seat_token(row: AccountRow, table_id: str, seat: int) -> str:
        """The seat's token for this account: the same on every device, unknown without the account."""
        return seat_token_of(row.seat_key, table_id, seat)

    @staticmethod
    def rekey() -> Rekey:
        """A new seat key and the token hashes it derives: voids every seat token of an account."""
        key = secrets.token_hex(32)
        return Rekey(key, lambda table_id, seat: _hash(seat_token_of(key, table_id, seat)))

    async def revoked(self, done: Revoked) -> None:
        """The account's seat tokens changed at these tables: their sockets holding the old ones are
        closed, on every server (``on_revoke``, set by the app)."""
        if self.on_revoke is not None and done.tables:
            await self.on_revoke(done.tables)

    # -- ratings -------------------------------------------------------------------------------
    def rate_soon(self, table_id: str) -> None:
        """A rated table ended: its ratings move in the rating thread (reading the table and
        replaying its moves is not the event loop's work; thread-safe, returns at once)."""
        self._rating.put(table_id)
        if self._rater is None or not self._rater.is_alive():
            self._rater = threading.Thread(target=self._rate_loop, name="gamester-ratings", daemon=True)
            self._rater.start()

    def _rate_loop(self) -> None:
        while True:
            table_id = self._rating.get()
            try:
                self.table_over(table_id)
            except Exception as e:  # noqa: BLE001 - caught up within a minute (catch_up)
                log.warning("gamester: rating table %s failed: %s", table_id, type(e).__name__)

    def table_over(self, table_id: str) -> None:
        """A table ended: move its players' ratings if it was rated and played (at most once, see the
        store): only if every person at it made a move of their own, between the same two players
        at most :data:`PAIR_RESULTS_A_DAY` results a day, a bot under its canonical spec."""
        if self.tables is None:
            return
        row = self.tables.get(table_id)
        if row is None or not row.rated or row.status != "over":
            return
        moved = movers(row.game, row.options, row.seed, self.tables.actions(table_id))
        self.store.apply_rating(
            table_id, rate, self.now(), bot_key=canonical_spec, movers=moved, pair_limit=PAIR_RESULTS_A_DAY
        )

    def catch_up(self, limit: int = 200) -> int:
        """Apply every finished rated table not yet applied (a server stopped between the end of a
        table and its rating): at start."""
        done = 0
        for tid in self.store.unapplied(limit):
            self.table_over(tid)
            done += 1
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


def seat_token_of(seat_key: str, table_id: str, seat: int) -> str:
    """The token an account whose seat key is ``seat_key`` holds at that seat (People.seat_token;
    quick play gives a matched account the same: web/seeks.py)."""
    return hmac.new(bytes.fromhex(seat_key), f"{table_id}:{seat}".encode(), hashlib.sha256).hexdigest()


def _pair(key: str, address: str) -> str:
    return f"{key}|{address}"


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
    """Check the account's password again (for a change or a deletion), throttled and hashed in turn
    as log-ins are: None if right, a 429 answer if throttled; a wrong password is 403."""
    addr, device = _client(request), _device(p, request, row)
    wait = await _take_tries(p, row.key, addr, device)
    if wait > 0:
        return _limited(wait, "log-ins")
    if not await _checked(p, row.key, addr, device, p.verify, row.password_hash, password):
        raise NotAllowed(f"{field}: not this account's password", code="wrong_password")
    await run_in_threadpool(p.give_back_tries, row.key, addr, device)
    return None


def _room_in_line(p: People, addr: str) -> None:
    """``Overloaded`` (``busy``) unless the hashing line has room for this address."""
    p.hashing.check(address_key(addr))


async def _take_tries(p: People, key: str, addr: str, device: str | None) -> float:
    """A log-in try (:meth:`People.take_tries`), once the hashing line has room for this address
    (``busy`` first: a log-in turned away for want of room spends no try)."""
    _room_in_line(p, addr)
    wait: float = await run_in_threadpool(p.take_tries, key, addr, device)
    return wait


async def _checked(p: People, key: str, addr: str, device: str | None, fn: Any, *args: Any) -> Any:
    """``fn(*args)`` in the hashing line; turned away there (``busy``), the tries come back."""
    try:
        return await p.hashed(addr, fn, *args)
    except Overloaded:
        await run_in_threadpool(p.return_tries, key, addr, device)
        raise


def _device(p: People, request: Request, row: AccountRow | None) -> str | None:
    """The device id of the request's device cookie, if it has logged in to ``row`` before."""
    return p.known_device(row, request.cookies.get(cookie_name(DEVICE, request)))


def _set_cookie(out: Response, request: Request, base: str, value: str, max_age: int) -> None:
    out.set_cookie(
        cookie_name(base, request),
        value,
        max_age=max_age,
        httponly=True,
        samesite="lax",
        secure=is_https(request),
        path="/",
    )


def _clear_cookie(out: Response, request: Request) -> None:
    name = cookie_name(COOKIE, request)
    out.delete_cookie(name, path="/", httponly=True, samesite="lax", secure=is_https(request))


def router() -> APIRouter:
    """The routes, over the app's ``state.people`` (set when the app starts)."""
    api = APIRouter()

    def ppl(conn: HTTPConnection) -> People:
        people: People = conn.app.state.people
        return people

    @api.post("/api/accounts", status_code=201)
    async def create_account(request: Request) -> Any:
        name, password = await _credentials(request)
        problem = account_name_problem(name) or password_problem(password, name)
        if problem is not None:
            raise BadInput(problem, code=problem_code(problem))
        p, addr = ppl(request), _client(request)
        wait = await run_in_threadpool(p.signups.take, addr, p.now())
        if wait > 0:
            return _limited(wait, "accounts made from this address")
        password_hash = await p.hashed(addr, p.hasher.hash, password)
        row = await run_in_threadpool(p.create, name, password_hash)
        return {"name": row.name}

    @api.post("/api/session")
    async def log_in(request: Request) -> Any:
        name, password = await _credentials(request)
        if not isinstance(name, str) or not isinstance(password, str) or not name or len(name) > 20:
            raise BadInput('expected {"name": …, "password": …}')
        if len(password) > MAX_PASSWORD:
            raise BadInput(f"password: at most {MAX_PASSWORD} characters", code="bad_password")
        p, addr, key = ppl(request), _client(request), name.casefold()
        _room_in_line(p, addr)  # a flood turned away here costs no database read
        cookie = request.cookies.get(cookie_name(DEVICE, request))
        known = await run_in_threadpool(p.store.account, key) if cookie and NAME.match(name) else None
        device = p.known_device(known, cookie)
        wait = await _take_tries(p, key, addr, device)
        if wait > 0:
            return _limited(wait, "log-ins")
        row = await _checked(p, key, addr, device, p.check_password, name, password)
        if row is None:  # the same answer, after the same work, whether or not the name exists
            raise NotLoggedIn("wrong name or password", code="bad_login")
        await run_in_threadpool(p.give_back_tries, key, addr, device)
        if p.moderation is not None:  # a banned account is told so, and given no session (web/blocks.py)
            await run_in_threadpool(refuse_banned, p.moderation, row.key, p.now())
        session = await run_in_threadpool(p.open_session, row)
        out = JSONResponse({"name": row.name, "session": session})
        _set_cookie(out, request, COOKIE, session, SESSION_SECONDS)
        _set_cookie(out, request, DEVICE, p.device_cookie(row, cookie), DEVICE_SECONDS)
        return out

    @api.delete("/api/session")
    async def log_out(request: Request) -> Any:
        """This session ends; ``?everywhere=true``: every session of the account, and its seat tokens
        are void (a rejoin gets new ones; sockets holding the old ones are closed)."""
        p = ppl(request)
        session = p.session_text(request)
        row = await run_in_threadpool(p.session_of, session) if session else None
        everywhere = request.query_params.get("everywhere", "false").lower() in ("1", "true", "yes")
        if row is not None:
            if everywhere:
                done = await run_in_threadpool(p.store.log_out_everywhere, row.key, p.rekey())
                await p.revoked(done)
            else:
                await run_in_threadpool(p.store.drop_session, _hash(session or ""))
        out = JSONResponse({"ok": True, "name": row.name if row is not None else None})
        _clear_cookie(out, request)
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
        problem = password_problem(new, row.name)
        if problem is not None:
            raise BadInput(problem.replace("password:", "new:", 1), code=problem_code(problem))
        refused = await _prove(p, request, row, old, "old")
        if refused is not None:
            return refused
        new_hash = await p.hashed(_client(request), p.hasher.hash, new)
        keep = _hash(p.session_text(request) or "")
        done = await run_in_threadpool(
            p.store.set_password, row.key, row.password_hash, new_hash, keep, p.rekey()
        )
        if done is None:
            raise Conflict("the password was changed meanwhile; log in again", code="changed")
        await p.revoked(done)  # the seat tokens of before are void: their sockets are closed
        return {"name": row.name, "ended": done.sessions}

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
        _clear_cookie(out, request)
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
