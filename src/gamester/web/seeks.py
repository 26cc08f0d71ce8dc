"""Quick play's rules: what a seek is and who sits with whom (docs/web.md, Quick play).

Pure functions over seek rows and time, no I/O: :mod:`gamester.store.seeks` runs :func:`decide`
inside the transaction that holds a pool, and :mod:`gamester.web.lobby` serves the routes.

- A seek names a game, its options (canonical: every option as the game fills it in), ``rated``,
  the player count and the clock. Seeks agreeing on all five share a *pool* (:func:`pool_of`).
- As soon as a pool holds enough seeks that may sit together (:func:`fits`: not the same account
  twice, no block between them, and at a rated table ratings within :func:`window`, which starts at
  200 points and widens with time waited), the oldest such group is seated at a new table, each seat
  already taken (:func:`decide`).
- ``bots_after: S``: S seconds after the seek was made (``fill_at``, kept in the database, so any
  server may do it, before or after a restart), its table is made with whoever waits in its pool
  and accepts bots too, and the lobby's default computer player (:func:`default_bot`) in every
  other seat.
- A seek lives ``SEEK_SECONDS`` at most, and ``UNPOLLED_SECONDS`` without its seeker asking about it.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import hmac
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gamester.core.errors import GameError
from gamester.core.registry import load_game
from gamester.store.port import Decide, Pool, SeekRepository, SeekRow, SeekTimes, TableRow
from gamester.web import decisions as d
from gamester.web import slow
from gamester.web.accounts import seat_token_of
from gamester.web.decisions import short
from gamester.web.errors import BadInput, NotLoggedIn
from gamester.web.menu import MenuError, agent_menu, check_options, check_seat
from gamester.web.names import name_problem

SEEK_SECONDS = 600.0
"""A seek waits ten minutes at most."""
UNPOLLED_SECONDS = 30.0
"""A seek nobody asks about for this long is expired (its seeker closed the page)."""
SEEKS_PER_ADDRESS = 3
"""Seeks one address may have open at once (then 429 rate_limited)."""
TIMES = SeekTimes(SEEK_SECONDS, UNPOLLED_SECONDS)
"""What the store is told of a seek's life (``open_stores``)."""
KEEP_SECONDS = 3600.0
"""How long a seek that stopped waiting can still be asked about (its table, its seat)."""
MAX_BOTS_AFTER = SEEK_SECONDS
WINDOW = 200.0
"""Rated: ratings at most this far apart at first…"""
WIDEN_EVERY = 10.0
WIDEN_BY = 50.0
"""…then wider by this much every ``WIDEN_EVERY`` seconds waited…"""
MAX_WINDOW = 700.0
"""…up to this."""
GUEST = "guest"
"""How the lobby names a guest's seek."""
FIELDS = ("game", "options", "rated", "clock", "players", "bots_after", "name")


@dataclass(frozen=True)
class SeekSpec:
    """A checked seek: the game, every option (canonical), the player count, rated, the clock, when
    bots may fill (seconds, None: people only) and the name its seat shows."""

    game: str
    options: dict[str, Any]
    players: int
    rated: bool
    clock: dict[str, Any] | None
    bots_after: float | None
    name: str


