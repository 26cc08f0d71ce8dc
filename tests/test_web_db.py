"""Moving and upgrading a server's database (docs/deploy.md): ``gamester db upgrade`` on a database
made by each earlier release's own code, and ``gamester db export | import`` from SQLite to
PostgreSQL and back, each followed by playing on.

The fixtures ``tests/data/web_schema_NNNN.db`` were made by ``tests/make_web_db.py`` (0002 on) and
``tests/make_web_db_0001.py`` on the code of the release that had that schema; what each holds is in
the ``.json`` beside it (table ids, the unfinished table's seat tokens, the accounts' password).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gamester.play import cli
from gamester.store import dump
from gamester.store.repository import make_engine
from tests.pg_support import pg_cluster  # noqa: F401  (a pytest fixture)
from tests.web_helpers import client_on, join, new_table, next_view

DATA = Path(__file__).parent / "data"
SCHEMAS = ["0001", "0002", "0003", "0004", "0005", "0006"]


def fixture_info(schema: str) -> dict[str, Any]:
    if schema == "0001":  # made before the fixture scripts printed JSON (tests/test_web_people.py)
        return {
            "finished": "enFvGtw8nP1oYhlz",
            "playing": "ZN5i1dGIWYQfJhR9",
            "tokens": ["vWgzCeNhvNmDF-nZX2_50nWv5bFKFzw5", "wwaF_0_YrezpGQtF3i3b8hYeogT2o8ei"],
            "seq": 6,
            "people": False,
        }
    info: dict[str, Any] = json.loads((DATA / f"web_schema_{schema}.json").read_text())
    return info


def gamester(*args: str) -> subprocess.CompletedProcess[str]:
    """``gamester ARGS`` in this process (the command's own code, without an interpreter's start
    each time); :func:`test_the_db_command_runs_as_a_program` runs the real program once."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli._main(list(args))
    return subprocess.CompletedProcess(["gamester", *args], code, out.getvalue(), err.getvalue())


