"""Alembic environment: run against the connection handed in by ``gamester.store.migrate``."""

from __future__ import annotations

from alembic import context

from gamester.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only the programmatic path is supported
    raise RuntimeError("gamester migrations run through gamester.store.migrate.upgrade()")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
