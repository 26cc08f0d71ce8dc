"""A real, throw-away PostgreSQL server for tests (issue 10: several servers on one database).

Use it from a test module by importing the fixtures::

    from tests.pg_support import pg_cluster, postgres_url  # noqa: F401  (pytest fixtures)

- ``pg_cluster`` (session scope): a running :class:`PgCluster`; ``pg_cluster.create_database()`` makes a
  fresh, empty database and returns its ``postgresql+psycopg://`` URL.
- ``postgres_url`` (session scope): the URL of one database created for the session.

The cluster is initialised with ``initdb`` into a temporary directory, listens on 127.0.0.1 on a free
port with its unix socket in that directory, trusts local connections (nobody else can reach it), runs
with ``fsync=off`` (a test cluster need not survive a power cut) and is stopped and deleted at the end.
As root (our CI), every PostgreSQL program runs as the ``postgres`` user through ``runuser``, because the
server refuses to run as root. Tests are skipped, with the reason, only when no PostgreSQL binaries are
installed (``.ci/run`` installs Debian's).

However many test modules import the fixtures, one cluster serves the whole session (a module-level
instance with a reference count), so the start-up cost (~2 s) is paid once.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_ROOT = "/usr/lib/postgresql"


def find_pg_bin() -> Path | None:
    """The newest installed PostgreSQL ``bin`` directory holding ``initdb``, preferring version 15."""
    preferred = Path(PG_ROOT, "15", "bin")
    if (preferred / "initdb").exists():
        return preferred
    found = sorted(glob.glob(f"{PG_ROOT}/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PgCluster:
    """One PostgreSQL server in a temporary directory, owned by this process."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="gamester-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        self.options = ""  # pg_ctl -o, once started
        self.user = "postgres"
        self._as_root = os.geteuid() == 0
        if self._as_root:
            entry = pwd.getpwnam("postgres")
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        else:
            self.user = pwd.getpwuid(os.geteuid()).pw_name
        self._running = False

    def _cmd(self, program: str, *args: str) -> list[str]:
        command = [str(self.bin_dir / program), *args]
        return ["runuser", "-u", "postgres", "--", *command] if self._as_root else command

    def _run(self, program: str, *args: str, timeout: float = 60) -> None:
        done = subprocess.run(self._cmd(program, *args), capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            why = f"{done.stderr.strip()}{self.log_tail()}"
            raise RuntimeError(f"{program} {' '.join(args)} failed ({done.returncode}): {why}")

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n--- server.log ---\n" + "\n".join(text.splitlines()[-lines:])

    def start(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-U", self.user, "-A", "trust", "-E", "UTF8", "--no-sync",
            "--no-instructions",
        )  # fmt: skip
        last: Exception | None = None
        for _ in range(5):  # the free port may be taken between our probe and the server's bind
            self.port = free_port()
            options = (
                f"-h 127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c synchronous_commit=off "
                "-c full_page_writes=off -c max_connections=300"
            )
            try:
                self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-o", options, "start")
            except RuntimeError as exc:
                last = exc
                continue
            self._running = True
            self.options = options
            return
        raise RuntimeError(f"PostgreSQL did not start: {last}")

    @contextlib.contextmanager
    def down(self) -> Iterator[None]:
        """PostgreSQL stopped at once (every connection cut) for the block, then started again on the
        same port with the same options."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        try:
            yield
        finally:
            self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-o", self.options, "start")

    def stop(self) -> None:
        if self._running:
            with contextlib.suppress(Exception):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self._running = False
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """Create an empty database (a fresh random name by default) and return its SQLAlchemy URL."""
        import psycopg

        name = name or f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(
            host="127.0.0.1", port=self.port, user=self.user, dbname="postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # the name is ours: hex digits only
        return self.url(name)


_shared: PgCluster | None = None
_users = 0


def _acquire() -> PgCluster:
    global _shared, _users
    bin_dir = find_pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL binaries not installed (no initdb in /usr/lib/postgresql/*/bin or on PATH)")
    if _shared is None:
        cluster = PgCluster(bin_dir)
        try:
            cluster.start()
        except BaseException:
            cluster.stop()
            raise
        _shared = cluster
    _users += 1
    return _shared


def _release() -> None:
    global _shared, _users
    _users -= 1
    if _users <= 0 and _shared is not None:
        _shared.stop()
        _shared = None
        _users = 0


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A running PostgreSQL cluster for the whole session (stopped and removed at the end)."""
    cluster = _acquire()
    try:
        yield cluster
    finally:
        _release()


@pytest.fixture(scope="session")
def postgres_url(pg_cluster: PgCluster) -> str:
    """``postgresql+psycopg://…`` URL of a database created once for the session."""
    return pg_cluster.create_database()


def module_database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, stem: str
) -> str:
    """A test module's database, by its fixture's param: a new SQLite file (``sqlite``), or a new
    database of the session's cluster (``postgresql``)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp(stem) / f'{stem}.db'}"
    url: str = request.getfixturevalue("pg_cluster").create_database()
    return url