def rows_of(path: Path) -> dict[str, list[str]]:
    """An export's rows by table, each row as its JSON text, sorted (the order rows come out of a
    database may differ between SQLite and PostgreSQL; their content may not)."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    out: dict[str, list[str]] = {}
    current = ""
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if isinstance(rec, dict) and "table" in rec:
                current = rec["table"]
                out[current] = []
            elif isinstance(rec, list):
                out[current].append(json.dumps(rec, sort_keys=True))
    return {k: sorted(v) for k, v in out.items()}


def play_moves(c: TestClient, tid: str, tokens: list[str], moves: int, seed: int = 1) -> dict[str, Any]:
    """Random legal moves for the human seats (by token): ``moves`` of them, or to the end."""
    rng = random.Random(seed)
    socks = [c.websocket_connect(f"/ws/tables/{tid}?token={t}") for t in tokens]
    entered = [s.__enter__() for s in socks]
    try:
        views = [next_view(w) for w in entered]
        made = 0
        while made < moves:
            seq = max(v["seq"] for v in views)
            for i, w in enumerate(entered):
                while views[i]["seq"] < seq:
                    views[i] = next_view(w)
            if views[0]["status"] == "over":
                break
            movers = [i for i, v in enumerate(views) if v["legal"] and v["status"] == "playing"]
            if not movers:  # a bot is to move
                views[0] = next_view(entered[0])
                continue
            i = movers[0]
            entered[i].send_json({"type": "act", "action": rng.choice(views[i]["legal"]), "seq": seq})
            views[i] = next_view(entered[i])
            assert views[i]["seq"] == seq + 1, views[i]
            made += 1
    finally:
        for s in socks:
            s.__exit__(None, None, None)
    table: dict[str, Any] = c.get(f"/api/tables/{tid}").json()
    return table


def chat(c: TestClient, tid: str, token: str, text: str) -> None:
    """Say ``text`` at the table and wait for it to come back (stored: a new id in the database)."""
    with c.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
        ws.send_json({"type": "chat", "text": text})
        for _ in range(200):
            m = ws.receive_json()
            assert m["type"] != "error", m
            if m["type"] == "chat" and m["text"] == text:
                return
    raise AssertionError("the chat line never came back")


def play_on(c: TestClient, info: dict[str, Any]) -> None:
    """What a player of the old release does on the new one: moves on the unfinished table, the
    finished one's record and review, and with accounts: log in, see the ratings and the chat kept;
    then a new table, a chat line and a move there."""
    finished = c.get(f"/api/tables/{info['finished']}").json()
    assert finished["status"] == "over"
    assert c.get(f"/api/tables/{info['finished']}/record").status_code == 200
    playing = c.get(f"/api/tables/{info['playing']}").json()
    if playing["status"] != "over":
        assert playing["seq"] >= info["seq"]
        table = play_moves(c, info["playing"], info["tokens"], 4)
        assert table["seq"] >= playing["seq"] + 4 or table["status"] == "over"
    if info.get("review") == "done":
        got = c.get(f"/api/tables/{info['finished']}/review?seat=0").json()
        assert got["status"] == "done" and got["steps"], got
    if info.get("people"):
        r = c.post("/api/session", json={"name": info["accounts"][0], "password": info["password"]})
        assert r.status_code == 200, r.text
        ratings = c.get(f"/api/players/{info['accounts'][0]}").json()["ratings"]
        assert ratings["penneech"]["games"] >= 1
        with c.websocket_connect(f"/ws/tables/{info['rated']}") as ws:  # a spectator gets the chat kept
            texts = set()
            for _ in range(20):
                m = ws.receive_json()
                if m["type"] == "chat":
                    texts.add(m["text"])
                if "well played" in texts:
                    break
            assert {"good luck!", "well played"} <= texts, texts
        c.cookies.clear()
    tid = new_table(c, "penneech", ["human", "random"])
    token = join(c, tid, 0, "Newcomer")
    chat(c, tid, token, "hello from the new release")
    assert play_moves(c, tid, [token], 2)["seq"] >= 2


@pytest.mark.slow  # plays games to their end on each old database
@pytest.mark.parametrize("schema", SCHEMAS)
def test_each_earlier_schema_upgrades_and_plays_on(schema: str, tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(DATA / f"web_schema_{schema}.db", path)
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT version_num FROM alembic_version").fetchall() == [(schema,)]
    out = gamester("db", "upgrade", "--db", f"sqlite:///{path}")
    head = dump.head()
    assert out.returncode == 0, out.stderr
    if schema == head:
        assert out.stdout.strip() == f"gamester db upgrade: schema {head}, already this release's"
    else:
        assert out.stdout.strip() == f"gamester db upgrade: schema {schema} -> {head}", out.stdout
    again = gamester("db", "upgrade", "--db", f"sqlite:///{path}")
    assert again.returncode == 0 and "already this release's" in again.stdout
    with client_on(path) as c:
        play_on(c, fixture_info(schema))


@pytest.mark.slow  # a PostgreSQL cluster, and games played on three databases
def test_export_import_sqlite_to_postgresql_and_back(tmp_path: Path, pg_cluster: Any) -> None:  # noqa: F811
    info = fixture_info("0006")
    first = tmp_path / "first.db"
    shutil.copy(DATA / "web_schema_0006.db", first)
    assert gamester("db", "upgrade", "--db", f"sqlite:///{first}").returncode == 0
    a = tmp_path / "a.jsonl.gz"
    out = gamester("db", "export", "--db", f"sqlite:///{first}", "--out", str(a))
    assert out.returncode == 0, out.stderr
    with gzip.open(a) as packed:
        assert packed.read(2) == b'{"'  # compressed by its name
    exported = rows_of(a)
    assert "gm_sessions" not in exported and "gm_throttle" not in exported  # by design: see dump.py
    assert {"gm_tables", "gm_actions", "gm_accounts", "gm_ratings", "gm_chat", "gm_reviews"} <= set(exported)

    # SQLite -> PostgreSQL: everything arrives, exactly.
    pg = pg_cluster.create_database()
    out = gamester("db", "import", "--db", pg, str(a))
    assert out.returncode == 0, out.stderr
    b = tmp_path / "b.jsonl"
    assert gamester("db", "export", "--db", pg, "--out", str(b)).returncode == 0
    assert rows_of(b) == exported
    # Plays on in PostgreSQL (chat ids continue after the imported ones).
    with TestClient(_app(pg)) as c:
        play_on(c, info)
    c_file = tmp_path / "c.jsonl"
    assert gamester("db", "export", "--db", pg, "--out", str(c_file)).returncode == 0
    moved = rows_of(c_file)
    # A new table was made there (an old waiting table nobody joined may have expired meanwhile).
    assert {r.split(",")[0] for r in moved["gm_tables"]} - {r.split(",")[0] for r in exported["gm_tables"]}
    assert len(moved["gm_chat"]) > len(exported["gm_chat"])

    # PostgreSQL -> SQLite: again nothing lost, and it plays on.
    second = tmp_path / "second.db"
    out = gamester("db", "import", "--db", f"sqlite:///{second}", str(c_file))
    assert out.returncode == 0, out.stderr
    d = tmp_path / "d.jsonl"
    assert gamester("db", "export", "--db", f"sqlite:///{second}", "--out", str(d)).returncode == 0
    assert rows_of(d) == moved
    with client_on(second) as c:
        r = c.post("/api/session", json={"name": info["accounts"][1], "password": info["password"]})
        assert r.status_code == 200, r.text
        tid = new_table(c, "penneech", ["human", "random"])
        token = join(c, tid, 0, "Again")
        chat(c, tid, token, "and back again")
        assert play_moves(c, tid, [token], 2)["seq"] >= 2


def _app(url: str) -> Any:
    from gamester.web import create_app
    from gamester.web.limits import OFF

    return create_app(url, limits=OFF)


def _newest(tmp_path: Path) -> Path:
    """The newest fixture, upgraded to this release's schema (an export wants the current schema)."""
    src = tmp_path / "src.db"
    shutil.copy(DATA / f"web_schema_{SCHEMAS[-1]}.db", src)
    assert gamester("db", "upgrade", "--db", f"sqlite:///{src}").returncode == 0
    return src