def read(data: dict[str, Any], account: str | None) -> SeekSpec:
    """A ``POST /api/seeks`` body checked for the seeker (``account``: its name, None for a guest);
    a refusal (web/errors.py) with one line otherwise."""
    from gamester.web.validate import game_and_options

    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise BadInput(f"unknown field {unknown[0][:40]!r}; valid fields: " + ", ".join(FIELDS))
    name, options = game_and_options(data)
    players = data.get("players")
    if players is not None and (
        isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 16
    ):
        raise BadInput(f"players: expected a number of players, got {short(players)}", code="bad_players")
    try:
        cls = type(load_game(name))
    except GameError as e:
        raise BadInput(str(e), code="bad_game") from None
    if players is not None and "players" in {f.name for f in dataclasses.fields(cls.options_class)}:
        if options.get("players", players) != players:
            raise BadInput("players: not the number the options give (options.players)", code="bad_players")
        options = {**options, "players": players}
    try:
        game = load_game(name, **options)
        check_options(game.name, game.options_json())
    except GameError as e:
        raise BadInput(str(e).splitlines()[0][:300], code="bad_game") from None
    except MenuError as e:
        raise BadInput(str(e), code="bad_options") from None
    except (TypeError, ValueError, RecursionError) as e:
        raise BadInput(f"options: {type(e).__name__}: not valid", code="bad_game") from None
    if players is not None and game.num_players != players:
        raise BadInput(
            f"players: {game.spec()} is played by {game.num_players}, not {players}", code="bad_players"
        )
    rated = data.get("rated", False)
    if not isinstance(rated, bool):
        raise BadInput("rated: expected true or false", code="bad_rated")
    if rated and account is None:
        raise NotLoggedIn("rated: log in to seek a rated game")
    clock = d.check_clock(data.get("clock"))
    if slow.is_slow(clock) and account is None:
        raise NotLoggedIn("a clock of hours or days a move seats accounts: log in first")
    bots = data.get("bots_after")
    if bots is not None and (
        isinstance(bots, bool) or not isinstance(bots, int | float) or not 0 <= bots <= MAX_BOTS_AFTER
    ):
        raise BadInput(
            f"bots_after: expected null or seconds from 0 to {MAX_BOTS_AFTER:g}, got {short(bots)}",
            code="bad_bots_after",
        )
    shown = data.get("name")
    if account is not None:
        shown = account  # an account sits under its own name
    elif shown is None:
        shown = "Guest"
    elif not isinstance(shown, str):
        raise BadInput("name: expected text", code="bad_name")
    elif (problem := name_problem(shown)) is not None:
        raise BadInput(problem, code="bad_name")
    return SeekSpec(
        game=game.name,
        options=game.options_json(),
        players=game.num_players,
        rated=rated,
        clock=clock,
        bots_after=None if bots is None else float(bots),
        name=" ".join(shown.split()),
    )


