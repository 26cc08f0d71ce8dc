"""Persistence of web tables and people: a port and its SQLAlchemy adapters (SQLite or PostgreSQL).

``open_stores(url, initial_rating, seek_times)`` runs the Alembic migrations shipped in
``gamester/store/migrations`` and returns the :class:`~gamester.store.port.Stores` of that database:
the tables (:class:`~gamester.store.repository.SqlTableRepository`) and the people
(:class:`~gamester.store.people.PeopleStore`), each behind its port. A table row holds the game's
record (game, options, seed, chance) and, one row per action in ``actions``, the moves; the state is
rebuilt with :func:`gamester.replay`. Outside ``store/``, code imports only :mod:`gamester.store.port`
and the openers here (tests/test_layering.py). Needs the ``web`` extra (SQLAlchemy, Alembic, psycopg).
"""

from __future__ import annotations

from pathlib import Path

from gamester.store.port import Rating, SeekTimes, Stores
from gamester.store.repository import (
    LeaseInfo,
    SeatRow,
    SqlTableRepository,
    StoreUnavailable,
    TableRepository,
    TableRow,
    default_sqlite_url,
    make_engine,
    open_repository,
)


def database_command(url: str, command: str, path: Path | None = None, *, replace: bool = False) -> str:
    """``gamester db export|import|upgrade`` on ``url`` (store/dump.py): the line to print, or a
    ValueError of one line."""
    from gamester.store import dump

    return dump.run(url, command, path, replace=replace)


def open_stores(url: str, initial_rating: Rating, seek_times: SeekTimes) -> Stores:
    """The stores of the database at ``url``, migrated to the newest schema (ValueError on a bad URL
    or an unreachable database, with one line saying which). New ratings start at ``initial_rating``;
    seeks live as ``seek_times`` says (the web's rule: web/seeks.py ``TIMES``)."""
    from gamester.store.moderation import ModerationStore
    from gamester.store.people import PeopleStore
    from gamester.store.seeks import SeekStore

    tables = open_repository(url)
    return Stores(
        tables=tables,
        people=PeopleStore(tables, initial_rating),
        seeks=SeekStore(tables, seek_times),
        moderation=ModerationStore(tables),
    )


OPENERS = frozenset(
    {"open_stores", "database_command", "open_repository", "default_sqlite_url", "make_engine"}
)
"""What code outside ``store/`` may import from here (the rest only through gamester.store.port)."""

__all__ = [
    "LeaseInfo",
    "SeatRow",
    "SqlTableRepository",
    "StoreUnavailable",
    "TableRepository",
    "TableRow",
    "database_command",
    "default_sqlite_url",
    "make_engine",
    "open_repository",
    "open_stores",
]
