"""The database schema (SQLAlchemy Core). Alembic's migrations create exactly these tables."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

tables = sa.Table(
    "gm_tables",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON: every option of the game, canonical
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("chance", sa.Text, nullable=False),  # JSON: the record's chance so far
    sa.Column("clock", sa.Text, nullable=True),  # JSON or NULL
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("deadline", sa.Float, nullable=True),
    sa.Column("returns", sa.Text, nullable=True),  # JSON list once over
    sa.Column("forfeit", sa.Integer, nullable=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("lease_owner", sa.String(120), nullable=True),
    sa.Column("lease_expiry", sa.Float, nullable=True),
    sa.Column("lesson", sa.String(40), nullable=True),  # the tutorial a lesson table teaches, else NULL
)
sa.Index("ix_gm_tables_status_created", tables.c.status, tables.c.created)

seats = sa.Table(
    "gm_seats",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(10), nullable=False),  # human | bot
    sa.Column("agent", sa.String(200), nullable=True),
    sa.Column("name", sa.String(80), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True),
)

actions = sa.Table(
    "gm_actions",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),  # 1 for the first action
    sa.Column("action", sa.String(80), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

reviews = sa.Table(
    "gm_reviews",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("status", sa.String(10), nullable=False),  # working | done | failed
    sa.Column("result", sa.Text, nullable=True),  # JSON: the review once done, the reason once failed
    sa.Column("owner", sa.String(120), nullable=True),  # the server working on it
    sa.Column("started", sa.Float, nullable=False),
)
