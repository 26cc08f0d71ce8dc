"""Blocks, reports, bans and chat deletion in the database (docs/web.md, Blocks, reports and bans).

Accounts are named by their key (the name case-folded, ``gm_accounts.key``). A block is one row
(blocker, blocked); a ban is one row per account (``until`` NULL: for good), and banning ends every
session of the account in the same transaction, so every server on the database refuses them at
once. Nothing here decides who may do what: that is :mod:`gamester.web.blocks` and
:mod:`gamester.web.admin`.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from gamester.store.port import Ban, ModerationRepository
from gamester.store.repository import SqlTableRepository
from gamester.store.schema import accounts, bans, blocks, chat, reports, sessions, tables


def banned_clause(key: sa.ColumnElement[str], now: float) -> sa.ColumnElement[bool]:
    """True where the account ``key`` is banned at ``now`` (for a query's WHERE)."""
    return sa.exists().where(bans.c.account == key, sa.or_(bans.c.until.is_(None), bans.c.until > now))


def blocked_by(engine: sa.Engine, blocker: str) -> frozenset[str]:
    """The keys of the accounts ``blocker`` blocks."""
    with engine.connect() as c:
        return frozenset(
            r[0] for r in c.execute(sa.select(blocks.c.blocked).where(blocks.c.blocker == blocker))
        )


def ban_of(engine: sa.Engine, key: str, now: float) -> Ban | None:
    """The account's ban in force at ``now``, or None."""
    b = bans.c
    with engine.connect() as c:
        r = c.execute(
            sa.select(bans).where(b.account == key, sa.or_(b.until.is_(None), b.until > now))
        ).first()
    return None if r is None else Ban(r.account, r.until, r.reason, r.created)


def forget_blocks(c: sa.Connection, key: str) -> None:
    """Inside an account's deletion: its blocks, both ways (a new account of the same name starts
    with none)."""
    c.execute(blocks.delete().where(sa.or_(blocks.c.blocker == key, blocks.c.blocked == key)))


class ModerationStore:
    def __init__(self, repo: SqlTableRepository) -> None:
        self.repo = repo
        self.engine = repo.engine

    def account_name(self, key: str) -> str | None:
        """The account's name as written, None if there is no such account."""
        with self.engine.connect() as c:
            v = c.execute(sa.select(accounts.c.name).where(accounts.c.key == key)).scalar()
        return None if v is None else str(v)

    # -- blocks ---------------------------------------------------------------------------------
    def block(self, blocker: str, blocked: str, now: float, most: int) -> str:
        """``ok`` (blocked now), ``again`` (already was) or ``too_many`` (``most`` held already)."""
        b = blocks.c
        with self.repo.write() as c:
            held = c.execute(
                sa.select(sa.func.count()).select_from(blocks).where(b.blocker == blocker)
            ).scalar_one()
            if c.execute(sa.select(b.created).where(b.blocker == blocker, b.blocked == blocked)).first():
                return "again"
            if held >= most:
                return "too_many"
            c.execute(blocks.insert().values(blocker=blocker, blocked=blocked, created=now))
        return "ok"

    def unblock(self, blocker: str, blocked: str) -> bool:
        with self.repo.write() as c:
            n = c.execute(
                blocks.delete().where(blocks.c.blocker == blocker, blocks.c.blocked == blocked)
            ).rowcount
        return bool(n == 1)

    def blocks_of(self, blocker: str) -> list[dict[str, Any]]:
        """Who ``blocker`` blocks, newest first: ``{"name", "since"}`` (a deleted account by its key)."""
        b = blocks.c
        q = (
            sa.select(b.blocked, accounts.c.name, b.created)
            .select_from(blocks.outerjoin(accounts, accounts.c.key == b.blocked))
            .where(b.blocker == blocker)
            .order_by(b.created.desc(), b.blocked)
        )
        with self.engine.connect() as c:
            return [{"name": r[1] or r[0], "since": r[2]} for r in c.execute(q)]

    def related(self, key: str) -> frozenset[str]:
        """Every account that blocks ``key`` or that ``key`` blocks: none of them sits with it."""
        b = blocks.c
        q = sa.select(b.blocked).where(b.blocker == key).union(sa.select(b.blocker).where(b.blocked == key))
        with self.engine.connect() as c:
            return frozenset(r[0] for r in c.execute(q))

    # -- reports --------------------------------------------------------------------------------
    def report(self, reporter: str, reported: str, table_id: str | None, reason: str, now: float) -> int:
        with self.repo.write() as c:
            r = c.execute(
                reports.insert().values(
                    reporter=reporter, reported=reported, table_id=table_id, reason=reason, created=now
                )
            )
            key = r.inserted_primary_key
            return int(key[0]) if key is not None else 0

    def reports(self, limit: int, now: float) -> list[dict[str, Any]]:
        """The newest reports first: who reported whom (names as written, or keys of accounts gone),
        where, why, when, and whether the reported account is banned now."""
        r = reports.c
        by = accounts.alias("by")
        of = accounts.alias("of")
        q = (
            sa.select(r.id, r.reporter, by.c.name, r.reported, of.c.name, r.table_id, r.reason, r.created,
                      banned_clause(r.reported, now).label("banned"))
            .select_from(reports.outerjoin(by, by.c.key == r.reporter).outerjoin(of, of.c.key == r.reported))
            .order_by(r.created.desc(), r.id.desc())
            .limit(limit)
        )  # fmt: skip
        with self.engine.connect() as c:
            return [
                {"id": x[0], "reporter": x[2] or x[1], "reported": x[4] or x[3], "table": x[5],
                 "reason": x[6], "at": x[7], "banned": bool(x[8])}
                for x in c.execute(q)
            ]  # fmt: skip

    # -- bans -----------------------------------------------------------------------------------
    def ban(self, key: str, until: float | None, reason: str | None, now: float) -> int:
        """Ban the account (replacing any ban it had) and end every session it has, in one
        transaction: the number of sessions ended."""
        with self.repo.write() as c:
            c.execute(bans.delete().where(bans.c.account == key))
            c.execute(bans.insert().values(account=key, until=until, reason=reason, created=now))
            return int(c.execute(sessions.delete().where(sessions.c.account == key)).rowcount)

    def unban(self, key: str) -> bool:
        with self.repo.write() as c:
            return bool(c.execute(bans.delete().where(bans.c.account == key)).rowcount)

    def ban_of(self, key: str, now: float) -> Ban | None:
        return ban_of(self.engine, key, now)

    def notify(self, channel: str, payload: str) -> bool:
        if self.engine.dialect.name != "postgresql":
            return False
        with self.engine.begin() as c:
            c.execute(sa.text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": payload})
        return True

    # -- chat -----------------------------------------------------------------------------------
    def table_exists(self, table_id: str) -> bool:
        with self.engine.connect() as c:
            return c.execute(sa.select(tables.c.id).where(tables.c.id == table_id)).first() is not None

    def delete_chat(self, table_id: str, name: str | None) -> int:
        """Delete the table's chat lines (only those said by ``name``: the name shown, or the account
        of that name): how many."""
        ch = chat.c
        where = ch.table_id == table_id
        if name is not None:
            where = sa.and_(where, sa.or_(ch.name == name, ch.account == name.casefold()))
        with self.repo.write() as c:
            return int(c.execute(chat.delete().where(where)).rowcount)


def _conforms(store: ModerationStore) -> ModerationRepository:
    return store  # mypy checks here that the adapter implements the whole port
