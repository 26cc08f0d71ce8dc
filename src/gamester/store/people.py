"""Accounts, sessions and ratings in the database (the SQL side of docs/web.md, People).

:class:`PeopleStore` shares the table repository's engine and its SQLite write queue. It keeps no
secret in the clear: passwords arrive already hashed (argon2id), sessions as their SHA-256. What a
rating is, is decided elsewhere (:mod:`gamester.web.ratings`); :meth:`PeopleStore.apply_rating` only
makes sure a table's result moves the ratings exactly once, whatever the number of servers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from gamester.store.port import TableRow
from gamester.store.repository import SqlTableRepository, _load, insert_table
from gamester.store.schema import accounts, chat, rating_history, ratings, seats, sessions, tables

BOT_PREFIX = "bot:"
"""Rating keys of computer players: ``bot:`` + the agent spec (no account name has a colon)."""


@dataclass(frozen=True)
class AccountRow:
    key: str
    name: str
    password_hash: str
    seat_key: str
    created: float


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


RatingRule = Callable[[list[Participant]], list[tuple[Rating, float]]]
"""Each participant's new rating and its result at the table from 0 to 1, in the same order."""


def _account(r: sa.Row[Any] | None) -> AccountRow | None:
    if r is None:
        return None
    return AccountRow(r.key, r.name, r.password_hash, r.seat_key, r.created)


