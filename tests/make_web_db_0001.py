"""Make ``tests/data/web_schema_0001.db``: a database of the web server before the people schema.

Run on the code of the release before it (commit 3d690d0, schema revision 0001)::

    PYTHONPATH=.:/path/to/old/checkout/src python tests/make_web_db_0001.py tests/data/web_schema_0001.db

It holds a finished table of two bots and a table of two humans six moves in; the table ids and seat
tokens it prints are written into ``tests/test_web_people.py``, which upgrades a copy and plays on.
"""

from __future__ import annotations

import random
import sqlite3
import sys
import time
from pathlib import Path

from tests.web_helpers import client_on, join, new_table, next_view


def main() -> None:
    out = Path(sys.argv[1])
    out.unlink(missing_ok=True)
    with client_on(out) as c:
        t1 = new_table(c, "penneech", ["random", "random"])
        for _ in range(600):
            if c.get(f"/api/tables/{t1}").json()["status"] == "over":
                break
            time.sleep(0.1)
        t2 = new_table(c, "penneech", ["human", "human"])
        a = join(c, t2, 0, "Ann")
        b = join(c, t2, 1, "Bob")
        rng = random.Random(3)
        with (
            c.websocket_connect(f"/ws/tables/{t2}?token={a}") as wa,
            c.websocket_connect(f"/ws/tables/{t2}?token={b}") as wb,
        ):
            for _ in range(6):
                m0 = next_view(wa)
                m1 = next_view(wb)
                for ws, m in ((wa, m0), (wb, m1)):
                    if m["legal"]:
                        ws.send_json({"type": "act", "action": rng.choice(m["legal"]), "seq": m["seq"]})
        print(
            t1,
            c.get(f"/api/tables/{t1}").json()["status"],
            t2,
            c.get(f"/api/tables/{t2}").json()["seq"],
            a,
            b,
        )
    con = sqlite3.connect(out)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("VACUUM")
    con.close()


if __name__ == "__main__":  # the bot workers are spawned processes: they import this file again
    main()
