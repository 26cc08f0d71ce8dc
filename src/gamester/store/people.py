"""Accounts, sessions and ratings in the database (the SQL side of docs/web.md, People).

:class:`PeopleStore` shares the table repository's engine and its SQLite write queue. It keeps no
secret in the clear: passwords arrive already hashed (argon2id), sessions as their SHA-256. What a
rating is, is decided elsewhere (:mod:`gamester.web.ratings`); :meth:`PeopleStore.apply_rating` only
makes sure a table's result moves the ratings exactly once, whatever the number of servers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from gamester.store.moderation import ban_of, banned_clause, blocked_by, forget_blocks
from gamester.store.port import (
    AccountRow,
    Bucket,
    Participant,
    PeopleRepository,
    Rating,
    RatingRule,
    Rekey,
    Revoked,
    TableRow,
)
from gamester.store.repository import SqlTableRepository, insert_table, load_json
from gamester.store.schema import (
    accounts,
    chat,
    rating_history,
    rating_pairs,
    ratings,
    seats,
    sessions,
    tables,
    throttle,
)

BOT_PREFIX = "bot:"
"""Rating keys of computer players: ``bot:`` + the agent spec (no account name has a colon)."""


def _rekey(c: sa.Connection, key: str, rekey: Rekey) -> list[str]:
    """Give the account a new seat key and every seat it holds the token that key derives (the old
    tokens are void everywhere at once); the ids of those tables not over yet."""
    c.execute(accounts.update().where(accounts.c.key == key).values(seat_key=rekey.seat_key))
    held = c.execute(
        sa.select(seats.c.table_id, seats.c.seat, tables.c.status)
        .join(tables, tables.c.id == seats.c.table_id)
        .where(seats.c.account == key, seats.c.token_hash.is_not(None))
    ).all()
    if held:
        c.execute(
            seats.update()
            .where(
                seats.c.table_id == sa.bindparam("t"),
                seats.c.seat == sa.bindparam("s"),
                seats.c.account == key,
            )
            .values(token_hash=sa.bindparam("h")),
            [{"t": r.table_id, "s": r.seat, "h": rekey.token_hash(r.table_id, r.seat)} for r in held],
        )
    return sorted({r.table_id for r in held if r.status != "over"})


class _Refused(Exception):
    def __init__(self, wait: float) -> None:
        self.wait = wait


DAY = 24 * 3600.0
CHAT_KEPT = 500
"""Chat lines a table keeps (its last ones): a table's chat cannot grow without end."""


def _account(r: sa.Row[Any] | None) -> AccountRow | None:
    if r is None:
        return None
    return AccountRow(r.key, r.name, r.password_hash, r.seat_key, r.created, r.skeleton)


