"""Throttle: the token buckets of the log-in and sign-up limits, in the database.

Revision ID: 0005
Revises: 0004

Only adds one table. Before it each server kept its buckets in memory, so nothing is carried over:
every name and address starts with a full bucket, as it did whenever a server restarted.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gm_throttle",
        sa.Column("kind", sa.String(20), primary_key=True),
        sa.Column("key", sa.String(120), primary_key=True),
        sa.Column("tokens", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_gm_throttle_kind_at", "gm_throttle", ["kind", "at"])


def downgrade() -> None:
    op.drop_index("ix_gm_throttle_kind_at", "gm_throttle")
    op.drop_table("gm_throttle")