def pool_of(spec: SeekSpec) -> str:
    """The pool's key: who agrees on the game, every option, rated, the player count and the clock."""
    text = json.dumps([spec.game, spec.options, spec.rated, spec.players, spec.clock], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


# -- who sits with whom ---------------------------------------------------------------------------
def window(waited: float) -> float:
    """How far apart two ratings may be after ``waited`` seconds (the longer waiter's counts)."""
    return min(MAX_WINDOW, WINDOW + WIDEN_BY * int(max(0.0, waited) // WIDEN_EVERY))


def fits(a: SeekRow, b: SeekRow, blocks: frozenset[tuple[str, str]], now: float) -> bool:
    """Whether two seeks of a pool may sit at one table."""
    if (
        a.account is not None
        and b.account is not None
        and (a.account == b.account or (a.account, b.account) in blocks or (b.account, a.account) in blocks)
    ):
        return False
    if a.rated:
        if a.rating is None or b.rating is None:
            return False
        wide = max(window(now - a.created), window(now - b.created))
        return abs(a.rating - b.rating) <= wide
    return True


def _group(first: SeekRow, others: list[SeekRow], n: int, pool: Pool, now: float) -> list[SeekRow]:
    group = [first]
    for s in others:
        if len(group) == n:
            break
        if all(fits(s, g, pool.blocks, now) for g in group):
            group.append(s)
    return group


def choose(pool: Pool, now: float) -> tuple[list[SeekRow], int] | None:
    """The seeks to seat now and how many bots join them, or None. A full table of people first
    (the oldest seek that can head one, with the oldest that fit); else the oldest seek whose bots
    are due, with those that fit it among the seeks that accept bots too."""
    live = pool.seeks
    if not live:
        return None
    n = live[0].players
    for i, first in enumerate(live):
        group = _group(first, live[i + 1 :], n, pool, now)
        if len(group) == n:
            return group, 0
    for first in live:
        if first.fill_at is not None and first.fill_at <= now:
            willing = [s for s in live if s is not first and s.bots_after is not None]
            group = _group(first, willing, n, pool, now)
            return group, n - len(group)
    return None


@functools.cache
def _default_bot(game_name: str, options: str) -> str:
    game = load_game(game_name, **json.loads(options))
    menu = agent_menu(game.name)
    playable = []
    for entry in sorted(menu, key=lambda e: int(e["strength"])):  # weakest first, as the menu
        try:
            check_seat(game, entry["spec"], menu)
        except MenuError:
            continue
        playable.append(entry)
    gentle = (
        [e for e in playable if e["strength"] == 1] or [e for e in playable if e["strength"] > 0] or playable
    )
    return str(gentle[0]["spec"]) if gentle else "random"


def default_bot(game: str, options: dict[str, Any]) -> str:
    """The lobby's default computer player for these options, as the lobby's table form seats it
    (docs/web-ui.md, Seats): a gentle one, the first at the heuristic's level that can play them,
    else the first above a random player, else the strongest."""
    return _default_bot(game, json.dumps(options, sort_keys=True))


def seat_token(seek: SeekRow, seat_keys: dict[str, str], table_id: str, seat: int) -> str:
    """The token of the seat a seek was given. An account's is its own token for that seat (the one it
    gets from any device: web/accounts.py ``People.seat_token``); a guest's is derived from its seek
    token's hash, which only the server holds, so it can be told again to whoever holds the seek token."""
    if seek.account is not None and seek.account in seat_keys:
        return seat_token_of(seat_keys[seek.account], table_id, seat)
    mac = hmac.new(seek.token_hash.encode(), f"seek:{table_id}:{seat}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:24]).decode("ascii")


def _names(group: list[SeekRow]) -> list[str]:
    """The names the seats show, a number added where two would read alike."""
    out: list[str] = []
    for s in group:
        name, k = s.name, 2
        while name.casefold() in (x.casefold() for x in out):
            name, k = f"{s.name[: d.MAX_NAME - 3]} {k}", k + 1
        out.append(name)
    return out


def table_for(
    pool: Pool, now: float, *, table_id: str, seed: int, rng: random.Random
) -> tuple[TableRow, dict[str, int]] | None:
    """The table :func:`choose` seats, every seat taken (each seek's with its seat token), already
    playing; and the seat of each seek. The seats are shuffled (who deals first is the table's luck)."""
    picked = choose(pool, now)
    if picked is None:
        return None
    group, bots = picked
    first = group[0]
    n = first.players
    seats = list(range(n))
    rng.shuffle(seats)
    kinds = ["human"] * n
    for seat in seats[len(group) :]:
        kinds[seat] = default_bot(first.game, first.options)
    row, state = d.new_table(
        first.game,
        first.options,
        kinds,
        first.clock,
        table_id=table_id,
        seed=seed,
        now=now,
        rated=first.rated,
    )
    placed: dict[str, int] = {}
    for seek, seat, name in zip(group, seats, _names(group), strict=False):
        s = row.seats[seat]
        s.name, s.account = name, seek.account
        s.token_hash = d.hash_token(seat_token(seek, pool.seat_keys, table_id, seat))
        placed[seek.id] = seat
    begins = d.starts(row, state, now)
    if not isinstance(begins, bool):
        row.status, row.deadline = "playing", begins
    row.turns_key = first.address_key  # its bots take turns as its oldest seeker's address's
    return row, placed


def decide(new_id: Callable[[], str], new_seed: Callable[[], int], rng: random.Random) -> Decide:
    """The rule the store runs in a pool's transaction: :func:`table_for` with fresh ids and seeds."""

    def run(pool: Pool, now: float) -> tuple[TableRow, dict[str, int]] | None:
        return table_for(pool, now, table_id=new_id(), seed=new_seed(), rng=rng)

    return run


def open_seek_count(seeks: SeekRepository, now: float | None = None) -> int:
    """How many seeks wait now, made on any server on the database (one read): a gauge for
    ``/metrics`` (the app's seeks: ``app.state.lobby.seeks``)."""
    return seeks.count_open(time.time() if now is None else now)


# -- what is told ---------------------------------------------------------------------------------
def public(s: SeekRow, now: float) -> dict[str, Any]:
    """A seek as the lobby lists it: never its token, address or the guest's name."""
    return {
        "id": s.id,
        "game": s.game,
        "options": s.options,
        "players": s.players,
        "rated": s.rated,
        "clock": s.clock,
        "bots_after": s.bots_after,
        "name": s.name if s.account is not None else GUEST,
        "rating": None if s.rating is None else round(s.rating),
        "waited": round(max(0.0, now - s.created), 1),
    }


def status(s: SeekRow, seat_keys: dict[str, str]) -> dict[str, Any]:
    """What ``GET /api/seeks/{id}`` tells the seeker: its status, and once matched its table, seat and
    seat token."""
    out: dict[str, Any] = {"seek": s.id, "status": s.status}
    if s.status == "matched" and s.table_id is not None and s.seat is not None:
        out.update(table=s.table_id, seat=s.seat, seat_token=seat_token(s, seat_keys, s.table_id, s.seat))
    return out
