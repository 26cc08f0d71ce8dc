"""Flow: abandoned seats, aborted tables, and when the game last moved on.

Revision ID: 0009
Revises: 0008

Only adds columns (docs/web.md, Leaving and abandoned seats): ``gm_tables.moved`` (when the game last
moved on: the wait on the seat to move is counted from it) and ``gm_tables.result`` (``aborted``, or
NULL: the result is read from ``returns`` and ``forfeit`` as before); ``gm_seats.abandoned`` (``left``
or ``gone``, NULL while a person holds the seat), ``seen`` (when a server last knew the seat had a
socket), ``waited`` (seconds the game waited on the seat without a socket in its turns before this one,
since it was last seen) and ``played`` (whether the seat's player has made a move of their own).

For the tables already there: a table playing now counts its wait from this upgrade (its players'
pages reconnect within seconds of the server's start), every seat of a table with moves counts as
having moved (which seat moved was not kept), and a table that nothing was to run for (two people, no
clock: ``lease_owner`` ``-``) gets a runner like any other, since it now waits on its players with a
timer too (:func:`carry_over`, which an import of an earlier release's export runs too:
gamester/store/dump.py).
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("gm_tables") as batch:
        batch.add_column(sa.Column("moved", sa.Float, nullable=True))
        batch.add_column(sa.Column("result", sa.String(10), nullable=True))
    with op.batch_alter_table("gm_seats") as batch:
        batch.add_column(sa.Column("abandoned", sa.String(8), nullable=True))
        batch.add_column(sa.Column("seen", sa.Float, nullable=True))
        batch.add_column(sa.Column("waited", sa.Float, nullable=False, server_default="0"))
        batch.add_column(sa.Column("played", sa.Boolean, nullable=False, server_default=sa.false()))
    carry_over(op.get_bind())


def carry_over(conn: sa.Connection) -> None:
    """What the rows of an earlier schema are given: see the module's docstring."""
    conn.execute(
        sa.text("UPDATE gm_tables SET moved = :now WHERE status = 'playing' AND moved IS NULL"),
        {"now": time.time()},
    )
    conn.execute(
        sa.text(
            "UPDATE gm_seats SET played = :yes WHERE kind = 'human' AND table_id IN "
            "(SELECT id FROM gm_tables WHERE seq > 0)"
        ),
        {"yes": True},
    )
    conn.execute(sa.text("UPDATE gm_tables SET lease_owner = NULL WHERE lease_owner = '-'"))


def downgrade() -> None:
    with op.batch_alter_table("gm_seats") as batch:
        batch.drop_column("played")
        batch.drop_column("waited")
        batch.drop_column("seen")
        batch.drop_column("abandoned")
    with op.batch_alter_table("gm_tables") as batch:
        batch.drop_column("result")
        batch.drop_column("moved")
