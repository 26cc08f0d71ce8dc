"""The command line's server commands: ``gamester serve`` (the web app, docs/web.md) and ``gamester
db export|import|upgrade`` (its database, docs/deploy.md). Both need the ``web`` extra; without it
they say so in one line."""

from __future__ import annotations

import argparse
from pathlib import Path

from gamester.core.columns import say_error


def add_serve_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sp.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sp.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="sqlite:///PATH or postgresql+psycopg://… (default: a SQLite file in your data "
        "folder; its path is printed at start)",
    )
    sp.add_argument(
        "--limits",
        default="default",
        metavar="default|off|FILE",
        help="quotas per client address (docs/web.md, On the internet): the defaults, off (a load "
        "test from one address), or a JSON file of limits",
    )
    sp.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="another site whose pages may use this server (e.g. https://example.org); repeatable",
    )
    sp.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name this server answers to besides localhost and its addresses (e.g. games.example.org;"
        " on the loopback, other names are refused); repeatable",
    )
    sp.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help="a reverse proxy (address or network, e.g. 127.0.0.1) whose X-Forwarded-For names the "
        "client; every other client's is ignored (docs/deploy.md); repeatable",
    )
    sp.add_argument(
        "--metrics-allow",
        action="append",
        default=[],
        metavar="ADDR",
        help="an address or network besides the loopback that may read /metrics; repeatable",
    )
    sp.add_argument(
        "--log-format",
        default="text",
        choices=["text", "json"],
        help="text: for a person (warnings only); json: one JSON object a line for each request and "
        "table event (docs/deploy.md)",
    )


def add_db_arguments(sp: argparse.ArgumentParser) -> None:
    dbs = sp.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    db_help = "sqlite:///PATH or postgresql+psycopg://… (default: the SQLite file gamester serve uses)"
    dp = dbs.add_parser("export", help="write the whole database to a file of JSON lines (.gz: compressed)")
    dp.add_argument("--db", metavar="URL", default=None, help=db_help)
    dp.add_argument(
        "--out", metavar="FILE", required=True, help="the file to write (FILE.jsonl or .jsonl.gz)"
    )
    dp = dbs.add_parser("import", help="load an export into an empty database (one transaction)")
    dp.add_argument("--db", metavar="URL", default=None, help=db_help)
    dp.add_argument("file", metavar="FILE", help="a file gamester db export wrote")
    dp.add_argument("--replace", action="store_true", help="delete everything already in the database first")
    dp = dbs.add_parser("upgrade", help="migrate a database made by an earlier release to this one's schema")
    dp.add_argument("--db", metavar="URL", default=None, help=db_help)


def run_serve(args: argparse.Namespace) -> int:
    try:
        from gamester.web.server import serve
    except ImportError as e:  # the web extra is missing
        say_error(f"gamester serve: needs the web extra ({e.name} is missing): pip install 'gamester[web]'")
        return 2
    return serve(
        args.host,
        args.port,
        args.db,
        limits=args.limits,
        allow_origins=args.allow_origin,
        allow_hosts=args.allow_host,
        trusted_proxies=args.trusted_proxy,
        metrics_allow=args.metrics_allow,
        log_format=args.log_format,
    )


def run_db(args: argparse.Namespace) -> int:
    where = f"gamester db {args.db_command}"
    try:
        from gamester.store import database_command, default_sqlite_url
    except ImportError as e:  # the web extra is missing
        say_error(f"{where}: needs the web extra ({e.name} is missing): pip install 'gamester[web]'")
        return 2
    path = getattr(args, "out", None) or getattr(args, "file", None)
    try:
        line = database_command(
            args.db or default_sqlite_url(),
            args.db_command,
            Path(path) if path else None,
            replace=bool(getattr(args, "replace", False)),
        )
    except ValueError as e:  # a bad URL, file or database (store.dump.DumpError): one line
        say_error(f"{where}: {e}")
        return 2
    except OSError as e:
        say_error(f"{where}: {getattr(e, 'filename', '') or ''} {e.strerror or e}".replace("  ", " "))
        return 2
    print(line)
    return 0