class PeopleStore:
    def __init__(self, repo: SqlTableRepository, initial: Rating) -> None:
        self.repo = repo
        self.engine = repo.engine
        self.initial = initial

    # -- accounts ------------------------------------------------------------------------------
    def create_account(self, row: AccountRow) -> bool:
        """False if the key (the name ignoring case) is taken."""
        try:
            with self.repo.write() as c:
                c.execute(accounts.insert().values(**row.__dict__))
        except sa.exc.IntegrityError:
            return False
        return True

    def account(self, key: str) -> AccountRow | None:
        with self.engine.connect() as c:
            return _account(c.execute(sa.select(accounts).where(accounts.c.key == key)).first())

    # -- sessions ------------------------------------------------------------------------------
    def add_session(self, token_hash: str, key: str, now: float, expires: float, keep: int = 50) -> None:
        """A new session; the account's expired ones go, and all but its newest ``keep``."""
        with self.repo.write() as c:
            c.execute(sessions.delete().where(sessions.c.account == key, sessions.c.expires < now))
            newest = (
                sa.select(sessions.c.token_hash)
                .where(sessions.c.account == key)
                .order_by(sessions.c.created.desc())
                .limit(keep - 1)
            )
            c.execute(
                sessions.delete().where(sessions.c.account == key, sessions.c.token_hash.not_in(newest))
            )
            c.execute(
                sessions.insert().values(token_hash=token_hash, account=key, created=now, expires=expires)
            )

    def session_account(self, token_hash: str, now: float) -> AccountRow | None:
        q = (
            sa.select(accounts)
            .join(sessions, sessions.c.account == accounts.c.key)
            .where(sessions.c.token_hash == token_hash, sessions.c.expires > now)
        )
        with self.engine.connect() as c:
            return _account(c.execute(q).first())

    def drop_session(self, token_hash: str) -> None:
        with self.repo.write() as c:
            c.execute(sessions.delete().where(sessions.c.token_hash == token_hash))

    def drop_sessions(self, key: str) -> int:
        with self.repo.write() as c:
            return int(c.execute(sessions.delete().where(sessions.c.account == key)).rowcount)

    # -- reading ratings -----------------------------------------------------------------------
    def ratings_of(self, key: str) -> dict[str, Rating]:
        q = sa.select(ratings).where(ratings.c.account == key).order_by(ratings.c.game)
        with self.engine.connect() as c:
            return {r.game: Rating(r.rating, r.deviation, r.volatility, r.games) for r in c.execute(q)}

    def leaderboard(self, game: str, limit: int) -> list[tuple[str, Rating]]:
        """(account name, rating) best first; computer players are not listed."""
        q = (
            sa.select(accounts.c.name, ratings)
            .join(accounts, accounts.c.key == ratings.c.account)
            .where(ratings.c.game == game)
            .order_by(ratings.c.rating.desc(), accounts.c.key)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [(r.name, Rating(r.rating, r.deviation, r.volatility, r.games)) for r in c.execute(q)]

    def tables_of(self, key: str, limit: int) -> list[dict[str, Any]]:
        """The account's tables but private ones, most recent first: id, game, status, seat, returns,
        created."""
        q = (
            sa.select(tables.c.id, tables.c.game, tables.c.status, tables.c.returns, tables.c.created,
                      tables.c.rated, seats.c.seat)
            .join(seats, seats.c.table_id == tables.c.id)
            .where(seats.c.account == key, tables.c.private.is_(False))  # a private table is unlisted
            .order_by(tables.c.created.desc(), tables.c.id)
            .limit(limit)
        )  # fmt: skip
        with self.engine.connect() as c:
            return [
                {
                    "id": r.id,
                    "game": r.game,
                    "status": r.status,
                    "seat": r.seat,
                    "returns": _load(r.returns),
                    "rated": bool(r.rated),
                    "created": r.created,
                }
                for r in c.execute(q)
            ]

    def history_of(self, key: str, limit: int) -> list[dict[str, Any]]:
        """The account's rating after each rated table, oldest first (the newest ``limit``)."""
        h = rating_history
        q = sa.select(h).where(h.c.account == key).order_by(h.c.at.desc(), h.c.table_id).limit(limit)
        with self.engine.connect() as c:
            rows = [
                {"table": r.table_id, "game": r.game, "rating": r.rating, "deviation": r.deviation,
                 "score": r.score, "at": r.at}
                for r in c.execute(q)
            ]  # fmt: skip
        rows.reverse()
        return rows

    # -- chat and rematches --------------------------------------------------------------------
    def add_chat(self, table_id: str, seat: int | None, name: str, text: str, at: float) -> int:
        with self.repo.write() as c:
            r = c.execute(chat.insert().values(table_id=table_id, seat=seat, name=name, text=text, at=at))
            key = r.inserted_primary_key
            return int(key[0]) if key is not None else 0

    def last_chat(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        """The table's last ``limit`` chat messages, oldest first, each with its ``id``."""
        q = sa.select(chat).where(chat.c.table_id == table_id).order_by(chat.c.id.desc()).limit(limit)
        with self.engine.connect() as c:
            rows = [
                {"id": r.id, "seat": r.seat, "name": r.name, "text": r.text, "at": r.at} for r in c.execute(q)
            ]
        rows.reverse()
        return rows

    def rematch_of(self, table_id: str) -> str | None:
        with self.engine.connect() as c:
            v = c.execute(sa.select(tables.c.rematch).where(tables.c.id == table_id)).scalar()
        return None if v is None else str(v)

    def link_rematch(self, old_id: str, new: TableRow) -> str:
        """Make ``new`` the rematch of the finished table ``old_id`` unless another seat (on any
        server) got there first: one transaction, guarded like a move. Returns the rematch's id —
        ``new.id``, or the one made first (then ``new`` is not stored)."""
        t = tables.c
        with self.repo.write() as c:
            n = c.execute(
                tables.update()
                .where(t.id == old_id, t.status == "over", t.rematch.is_(None))
                .values(rematch=new.id)
            ).rowcount
            if n == 1:
                insert_table(c, new)
                return new.id
        found = self.rematch_of(old_id)
        if found is None:
            raise LookupError(old_id)
        return found

    # -- moving ratings ------------------------------------------------------------------------
    def unapplied(self, limit: int) -> list[str]:
        """Rated tables that are over and whose result has not moved the ratings yet."""
        q = (
            sa.select(tables.c.id)
            .where(tables.c.rated.is_(True), tables.c.status == "over", tables.c.rating_applied.is_(False))
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [r[0] for r in c.execute(q)]

    def apply_rating(self, table_id: str, rule: RatingRule, now: float) -> bool:
        """Move the ratings of a finished rated table's players, once: the flag that says so is set
        in the same transaction, by an update that only one transaction can make (on PostgreSQL the
        second waits for the first's row lock, then finds the flag set). False if there was nothing
        to do (not rated, not over, or already applied)."""
        t = tables.c
        with self.repo.write() as c:
            n = c.execute(
                tables.update()
                .where(t.id == table_id, t.rated.is_(True), t.status == "over", t.rating_applied.is_(False))
                .values(rating_applied=True)
            ).rowcount
            if n != 1:
                return False
            row = c.execute(sa.select(t.game, t.returns).where(t.id == table_id)).one()
            returns = _load(row.returns) or []
            keyed: list[tuple[int, str]] = []
            for s in c.execute(sa.select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat)):
                if s.kind == "bot":
                    keyed.append((s.seat, BOT_PREFIX + (s.agent or "random")))
                elif s.account is not None:
                    keyed.append((s.seat, s.account))
                else:  # a guest at a rated table (cannot be joined so): the table counts for nobody
                    return True
            if len(keyed) < 2 or len(returns) != len(keyed) or len({k for _, k in keyed}) != len(keyed):
                return True
            before = self._lock_ratings(c, row.game, sorted(k for _, k in keyed))
            people = [Participant(seat, key, float(returns[seat]), before[key]) for seat, key in keyed]
            after = rule(people)
            for p, (r, _) in zip(people, after, strict=True):
                c.execute(
                    ratings.update()
                    .where(ratings.c.account == p.key, ratings.c.game == row.game)
                    .values(rating=r.rating, deviation=r.deviation, volatility=r.volatility, games=r.games)
                )
            c.execute(
                rating_history.insert(),
                [
                    {"table_id": table_id, "account": p.key, "game": row.game, "rating": r.rating,
                     "deviation": r.deviation, "score": score, "at": now}
                    for p, (r, score) in zip(people, after, strict=True)
                ],
            )  # fmt: skip
        return True

    def _lock_ratings(self, c: sa.Connection, game: str, keys: list[str]) -> dict[str, Rating]:
        """Every key's rating row for ``game`` (made at the initial rating if new), locked until the
        transaction ends; taken in key order, so two tables ending at once cannot deadlock."""
        first = self.initial
        values = [
            {"account": k, "game": game, "rating": first.rating, "deviation": first.deviation,
             "volatility": first.volatility, "games": 0}
            for k in keys
        ]  # fmt: skip
        ins = (postgresql.insert if self.engine.dialect.name == "postgresql" else sqlite.insert)(ratings)
        c.execute(ins.on_conflict_do_nothing(index_elements=["account", "game"]), values)
        q = (
            sa.select(ratings)
            .where(ratings.c.game == game, ratings.c.account.in_(keys))
            .order_by(ratings.c.account)
            .with_for_update()
        )
        return {r.account: Rating(r.rating, r.deviation, r.volatility, r.games) for r in c.execute(q)}
