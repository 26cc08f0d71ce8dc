"""Moving a server's database: ``gamester db export | import | upgrade`` (docs/deploy.md, Moving and
upgrading the database).

An export is one file of JSON lines (gzip-compressed when its name ends in ``.gz``), read back by
:func:`import_file` into SQLite or PostgreSQL alike::

    {"format": "gamester-db", "version": 1, "schema": "0006", "gamester": "0.2.0", "exported": "…"}
    {"table": "gm_tables", "columns": ["id", "game", …], "rows": 2}
    ["AfVJBv7GbQh_8DiT", "penneech", …]
    ["kR0c2m3xQ1sZ9aLp", "piquesept", …]
    {"table": "gm_seats", "columns": […], "rows": 4}
    …
    {"end": true, "rows": 1234}

Every table of the schema (:data:`gamester.store.schema.metadata`, in the order its foreign keys
need) is written, with every column, so a table a later release adds moves too without a change
here. A value is JSON as the database gives it (text, numbers, true/false, null); bytes would be
``{"$bytes": BASE64}``. The closing line counts the rows, so a cut file is refused rather than
half-imported.

Three tables are left out, on purpose: ``gm_sessions`` (log-in sessions: short-lived, and a
file that travels and is kept for years should not carry them; after a move everyone logs in once
more), ``gm_throttle`` (the log-in and creation rate limits' counters, which refill by
themselves) and ``gm_seeks`` (quick play's seeks, which live ten minutes at most). Accounts move
with their password hashes (argon2id, never a password) and the keys their seat tokens are derived
from, seats with their token and invite hashes: the file is as
private as the database itself.

An import runs the migrations first (so the target has this release's schema), refuses a database
that already holds anything unless ``replace``, and writes everything in one transaction: it lands
whole or not at all. An export made by an earlier release (an older schema, fewer columns) imports:
the missing columns take their defaults, and then the rows what a later migration gave the rows it
found (its ``carry_over``). One made by a newer release is refused.
"""

from __future__ import annotations

import base64
import functools
import gzip
import io
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import sqlalchemy as sa

from gamester.store import migrate
from gamester.store.schema import metadata

if TYPE_CHECKING:
    from alembic.script import ScriptDirectory

FORMAT = "gamester-db"
VERSION = 1
SKIPPED = frozenset({"gm_sessions", "gm_throttle", "gm_seeks"})
"""Tables an export leaves out (see the module's docstring)."""
BATCH = 1000


class DumpError(ValueError):
    """A file or a database that cannot be exported or imported (one line, saying why)."""


@dataclass(frozen=True)
class Summary:
    schema: str | None
    tables: dict[str, int]

    @property
    def rows(self) -> int:
        return sum(self.tables.values())


def moved_tables() -> list[sa.Table]:
    """The schema's tables an export carries, parents before children."""
    return [t for t in metadata.sorted_tables if t.name not in SKIPPED]


def revision(engine: sa.Engine) -> str | None:
    """The schema revision of the database (None: no gamester schema yet)."""
    from alembic.migration import MigrationContext

    with engine.connect() as conn:
        rev: str | None = MigrationContext.configure(conn).get_current_revision()
        return rev


@functools.cache
def _scripts() -> ScriptDirectory:
    """This release's migrations (read once: a command asks several times)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(migrate.location())


def head() -> str:
    """The newest schema revision this release knows."""
    found = _scripts().get_current_head()
    assert found is not None
    return found


def upgrade(engine: sa.Engine) -> tuple[str | None, str]:
    """Migrate to this release's schema; (from, to) revisions. A database of a newer release is
    refused (DumpError)."""
    before = revision(engine)
    known = _known_revisions()
    if before is not None and before not in known:
        raise DumpError(
            f"the database has schema {before}, newer than this gamester knows (up to {head()}): "
            "upgrade gamester first"
        )
    migrate.upgrade(engine)
    after = revision(engine)
    assert after is not None
    return before, after


def _known_revisions() -> set[str]:
    return {s.revision for s in _scripts().walk_revisions()}


# -- export --------------------------------------------------------------------------------------
def _encode(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$bytes"}:
        return base64.b64decode(value["$bytes"])
    return value


def _line(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def _open_out(path: Path, compressed: bool) -> IO[str]:
    if compressed:
        return io.TextIOWrapper(gzip.open(path, "wb"), encoding="utf-8")
    return open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller's with


def export(engine: sa.Engine, out: Path) -> Summary:
    """Write every moved table of ``engine``'s database to ``out``, from one consistent snapshot."""
    schema = revision(engine)
    if schema is None:
        raise DumpError("the database has no gamester schema (nothing to export)")
    if schema != head():
        raise DumpError(
            f"the database has schema {schema}, not this release's {head()}: run gamester db upgrade"
        )
    counts: dict[str, int] = {}
    tmp = out.with_name(out.name + ".part")
    with _snapshot(engine) as conn, _open_out(tmp, out.suffix == ".gz") as f:
        f.write(
            _line(
                {
                    "format": FORMAT,
                    "version": VERSION,
                    "schema": schema,
                    "gamester": _release(),
                    "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "database": engine.dialect.name,
                }
            )
        )
        for table in moved_tables():
            n = conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            columns = [c.name for c in table.columns]
            f.write(_line({"table": table.name, "columns": columns, "rows": n}))
            order = list(table.primary_key.columns) or list(table.columns)
            result = conn.execution_options(yield_per=BATCH).execute(sa.select(table).order_by(*order))
            written = 0
            for row in result:
                f.write(_line([_encode(v) for v in row]))
                written += 1
            if written != n:
                raise DumpError(f"{table.name}: {written} rows read where {n} were counted")
            counts[table.name] = n
        f.write(_line({"end": True, "rows": sum(counts.values())}))
    tmp.replace(out)  # a file named ``out`` is always whole
    return Summary(schema, counts)


