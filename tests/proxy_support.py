"""A real reverse proxy for the tests: Debian's ``nginx`` with TLS in front of a ``gamester serve``.

:func:`self_signed` makes a certificate for ``localhost`` and 127.0.0.1 with ``openssl``;
:class:`Nginx` writes a configuration into a temporary folder (``deploy/nginx-gamester.conf``, the
site docs/deploy.md shows, with the ports and paths of the test), starts nginx in the foreground
on a free port, waits for the port and stops it again. Both skip the test, saying why, where nginx
or openssl is missing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.pg_support import free_port

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

SITE = Path(__file__).resolve().parent.parent / "deploy" / "nginx-gamester.conf"


def site(upstream: int, port: int, plain_port: int, cert: Path, key: Path) -> str:
    """deploy/nginx-gamester.conf, the site docs/deploy.md shows, with the test's ports and files."""
    text = SITE.read_text()
    swaps = [
        ("/etc/letsencrypt/live/games.example.org/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/games.example.org/privkey.pem", str(key)),
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};"),
        ("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;"),
        ("listen 80;", f"listen 127.0.0.1:{plain_port};"),
        ("games.example.org", "localhost"),
    ]
    for old, new in swaps:
        assert old in text, f"{SITE.name} no longer has {old!r}: update the test's substitutions"
        text = text.replace(old, new)
    return text


CONF = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
daemon off;
{user}
events {{ worker_connections 512; }}
http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    {site}
}}
"""


def self_signed(directory: Path) -> tuple[Path, Path]:
    """(certificate, key) for ``localhost`` and 127.0.0.1, valid a day."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed (apt-get install openssl)")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


class Nginx:
    """nginx on 127.0.0.1:``port`` with TLS, proxying to 127.0.0.1:``upstream``."""

    def __init__(self, directory: Path, upstream: int) -> None:
        if NGINX is None:
            pytest.skip("nginx is not installed (apt-get install nginx)")
        self.dir = directory
        self.port = free_port()
        self.cert, self.key = self_signed(directory)
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (directory / sub).mkdir(exist_ok=True)
            (directory / sub).chmod(0o777)  # nginx's workers run as another user when started as root
        self.plain_port = free_port()
        text = site(upstream, self.port, self.plain_port, self.cert, self.key)
        # As root, the workers would become "nobody", who may not read the test's files.
        user = "user root;" if os.geteuid() == 0 else ""
        self.conf = directory / "nginx.conf"
        self.conf.write_text(CONF.format(dir=directory, site=text, user=user))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"https://localhost:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"wss://localhost:{self.port}"

    def start(self, timeout: float = 30.0) -> Nginx:
        assert NGINX is not None
        log = open(self.dir / "nginx.out", "wb")  # noqa: SIM115 (the child keeps it)
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(self.dir), "-c", str(self.conf)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"nginx exited: {self.log()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 1):
                return self
            time.sleep(0.05)
        raise AssertionError(f"nginx did not listen within {timeout} s: {self.log()}")

    def log(self) -> str:
        out = []
        for name in ("nginx.out", "error.log"):
            with contextlib.suppress(OSError):
                out.append((self.dir / name).read_text(errors="replace")[-2000:])
        return "\n".join(out)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGQUIT)  # nginx's graceful stop
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
