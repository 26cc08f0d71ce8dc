"""Fair play: how an account's name reads, and the rated results between two players.

Revision ID: 0007
Revises: 0006

Only adds. ``gm_accounts.skeleton`` (how the name reads: ``gamester.web.names.skeleton``; indexed,
so a guest's or a new account's name is checked against every account's in one lookup) starts empty
for the accounts already there, and the server fills it at start. ``gm_rating_pairs`` holds one row
per pair of players whose result moved their ratings at a rated table (so that between the same two,
at most a few results a day move ratings); empty at first, as if no pair had played today.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("gm_accounts", sa.Column("skeleton", sa.String(80), nullable=True))
    op.create_index("ix_gm_accounts_skeleton", "gm_accounts", ["skeleton"])
    op.create_table(
        "gm_rating_pairs",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
        sa.Column("low", sa.String(220), primary_key=True),
        sa.Column("high", sa.String(220), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_gm_rating_pairs_pair", "gm_rating_pairs", ["low", "high", "at"])


def downgrade() -> None:
    op.drop_index("ix_gm_rating_pairs_pair", "gm_rating_pairs")
    op.drop_table("gm_rating_pairs")
    op.drop_index("ix_gm_accounts_skeleton", "gm_accounts")
    op.drop_column("gm_accounts", "skeleton")
