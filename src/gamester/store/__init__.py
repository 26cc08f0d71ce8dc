"""Persistence of web tables: a repository port and its SQLAlchemy adapter (SQLite or PostgreSQL).

``open_repository(url)`` runs the Alembic migrations shipped in ``gamester/store/migrations`` and
returns a :class:`~gamester.store.repository.SqlTableRepository`. A table row holds the game's record
(game, options, seed, chance) and, one row per action in ``actions``, the moves; the state is rebuilt
with :func:`gamester.replay`. Needs the ``web`` extra (SQLAlchemy, Alembic, psycopg).
"""

from __future__ import annotations

from gamester.store.repository import (
    LeaseInfo,
    SeatRow,
    SqlTableRepository,
    StoreUnavailable,
    TableRepository,
    TableRow,
    default_sqlite_url,
    open_repository,
)

__all__ = [
    "LeaseInfo",
    "SeatRow",
    "SqlTableRepository",
    "StoreUnavailable",
    "TableRepository",
    "TableRow",
    "default_sqlite_url",
    "open_repository",
]
