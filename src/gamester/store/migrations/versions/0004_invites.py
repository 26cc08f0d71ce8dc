"""Invites: a code per human seat (stored as its hash), open and private tables, a watch code.

Revision ID: 0004
Revises: 0003

Only adds. A table made before this revision has no invite on any seat, so its free seats stay free
to anyone, as they were: it is marked ``open`` (the lobby offers its seats) and not private.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("gm_tables", sa.Column("open", sa.Boolean, nullable=False, server_default=sa.true()))
    op.add_column("gm_tables", sa.Column("private", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("gm_tables", sa.Column("watch_hash", sa.String(64), nullable=True))
    op.add_column("gm_seats", sa.Column("invite_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    op.drop_column("gm_seats", "invite_hash")
    op.drop_column("gm_tables", "watch_hash")
    op.drop_column("gm_tables", "private")
    op.drop_column("gm_tables", "open")