class _snapshot:
    """A connection reading one consistent state of the database (a read transaction)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        self.conn: sa.Connection | None = None

    def __enter__(self) -> sa.Connection:
        if self.engine.dialect.name == "postgresql":
            conn = self.engine.connect().execution_options(isolation_level="REPEATABLE READ")
            conn.begin()
        else:
            conn = self.engine.connect()
            conn.exec_driver_sql("BEGIN")  # SQLite: the first read fixes the snapshot (WAL)
        self.conn = conn
        return conn

    def __exit__(self, *exc: object) -> None:
        assert self.conn is not None
        self.conn.rollback()
        self.conn.close()


def _release() -> str:
    from gamester import __version__

    return __version__


# -- import --------------------------------------------------------------------------------------
def _open_in(path: Path) -> IO[str]:
    try:
        with open(path, "rb") as probe:
            magic = probe.read(2)
    except FileNotFoundError:
        raise DumpError(f"{path}: no such file") from None
    except OSError as e:
        raise DumpError(f"{path}: cannot be read ({e.strerror})") from None
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")  # noqa: SIM115 - closed by the caller's with


def _records(f: IO[str], path: Path) -> Iterator[tuple[int, Any]]:
    for i, text in enumerate(f, 1):
        if not text.strip():
            continue
        try:
            yield i, json.loads(text)
        except ValueError:
            raise DumpError(f"{path}: line {i} is not JSON") from None


def is_empty(conn: sa.Connection) -> str | None:
    """The first table of the schema that holds a row (None: the database is empty)."""
    for table in metadata.sorted_tables:
        if conn.execute(sa.select(sa.literal(1)).select_from(table).limit(1)).first() is not None:
            return table.name
    return None


def import_file(engine: sa.Engine, path: Path, *, replace: bool = False) -> Summary:
    """Load an export into ``engine``'s database, migrated first, in one transaction."""
    upgrade(engine)
    tables = {t.name: t for t in metadata.sorted_tables}
    counts: dict[str, int] = {}
    try:
        with _open_in(path) as f, engine.begin() as conn:
            records = _records(f, path)
            header = _header(next(records, (1, None)), path)
            held = is_empty(conn)
            if held is not None:
                if not replace:
                    raise DumpError(
                        f"the database already holds data ({held}): import into an empty one, or "
                        "give --replace to delete everything in it first"
                    )
                for table in reversed(metadata.sorted_tables):
                    conn.execute(table.delete())
            ended = False
            current: sa.Table | None = None
            columns: list[str] = []
            expected = 0
            batch: list[dict[str, Any]] = []

            def flush() -> None:
                if batch and current is not None:
                    conn.execute(current.insert(), batch)
                    batch.clear()

            for i, rec in records:
                if ended:
                    raise DumpError(f"{path}: line {i}: data after the end line")
                if isinstance(rec, list):
                    if current is None or len(rec) != len(columns):
                        raise DumpError(f"{path}: line {i}: a row that fits no table header")
                    batch.append({c: _decode(v) for c, v in zip(columns, rec, strict=True)})
                    counts[current.name] += 1
                    if len(batch) >= BATCH:
                        flush()
                    continue
                if not isinstance(rec, dict):
                    raise DumpError(f"{path}: line {i}: expected a row or a table header")
                flush()
                if current is not None and counts[current.name] != expected:
                    raise DumpError(
                        f"{path}: {current.name}: {counts[current.name]} rows, the header says {expected}"
                    )
                if rec.get("end") is True:
                    if rec.get("rows") != sum(counts.values()):
                        raise DumpError(
                            f"{path}: the end line counts {rec.get('rows')} rows, the file has "
                            f"{sum(counts.values())}"
                        )
                    ended = True
                    current = None
                    continue
                name = rec.get("table")
                if name not in tables or name in SKIPPED:
                    raise DumpError(
                        f"{path}: line {i}: table {str(name)[:40]!r} is not in this release's schema "
                        "(an export of a newer release?)"
                    )
                current = tables[name]
                given = rec.get("columns")
                columns = [str(c) for c in given] if isinstance(given, list) else []
                unknown = [c for c in columns if c not in current.columns]
                if unknown or not columns:
                    raise DumpError(
                        f"{path}: {name}: unknown column {unknown[:1]} (an export of a newer release?)"
                    )
                rows = rec.get("rows")
                expected = rows if isinstance(rows, int) and not isinstance(rows, bool) else -1
                counts[name] = 0
            flush()
            if not ended:
                raise DumpError(f"{path}: no end line: the file was cut short; nothing was imported")
            _carry_over(conn, str(header["schema"]))
            _advance_sequences(conn)
    except sa.exc.IntegrityError as e:
        reason = str(e.orig).strip().splitlines()[0] if e.orig is not None else type(e).__name__
        raise DumpError(f"{path}: the rows do not fit together ({reason}); nothing was imported") from None
    return Summary(header.get("schema"), counts)