def test_import_refuses_a_database_that_holds_data_unless_replaced(tmp_path: Path) -> None:
    src = _newest(tmp_path)
    a = tmp_path / "a.jsonl"
    assert gamester("db", "export", "--db", f"sqlite:///{src}", "--out", str(a)).returncode == 0
    target = f"sqlite:///{tmp_path / 'target.db'}"
    assert gamester("db", "import", "--db", target, str(a)).returncode == 0
    again = gamester("db", "import", "--db", target, str(a))
    assert again.returncode == 2 and again.stderr.count("\n") == 1, again.stderr
    assert "already holds data" in again.stderr and "--replace" in again.stderr
    assert gamester("db", "import", "--db", target, str(a), "--replace").returncode == 0
    assert rows_of(a) == rows_of(_export(target, tmp_path / "b.jsonl"))


def _export(url: str, out: Path) -> Path:
    assert gamester("db", "export", "--db", url, "--out", str(out)).returncode == 0
    return out


def test_a_cut_or_foreign_file_imports_nothing(tmp_path: Path) -> None:
    src = _newest(tmp_path)
    whole = _export(f"sqlite:///{src}", tmp_path / "a.jsonl").read_text().splitlines(keepends=True)
    newer = whole[0].replace(f'"schema":"{dump.head()}"', '"schema":"9999"')
    assert newer != whole[0]
    cases = {
        "cut": "".join(whole[: len(whole) // 2]),
        "no header": "".join(whole[1:]),
        "not json": "hello\n",
        "newer schema": newer + "".join(whole[1:]),
        "unknown table": whole[0] + '{"table":"gm_future","columns":["x"],"rows":0}\n' + "".join(whole[1:]),
    }
    for name, text in cases.items():
        bad = tmp_path / f"{name}.jsonl"
        bad.write_text(text)
        db = tmp_path / f"{name}.db"
        out = gamester("db", "import", "--db", f"sqlite:///{db}", str(bad))
        assert out.returncode == 2 and out.stderr.count("\n") == 1, (name, out.stderr)
        assert "Traceback" not in out.stderr
        engine = make_engine(f"sqlite:///{db}")
        try:
            with engine.connect() as conn:
                assert dump.is_empty(conn) is None, name  # one transaction: nothing was written
        finally:
            engine.dispose()
    missing = gamester("db", "import", "--db", f"sqlite:///{tmp_path / 'x.db'}", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_upgrade_refuses_a_database_of_a_newer_release(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    shutil.copy(DATA / "web_schema_0006.db", path)
    with sqlite3.connect(path) as con:
        con.execute("UPDATE alembic_version SET version_num = '9999'")
    out = gamester("db", "upgrade", "--db", f"sqlite:///{path}")
    assert out.returncode == 2 and "newer than this gamester knows" in out.stderr, out.stderr
    bad = gamester("db", "upgrade", "--db", "mysql://x/y")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


@pytest.mark.slow  # two interpreters' start
def test_the_db_command_runs_as_a_program(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'new.db'}"
    out = subprocess.run(
        [sys.executable, "-m", "gamester", "db", "upgrade", "--db", db],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (
        out.returncode == 0
        and out.stdout == f"gamester db upgrade: schema none (a new database) -> {dump.head()}\n"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gamester",
            "db",
            "export",
            "--db",
            db,
            "--out",
            str(tmp_path / "no" / "x.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
