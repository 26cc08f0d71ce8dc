"""Lesson tables (a tutorial's id on the table) and reviews of finished tables.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("gm_tables") as batch:
        batch.add_column(sa.Column("lesson", sa.String(40), nullable=True))
    op.create_table(
        "gm_reviews",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("owner", sa.String(120), nullable=True),
        sa.Column("started", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("gm_reviews")
    with op.batch_alter_table("gm_tables") as batch:
        batch.drop_column("lesson")