class PeopleStore:
    def __init__(self, repo: SqlTableRepository, initial: Rating) -> None:
        self.repo = repo
        self.engine = repo.engine
        self.initial = initial
        self._said = 0  # chat lines with an allowance, to forget full allowances now and then

    # -- accounts ------------------------------------------------------------------------------
    def create_account(self, row: AccountRow) -> str | None:
        """None once made; else the name of the account in the way: the same key (the name ignoring
        case), or one whose name reads alike (the same ``skeleton``; checked in the same transaction,
        so of two look-alikes made at once on one database at most one is stored, SQLite writes being
        one at a time and PostgreSQL's second insert waiting for the first's index entry)."""
        try:
            with self.repo.write() as c:
                alike = c.execute(
                    sa.select(accounts.c.name).where(
                        sa.or_(accounts.c.key == row.key, accounts.c.skeleton == row.skeleton)
                    )
                ).first()
                if alike is not None:
                    return str(alike.name)
                c.execute(accounts.insert().values(**row.__dict__))
        except sa.exc.IntegrityError:
            return row.name
        return None

    def name_like(self, skeleton: str) -> str | None:
        """The name of an account that reads like ``skeleton``, if any."""
        q = sa.select(accounts.c.name).where(accounts.c.skeleton == skeleton).limit(1)
        with self.engine.connect() as c:
            v = c.execute(q).scalar()
        return None if v is None else str(v)

    def fill_skeletons(self, skeleton: Callable[[str], str], limit: int = 10_000) -> int:
        """Give the accounts made before skeletons were kept (migration 0007) theirs."""
        with self.engine.connect() as c:
            rows = c.execute(
                sa.select(accounts.c.key, accounts.c.name).where(accounts.c.skeleton.is_(None)).limit(limit)
            ).all()
        if rows:
            with self.repo.write() as c:
                for r in rows:
                    c.execute(
                        accounts.update().where(accounts.c.key == r.key).values(skeleton=skeleton(r.name))
                    )
        return len(rows)

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
            .where(~banned_clause(accounts.c.key, now))  # a session opened as the ban was made
        )
        with self.engine.connect() as c:
            return _account(c.execute(q).first())

    def drop_session(self, token_hash: str) -> None:
        with self.repo.write() as c:
            c.execute(sessions.delete().where(sessions.c.token_hash == token_hash))

    def set_password(self, key: str, was: str, new_hash: str, keep: str, rekey: Rekey) -> Revoked | None:
        """Replace the account's password hash ``was`` by ``new_hash``, end every session of the
        account but ``keep`` (a session's hash) and void its seat tokens (``rekey``), in one
        transaction; None if the hash is not ``was`` any more (changed meanwhile; nothing done)."""
        with self.repo.write() as c:
            n = c.execute(
                accounts.update()
                .where(accounts.c.key == key, accounts.c.password_hash == was)
                .values(password_hash=new_hash)
            ).rowcount
            if n != 1:
                return None
            ended = c.execute(
                sessions.delete().where(sessions.c.account == key, sessions.c.token_hash != keep)
            ).rowcount
            return Revoked(int(ended), _rekey(c, key, rekey))

    def log_out_everywhere(self, key: str, rekey: Rekey) -> Revoked:
        """End every session of the account and void its seat tokens (``rekey``), in one transaction."""
        with self.repo.write() as c:
            ended = c.execute(sessions.delete().where(sessions.c.account == key)).rowcount
            return Revoked(int(ended), _rekey(c, key, rekey))

    def delete_account(self, key: str, was: str, shown_as: str) -> list[str]:
        """Delete the account (its login, sessions, ratings and rating history) in one transaction,
        unless it holds a seat at an unfinished table: then nothing is deleted and those tables' ids
        are returned (at most 20). Its seats at finished tables stay, with their records, as a
        guest's seats named ``shown_as``, and so do the chat lines said from them. ``LookupError`` if
        the account is gone or its password hash is not ``was`` any more (changed meanwhile)."""
        with self.repo.write() as c:
            held = c.execute(
                sa.select(accounts.c.password_hash).where(accounts.c.key == key).with_for_update()
            ).first()
            if held is None or held.password_hash != was:
                raise LookupError(key)
            unfinished = c.execute(
                sa.select(seats.c.table_id)
                .join(tables, tables.c.id == seats.c.table_id)
                .where(seats.c.account == key, tables.c.status != "over")
                .order_by(seats.c.table_id)
                .limit(20)
            )
            blocking = [r[0] for r in unfinished]
            if blocking:
                return blocking
            said_from_its_seats = sa.exists().where(
                seats.c.table_id == chat.c.table_id, seats.c.seat == chat.c.seat, seats.c.account == key
            )
            c.execute(chat.update().where(said_from_its_seats).values(name=shown_as, account=None))
            c.execute(chat.update().where(chat.c.account == key).values(name=shown_as, account=None))
            c.execute(seats.update().where(seats.c.account == key).values(name=shown_as, account=None))
            for t in (sessions, ratings, rating_history):
                c.execute(t.delete().where(t.c.account == key))
            c.execute(
                rating_pairs.delete().where(sa.or_(rating_pairs.c.low == key, rating_pairs.c.high == key))
            )
            forget_blocks(c, key)
            c.execute(accounts.delete().where(accounts.c.key == key))
        return []

    # -- throttles ----------------------------------------------------------------------------
    def take_tokens(self, buckets: list[Bucket], now: float) -> float:
        """Take one try from each bucket, all or none, in one transaction: 0.0 if taken, else the
        seconds until the first bucket that refused has one (then none is taken). Each bucket is one
        conditional update, so two servers taking the last try at once cannot both get it (on
        PostgreSQL the second waits for the first's row lock and then reads the bucket it left);
        buckets are taken in the order given, which callers keep the same, so two cannot deadlock.
        A clock behind the one that wrote a bucket refills nothing rather than going back in time."""
        t = throttle.c
        at_now = sa.literal(now, sa.Float)
        ins = (postgresql.insert if self.engine.dialect.name == "postgresql" else sqlite.insert)(throttle)
        try:
            with self.repo.write() as c:
                for b in buckets:
                    refilled = sa.case((at_now > t.at, t.tokens + (at_now - t.at) / b.every), else_=t.tokens)
                    capped = sa.case((refilled > b.burst, sa.literal(b.burst, sa.Float)), else_=refilled)
                    here = sa.and_(t.kind == b.kind, t.key == b.key)
                    c.execute(
                        ins.on_conflict_do_nothing(index_elements=["kind", "key"]),
                        {"kind": b.kind, "key": b.key, "tokens": b.burst, "at": now},
                    )
                    taken = c.execute(
                        throttle.update()
                        .where(here, capped >= 1.0)
                        .values(tokens=capped - 1.0, at=sa.case((at_now > t.at, at_now), else_=t.at))
                    ).rowcount
                    if taken != 1:
                        left = c.execute(sa.select(capped).where(here)).scalar()
                        raise _Refused((1.0 - float(left if left is not None else b.burst)) * b.every)
        except _Refused as refused:  # the transaction rolled back: nothing was taken
            return max(0.0, refused.wait)
        return 0.0

    def give_tokens(self, buckets: list[Bucket]) -> None:
        """Put back a try taken by :meth:`take_tokens` from each bucket (a log-in that was right)."""
        t = throttle.c
        with self.repo.write() as c:
            for b in buckets:
                c.execute(
                    throttle.update()
                    .where(t.kind == b.kind, t.key == b.key)
                    .values(tokens=sa.case((t.tokens + 1.0 > b.burst, b.burst), else_=t.tokens + 1.0))
                )

    def forget_full_buckets(self, kind: str, before: float) -> int:
        """Drop the buckets of ``kind`` untouched since ``before`` (the caller's time by which any
        bucket is full again: a full bucket and no bucket mean the same)."""
        with self.repo.write() as c:
            gone = c.execute(throttle.delete().where(throttle.c.kind == kind, throttle.c.at < before))
            return int(gone.rowcount)

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
                    "returns": load_json(r.returns),
                    "rated": bool(r.rated),
                    "created": r.created,
                }
                for r in c.execute(q)
            ]

    def history_of(self, key: str, limit: int) -> list[dict[str, Any]]:
        """The account's rating after each rated table, oldest first (the newest ``limit``)."""
        h = rating_history
        # A private table is never shown in public, on a player's page either (its rating moved, though).
        public = sa.select(tables.c.id).where(tables.c.id == h.c.table_id, tables.c.private.is_(False))
        q = (
            sa.select(h)
            .where(h.c.account == key, public.exists())
            .order_by(h.c.at.desc(), h.c.table_id)
            .limit(limit)
        )
        with self.engine.connect() as c:
            rows = [
                {"table": r.table_id, "game": r.game, "rating": r.rating, "deviation": r.deviation,
                 "score": r.score, "at": r.at}
                for r in c.execute(q)
            ]  # fmt: skip
        rows.reverse()
        return rows

    # -- chat and rematches --------------------------------------------------------------------
    def add_chat(
        self,
        table_id: str,
        seat: int | None,
        name: str,
        text: str,
        at: float,
        allowance: list[Bucket] | None = None,
        keep: int = CHAT_KEPT,
        account: str | None = None,
    ) -> int | None:
        """Store a chat line (said by ``account``, a key, if any), spending a try of each
        ``allowance`` bucket first, all or none: its id, or None if a bucket was empty (then nothing
        is stored). The table keeps only its last ``keep`` lines: older ones go in the same
        transaction as the new one."""
        if allowance:
            self._said += 1
            if self._said % 512 == 0:  # now and then, forget the allowances that are full again
                b = allowance[0]
                self.forget_full_buckets(b.kind, at - b.burst * b.every)
            if self.take_tokens(allowance, at) > 0:
                return None
        with self.repo.write() as c:
            r = c.execute(
                chat.insert().values(
                    table_id=table_id, seat=seat, name=name, text=text, at=at, account=account
                )
            )
            oldest_kept = (
                sa.select(chat.c.id)
                .where(chat.c.table_id == table_id)
                .order_by(chat.c.id.desc())
                .offset(keep - 1)
                .limit(1)
                .scalar_subquery()
            )
            c.execute(chat.delete().where(chat.c.table_id == table_id, chat.c.id < oldest_kept))
            key = r.inserted_primary_key
            return int(key[0]) if key is not None else 0

    def chat_count(self, table_id: str) -> int:
        q = sa.select(sa.func.count()).select_from(chat).where(chat.c.table_id == table_id)
        with self.engine.connect() as c:
            return int(c.execute(q).scalar_one())

    def blocked_by(self, account: str) -> frozenset[str]:
        return blocked_by(self.engine, account)

    def is_banned(self, account: str, now: float) -> bool:
        return ban_of(self.engine, account, now) is not None

    def last_chat(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        """The table's last ``limit`` chat messages, oldest first, each with its ``id``."""
        q = sa.select(chat).where(chat.c.table_id == table_id).order_by(chat.c.id.desc()).limit(limit)
        with self.engine.connect() as c:
            rows = [
                {"id": r.id, "seat": r.seat, "name": r.name, "text": r.text, "at": r.at, "account": r.account}
                for r in c.execute(q)
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

    def apply_rating(
        self,
        table_id: str,
        rule: RatingRule,
        now: float,
        *,
        bot_key: Callable[[str], str] = lambda spec: spec,
        movers: set[int] | None = None,
        pair_limit: int | None = None,
    ) -> bool:
        """Move the ratings of a finished rated table's players, once: the flag that says so is set
        in the same transaction, by an update that only one transaction can make (on PostgreSQL the
        second waits for the first's row lock, then finds the flag set). False if there was nothing
        to do (not rated, not over, or already applied).

        A bot is rated under ``bot:`` + ``bot_key(spec)`` (one rating per agent however its spec is
        written). ``movers``: the seats that made a move of their own; a table where a human seat made
        none was not played, and counts for nobody. ``pair_limit``: between the same two players at
        most this many results a day move ratings (counted in ``gm_rating_pairs``, read once both
        players' rating rows are locked, so two tables of one pair ending at once are counted in turn);
        past it that pair's comparison is left out of the table's result."""
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
            returns = load_json(row.returns) or []
            keyed: list[tuple[int, str]] = []
            for s in c.execute(sa.select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat)):
                if s.kind == "bot":
                    keyed.append((s.seat, BOT_PREFIX + bot_key(s.agent or "random")))
                elif s.account is not None and (movers is None or s.seat in movers):
                    keyed.append((s.seat, s.account))
                else:  # a guest (cannot sit at a rated table), or a person who never moved: not played
                    return True
            if len(keyed) < 2 or len(returns) != len(keyed) or len({k for _, k in keyed}) != len(keyed):
                return True
            before = self._lock_ratings(c, row.game, sorted(k for _, k in keyed))
            people = [Participant(seat, key, float(returns[seat]), before[key]) for seat, key in keyed]
            capped = self._used_up_pairs(c, people, now, pair_limit)
            after = rule(people, capped)
            moved = [(p, got) for p, got in zip(people, after, strict=True) if got is not None]
            for p, (r, _) in moved:
                c.execute(
                    ratings.update()
                    .where(ratings.c.account == p.key, ratings.c.game == row.game)
                    .values(rating=r.rating, deviation=r.deviation, volatility=r.volatility, games=r.games)
                )
            if moved:
                c.execute(
                    rating_history.insert(),
                    [
                        {"table_id": table_id, "account": p.key, "game": row.game, "rating": r.rating,
                         "deviation": r.deviation, "score": score, "at": now}
                        for p, (r, score) in moved
                    ],
                )  # fmt: skip
            counted = [
                {"table_id": table_id, "low": min(a.key, b.key), "high": max(a.key, b.key), "at": now}
                for i, a in enumerate(people)
                for j, b in enumerate(people)
                if i < j and frozenset((a.seat, b.seat)) not in capped
            ]
            if counted:
                c.execute(rating_pairs.insert(), counted)
        return True

    @staticmethod
    def _used_up_pairs(
        c: sa.Connection, people: list[Participant], now: float, limit: int | None
    ) -> set[frozenset[int]]:
        """The pairs of seats whose two players have had ``limit`` results move ratings in the day
        before ``now``."""
        out: set[frozenset[int]] = set()
        if limit is None:
            return out
        rp = rating_pairs.c
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                low, high = min(a.key, b.key), max(a.key, b.key)
                n = c.execute(
                    sa.select(sa.func.count())
                    .select_from(rating_pairs)
                    .where(rp.low == low, rp.high == high, rp.at > now - DAY)
                ).scalar_one()
                if n >= limit:
                    out.add(frozenset((a.seat, b.seat)))
        return out

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


def _conforms(store: PeopleStore) -> PeopleRepository:
    return store  # mypy checks here that the adapter implements the whole port