def _header(first: tuple[int, Any], path: Path) -> dict[str, Any]:
    _, rec = first
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        raise DumpError(f"{path}: not a gamester export (no {FORMAT!r} header line)")
    if rec.get("version") != VERSION:
        raise DumpError(f"{path}: export format version {rec.get('version')!r}; this release reads {VERSION}")
    schema = rec.get("schema")
    if schema not in _known_revisions():
        raise DumpError(
            f"{path}: made with schema {schema!r}, newer than this gamester knows (up to {head()}): "
            "upgrade gamester first"
        )
    return rec


def _carry_over(conn: sa.Connection, schema: str) -> None:
    """Rows of an export made at an older ``schema`` get what each later migration gave the rows it
    found (its ``carry_over(conn)``, where it has one), not only the defaults of the columns it added."""
    later = list(_scripts().iterate_revisions(head(), schema))  # newest first
    for script in reversed(later):
        step = getattr(script.module, "carry_over", None)
        if step is not None:
            step(conn)


def _advance_sequences(conn: sa.Connection) -> None:
    """PostgreSQL hands out ids from a sequence that explicit ids do not move: set each past the
    largest imported id, so the next chat line (say) does not collide."""
    if conn.dialect.name != "postgresql":
        return
    for table in metadata.sorted_tables:
        col = table.autoincrement_column
        if col is None:
            continue
        conn.execute(
            sa.text(
                f"SELECT setval(pg_get_serial_sequence('{table.name}', '{col.name}'), "
                f"COALESCE(MAX({col.name}), 1), MAX({col.name}) IS NOT NULL) FROM {table.name}"
            )
        )


def read_summary(path: Path) -> Summary:
    """The header's schema and the rows per table of an export (checking it is whole)."""
    counts: dict[str, int] = {}
    with _open_in(path) as f:
        records = _records(f, path)
        header = _header(next(records, (1, None)), path)
        current = None
        for _, rec in records:
            if isinstance(rec, list) and current is not None:
                counts[current] += 1
            elif isinstance(rec, dict) and "table" in rec:
                current = str(rec["table"])
                counts[current] = 0
    return Summary(header.get("schema"), counts)


# -- the door for the command line ---------------------------------------------------------------
def run(url: str, command: str, path: Path | None = None, *, replace: bool = False) -> str:
    """``gamester db COMMAND`` on the database at ``url``: the line to print. Every failure, the
    driver's included, is a :class:`DumpError` of one line naming the database (its password
    hidden), so nothing outside ``store/`` speaks to SQLAlchemy."""
    from gamester.store.repository import make_engine

    engine = make_engine(url)  # ValueError (a DumpError's base) on a URL that is not a database's
    shown = engine.url.render_as_string(hide_password=True)
    try:
        if command == "upgrade":
            before, after = upgrade(engine)
            if before == after:
                return f"gamester db upgrade: schema {after}, already this release's"
            return f"gamester db upgrade: schema {before or 'none (a new database)'} -> {after}"
        assert path is not None
        if command == "export":
            done = export(engine, path)
            where = f"to {path}"
        elif command == "import":
            done = import_file(engine, path, replace=replace)
            where = f"from {path}"
        else:
            raise DumpError(f"no such command {command!r}: export, import or upgrade")
        rows = f"{done.rows} rows of {len(done.tables)} tables (schema {done.schema})"
        return f"gamester db {command}: {rows} {where}"
    except sa.exc.SQLAlchemyError as e:
        orig = getattr(e, "orig", None)
        reason = str(orig if orig is not None else e).strip().splitlines()[0][:200]
        raise DumpError(f"--db {shown}: {reason}") from None
    finally:
        engine.dispose()
