"""The deploy recipe of docs/deploy.md: ``compose.yaml``, the systemd units and the ``Containerfile``.

- ``compose.yaml`` is parsed and checked key by key (the compose specification's names; no
  ``docker compose config`` or ``podman-compose config`` exists on Debian 12 to do it);
- the units pass ``systemd-analyze verify`` where systemd is installed (with the program's path
  pointed at this checkout's ``gamester``);
- the container is built from the ``Containerfile`` and run with ``podman`` where podman works:
  the base image is made from Debian's packages (``debootstrap``), since no image registry is
  reachable here; the server in it answers its health check as a non-root user, with its data on
  a volume, and stops on SIGTERM. It runs only with ``GAMESTER_TEST_CONTAINER=1`` (the build
  compiles gamester in the image: 4 to 15 minutes, a third of CI's budget), and where podman cannot
  run this, it is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.pg_support import free_port

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"

SERVICE_KEYS = {
    "build", "image", "command", "entrypoint", "environment", "env_file", "ports", "volumes",
    "depends_on", "healthcheck", "restart", "stop_grace_period", "stop_signal", "read_only", "tmpfs",
    "security_opt", "cap_drop", "cap_add", "user", "networks", "expose", "labels", "logging",
}  # fmt: skip
TOP_KEYS = {"name", "services", "volumes", "networks", "configs", "secrets"}
CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return data


def test_compose_file_is_well_formed() -> None:
    c = compose()
    assert set(c) <= TOP_KEYS, set(c) - TOP_KEYS
    services = c["services"]
    assert {"db", "migrate", "gamester"} <= set(services)
    for name, svc in services.items():
        assert set(svc) <= SERVICE_KEYS, (name, set(svc) - SERVICE_KEYS)
        assert "image" in svc or "build" in svc, name
        for dep, how in (svc.get("depends_on") or {}).items():
            assert dep in services and how["condition"] in CONDITIONS, (name, dep, how)
        for vol in svc.get("volumes", []):
            source = vol.split(":", 1)[0]
            assert source.startswith(("/", ".")) or source in (c.get("volumes") or {}), (name, vol)
        if "healthcheck" in svc:
            hc = svc["healthcheck"]
            assert hc["test"][0] in ("CMD", "CMD-SHELL") and len(hc["test"]) > 1, (name, hc)
        for port in svc.get("ports", []):
            assert re.fullmatch(r"(\d+\.\d+\.\d+\.\d+:)?\d+:\d+", str(port)), (name, port)


def test_compose_runs_migrations_first_and_trusts_only_its_gateway() -> None:
    c = compose()
    server, migrate = c["services"]["gamester"], c["services"]["migrate"]
    assert migrate["command"] == ["db", "upgrade"]
    assert server["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert server["depends_on"]["db"]["condition"] == "service_healthy"
    assert server["image"] == migrate["image"]
    assert "healthcheck" in server and "/api/health" in " ".join(server["healthcheck"]["test"])
    # The server stops within 10 s of SIGTERM: the grace period is longer than that.
    assert int(str(server["stop_grace_period"]).rstrip("s")) > 10
    gateway = c["networks"]["default"]["ipam"]["config"][0]["gateway"]
    assert f"--trusted-proxy={gateway}" in server["command"]
    assert all(p.startswith("127.0.0.1:") for p in server["ports"])  # only the proxy on the host reaches it
    # No password in a URL (it would show in the process list): PGPASSWORD carries it.
    assert (
        "@db:" in server["environment"]["GAMESTER_DB"]
        and ":" not in server["environment"]["GAMESTER_DB"].split("//")[1].split("@")[0]
    )


def test_the_container_runs_as_a_user_with_its_data_on_a_volume() -> None:
    text = (ROOT / "Containerfile").read_text()
    users = re.findall(r"^USER\s+(\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0"), users
    assert re.search(r"^VOLUME\s+/var/lib/gamester", text, re.M)
    assert re.search(r"^HEALTHCHECK .*api/health", text, re.M | re.S)
    entry = (DEPLOY / "entrypoint.sh").read_text()
    assert "gamester db upgrade" in entry and "exec gamester serve" in entry
    subprocess.run(["sh", "-n", str(DEPLOY / "entrypoint.sh")], check=True)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_units_verify(tmp_path: Path) -> None:
    program = shutil.which("gamester") or str(Path(sys.executable).with_name("gamester"))
    if not os.access(program, os.X_OK):
        pytest.skip("no gamester program on PATH to point the unit at")
    units = ["gamester.service", "gamester-backup.service", "gamester-backup.timer"]
    for name in units:
        text = (DEPLOY / name).read_text().replace("/opt/gamester/bin/gamester", program)
        (tmp_path / name).write_text(text)
    out = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *(str(tmp_path / n) for n in units)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # verify exits 0 on a setting it ignores, and says so: both must be quiet.
    ours = [ln for ln in out.stderr.splitlines() if "gamester" in ln]
    assert out.returncode == 0 and not ours, out.stderr
    service = (DEPLOY / "gamester.service").read_text()
    for hardening in ("NoNewPrivileges=yes", "ProtectSystem=strict", "User=gamester", "TimeoutStopSec="):
        assert hardening in service
    assert "--trusted-proxy 127.0.0.1" in service and "db upgrade" in service


# -- the container, for real where podman works ---------------------------------------------------
BASE = "localhost/gamester-base:bookworm"
IMAGE = "localhost/gamester-test:latest"


PODMAN: list[str] = ["podman"]
LIMITS: list[str] = []


def _podman(*args: str, timeout: float = 600, check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PODMAN, *args], capture_output=True, text=True, timeout=timeout, check=check)


# How podman is asked to run a container, tried in turn: as configured; then with runc and plain
# cgroup files and limits within the current ones, for a machine (a VM sandbox) whose cgroups are a
# v1/v2 hybrid crun refuses and where raising a process limit is not allowed.
_LOW_LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]
_WAYS = (([], []), (["--runtime", "runc", "--cgroup-manager", "cgroupfs"], _LOW_LIMITS))


def _a_way_to_run() -> str | None:
    """Set PODMAN and LIMITS to the first way a container runs here; None, or why none does."""
    last = ""
    for flags, limits in _WAYS:
        PODMAN[1:] = flags
        LIMITS[:] = limits
        out = _podman("run", "--rm", *LIMITS, BASE, "python3", "-c", "print('ok')", timeout=120)
        if out.returncode == 0 and out.stdout.strip() == "ok":
            return None
        last = (out.stderr.strip().splitlines() or ["?"])[-1][:200]
    return f"podman cannot run a container here: {last}"


def _why_no_podman() -> str | None:
    if shutil.which("podman") is None:
        return "podman is not installed (apt-get install podman debootstrap; CI does not)"
    try:
        info = _podman("info", timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"podman does not answer ({type(e).__name__})"
    if info.returncode != 0:
        return f"podman cannot run here: {(info.stderr.strip().splitlines() or ['?'])[-1][:200]}"
    no_base = _podman("image", "exists", BASE).returncode != 0
    if no_base and (shutil.which("debootstrap") is None or os.geteuid() != 0):
        return f"no base image {BASE}, and debootstrap (as root) to make one is missing"
    return None


def _base_image(tmp: Path) -> None:
    """A Debian bookworm image with python3 from Debian's own packages (no registry needed)."""
    if _podman("image", "exists", BASE).returncode == 0:
        return
    root = tmp / "rootfs"
    made = subprocess.run(
        [
            "debootstrap",
            "--variant=minbase",
            "--include=python3,python3-venv,ca-certificates",
            "bookworm",
            str(root),
            "http://deb.debian.org/debian",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if made.returncode != 0:
        pytest.skip(f"debootstrap failed: {made.stderr.strip()[-300:]}")
    tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
    imported = subprocess.run(
        ["podman", "import", "-", BASE], stdin=tar.stdout, capture_output=True, text=True
    )
    tar.wait()
    if imported.returncode != 0:
        pytest.skip(f"podman import failed: {imported.stderr.strip()[-300:]}")


@pytest.mark.slow
def test_the_container_builds_and_serves(tmp_path: Path) -> None:
    if os.environ.get("GAMESTER_TEST_CONTAINER") != "1":
        pytest.skip("the container build takes 4 to 15 minutes: GAMESTER_TEST_CONTAINER=1 runs it")
    why = _why_no_podman()
    if why is not None:
        pytest.skip(why)
    _base_image(tmp_path)
    why = _a_way_to_run()
    if why is not None:
        pytest.skip(why)
    runtime = PODMAN[1:3] if "--runtime" in PODMAN else []
    # A machine whose own pip trusts a CA of its own (an intercepting proxy): the build trusts it too.
    ca = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    trust = ["-v", f"{ca}:/run/host-ca.crt:ro", "--build-arg", "CA_BUNDLE=/run/host-ca.crt"] if ca else []
    args = [*runtime, *LIMITS, *trust, "--format", "docker", "--build-arg", f"BASE={BASE}", "-t", IMAGE]
    built = _podman("build", *args, str(ROOT), timeout=3600)
    if built.returncode != 0:
        tail = "\n".join(built.stderr.strip().splitlines()[-5:])
        if "network" in tail.lower() or "resolve" in tail.lower() or "netavark" in tail.lower():
            pytest.skip(f"podman build cannot reach the package registries here: {tail[-300:]}")
        raise AssertionError(f"podman build failed:\n{built.stdout[-3000:]}\n{built.stderr[-3000:]}")
    volume = f"gamester-test-{os.getpid()}"
    name = f"gamester-test-{os.getpid()}"
    port = free_port()
    publish, data = f"127.0.0.1:{port}:8000", f"{volume}:/var/lib/gamester"
    run = _podman("run", "-d", *LIMITS, "--name", name, "-p", publish, "-v", data, IMAGE)
    try:
        if run.returncode != 0:
            pytest.skip(f"podman run cannot start a container here: {run.stderr.strip()[-300:]}")
        deadline = time.monotonic() + 120
        health: dict[str, Any] = {}
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError, ValueError):
                health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=3).json()
                if health.get("ok"):
                    break
            time.sleep(0.5)
        logs = _podman("logs", name).stdout
        assert health.get("ok") is True, logs[-2000:]
        import gamester

        assert health["version"] == gamester.__version__
        assert "schema none (a new database) ->" in logs  # the entrypoint migrated first
        whoami = _podman("exec", name, "id", "-u").stdout.strip()
        assert whoami not in ("", "0"), whoami
        listed = _podman("exec", name, "ls", "/var/lib/gamester").stdout.split()
        assert "gamester.db" in listed, listed
        started = time.monotonic()
        stopped = _podman("stop", "-t", "15", name, timeout=60)
        assert stopped.returncode == 0 and time.monotonic() - started < 15, stopped.stderr
        state = _podman("inspect", "-f", "{{.State.ExitCode}}", name).stdout.strip()
        assert state == "0", (state, _podman("logs", name).stdout[-2000:])
    finally:
        _podman("rm", "-f", name)
        _podman("volume", "rm", "-f", volume)
