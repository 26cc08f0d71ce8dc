"""Turns: a table keeps the key its bots take turns under at the workers.

Revision ID: 0006
Revises: 0005

Adds ``gm_tables.turns_key`` (nullable). Before it a server remembered who made each table in memory
only, so after a restart, or on another server, a table's bots took turns as a client of their own.
Tables made before this revision keep no key (NULL) and go on doing so; nothing else changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("gm_tables") as batch:
        batch.add_column(sa.Column("turns_key", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("gm_tables") as batch:
        batch.drop_column("turns_key")
