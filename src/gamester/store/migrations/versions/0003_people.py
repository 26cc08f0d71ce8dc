"""People: accounts, sessions, ratings, chat; rated tables, rematches and seats owned by accounts.

Revision ID: 0003
Revises: 0002

Only adds: every table, seat and action of a 0001 database is kept as it was (a new column has a
default, or is empty), so a server of the previous release's database upgrades in place.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD COLUMN on both databases (a column with a constant default needs no
    # copy of the table; Alembic's batch mode would copy it, and SQLite's foreign keys refuse that).
    op.add_column("gm_tables", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column(
        "gm_tables", sa.Column("rating_applied", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.add_column("gm_tables", sa.Column("rematch", sa.String(40), nullable=True))
    op.add_column("gm_seats", sa.Column("account", sa.String(20), nullable=True))
    op.create_index("ix_gm_seats_account", "gm_seats", ["account"])
    op.create_table(
        "gm_accounts",
        sa.Column("key", sa.String(20), primary_key=True),
        sa.Column("name", sa.String(20), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("seat_key", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "gm_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account", sa.String(20), sa.ForeignKey("gm_accounts.key"), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_gm_sessions_account", "gm_sessions", ["account"])
    op.create_table(
        "gm_ratings",
        sa.Column("account", sa.String(220), primary_key=True),
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
    )
    op.create_index("ix_gm_ratings_game_rating", "gm_ratings", ["game", "rating"])
    op.create_table(
        "gm_rating_history",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
        sa.Column("account", sa.String(220), primary_key=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_gm_rating_history_account", "gm_rating_history", ["account", "at"])
    op.create_table(
        "gm_chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("text", sa.String(2000), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_gm_chat_table", "gm_chat", ["table_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_gm_chat_table", "gm_chat")
    op.drop_table("gm_chat")
    op.drop_index("ix_gm_rating_history_account", "gm_rating_history")
    op.drop_table("gm_rating_history")
    op.drop_index("ix_gm_ratings_game_rating", "gm_ratings")
    op.drop_table("gm_ratings")
    op.drop_index("ix_gm_sessions_account", "gm_sessions")
    op.drop_table("gm_sessions")
    op.drop_table("gm_accounts")
    op.drop_index("ix_gm_seats_account", "gm_seats")
    op.drop_column("gm_seats", "account")
    op.drop_column("gm_tables", "rematch")
    op.drop_column("gm_tables", "rating_applied")
    op.drop_column("gm_tables", "rated")
