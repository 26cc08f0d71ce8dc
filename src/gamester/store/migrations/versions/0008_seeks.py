"""Seeks: quick play, blocks, reports and bans (docs/web.md, Quick play; Blocks, reports and bans).

Revision ID: 0008
Revises: 0007

Only adds: the tables ``gm_seeks``, ``gm_blocks``, ``gm_reports`` and ``gm_bans`` (empty), and
``gm_chat.account`` (NULL for the lines said before it: they are shown to everyone, as they were).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gm_seeks",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("pool", sa.String(64), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("bots_after", sa.Float, nullable=True),
        sa.Column("fill_at", sa.Float, nullable=True),
        sa.Column("account", sa.String(20), nullable=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("rating", sa.Float, nullable=True),
        sa.Column("address_key", sa.String(64), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("polled", sa.Float, nullable=False),
        sa.Column("ended", sa.Float, nullable=True),
        sa.Column("table_id", sa.String(40), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
    )
    op.create_index("ix_gm_seeks_status_pool", "gm_seeks", ["status", "pool", "created"])
    op.create_index("ix_gm_seeks_address", "gm_seeks", ["address_key", "status"])
    op.create_table(
        "gm_blocks",
        sa.Column("blocker", sa.String(20), primary_key=True),
        sa.Column("blocked", sa.String(20), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_gm_blocks_blocked", "gm_blocks", ["blocked"])
    op.create_table(
        "gm_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter", sa.String(20), nullable=False),
        sa.Column("reported", sa.String(20), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=True),
        sa.Column("reason", sa.String(2000), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_gm_reports_created", "gm_reports", ["created"])
    op.create_table(
        "gm_bans",
        sa.Column("account", sa.String(20), primary_key=True),
        sa.Column("until", sa.Float, nullable=True),
        sa.Column("reason", sa.String(500), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    with op.batch_alter_table("gm_chat") as batch:
        batch.add_column(sa.Column("account", sa.String(20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("gm_chat") as batch:
        batch.drop_column("account")
    op.drop_table("gm_bans")
    op.drop_index("ix_gm_reports_created", "gm_reports")
    op.drop_table("gm_reports")
    op.drop_index("ix_gm_blocks_blocked", "gm_blocks")
    op.drop_table("gm_blocks")
    op.drop_index("ix_gm_seeks_address", "gm_seeks")
    op.drop_index("ix_gm_seeks_status_pool", "gm_seeks")
    op.drop_table("gm_seeks")
