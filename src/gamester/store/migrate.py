"""Run the packaged Alembic migrations on an engine (at every server start; idempotent)."""

from __future__ import annotations

from importlib import resources

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

# Any constant: two servers starting at once on one PostgreSQL take turns migrating.
_PG_LOCK = 0x67616D6573


def location() -> str:
    """The folder of the packaged migrations (Alembic's script location)."""
    return str(resources.files("gamester.store").joinpath("migrations"))


def upgrade(engine: sa.Engine) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", location())
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
