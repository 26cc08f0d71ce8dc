"""``gamester serve`` from the command line: no arguments on a fresh machine, bad --db / --port in one
line with exit status 2, Ctrl-C quiet (exit 130), SIGTERM quiet (exit 0)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("uvicorn")

pytestmark = pytest.mark.timeout(120)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _serve(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gamester", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )


def _wait_health(port: int, proc: subprocess.Popen[str]) -> None:
    end = time.monotonic() + 60
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).json().get("ok") is True:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("server did not come up")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.slow
def test_fresh_start_and_quiet_stop(tmp_path: Path, sig: signal.Signals) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    port = _free_port()
    # no --db: the per-user data folder (which does not exist yet) gets the SQLite file
    proc = _serve(["--port", str(port)], env)
    _wait_health(port, proc)
    assert (tmp_path / "data" / "gamester" / "gamester.db").exists()
    os.killpg(proc.pid, sig)  # Ctrl-C reaches the whole process group, bot workers included
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == (130 if sig == signal.SIGINT else 0)
    assert "Traceback" not in err and "Traceback" not in out, err
    assert str(tmp_path / "data" / "gamester" / "gamester.db") in out
    assert f"http://127.0.0.1:{port}/" in out


@pytest.mark.slow
def test_ctrl_c_twice_stops_at_once_and_quietly(tmp_path: Path) -> None:
    """A second Ctrl-C while the server stops forces the stop; uvicorn logged the cancelled
    shutdown then, with a traceback."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    port = _free_port()
    proc = _serve(["--port", str(port)], env)
    _wait_health(port, proc)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):  # (already gone: nothing to force)
        os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "Traceback" not in err and "Traceback" not in out, err


# (every kind of bad URL is checked in-process in test_web_store.py; here the command's exit path)
@pytest.mark.parametrize("db", ["mysql://x/y", "sqlite:///{tmp}"])
@pytest.mark.slow
def test_bad_db_is_one_line(tmp_path: Path, db: str) -> None:
    proc = _serve(["--port", str(_free_port()), "--db", db.replace("{tmp}", str(tmp_path))], dict(os.environ))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert len(err.strip().splitlines()) == 1 and "--db" in err and "Traceback" not in err


@pytest.mark.slow
def test_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = _serve(["--port", str(port), "--db", f"sqlite:///{tmp_path / 'x.db'}"], dict(os.environ))
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "in use" in err and len(err.strip().splitlines()) == 1
