"""Tables, seats and actions.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gm_tables",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("chance", sa.Text, nullable=False),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("deadline", sa.Float, nullable=True),
        sa.Column("returns", sa.Text, nullable=True),
        sa.Column("forfeit", sa.Integer, nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("lease_owner", sa.String(120), nullable=True),
        sa.Column("lease_expiry", sa.Float, nullable=True),
    )
    op.create_index("ix_gm_tables_status_created", "gm_tables", ["status", "created"])
    op.create_table(
        "gm_seats",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("agent", sa.String(200), nullable=True),
        sa.Column("name", sa.String(80), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
    )
    op.create_table(
        "gm_actions",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("action", sa.String(80), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("gm_actions")
    op.drop_table("gm_seats")
    op.drop_index("ix_gm_tables_status_created", "gm_tables")
    op.drop_table("gm_tables")
