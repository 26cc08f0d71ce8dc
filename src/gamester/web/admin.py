"""``gamester admin``: moderation from the server's own machine (docs/web.md, Blocks, reports and bans).

::

    gamester admin --db URL reports [--limit N] [--json]
    gamester admin --db URL ban NAME [--days D] [--reason R]
    gamester admin --db URL unban NAME
    gamester admin --db URL chat-delete TABLE [--name NAME]

It works on the database itself, so it needs no server running and reaches every server on it: a
ban ends the account's sessions in the same transaction as it is written (every server reads
sessions from the database, so none of them accepts one afterwards) and withdraws its seeks; on
PostgreSQL a notice also tells every running server at once (their lobby sockets of that account
close, their chat hubs forget what was deleted). Bad input (an unknown name, a table that does not
exist) is one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING, Any

from gamester.core.columns import fit, say_error
from gamester.web.notifier import CHANNEL

if TYPE_CHECKING:  # the store (SQLAlchemy) is loaded only when the command runs: --help stays light
    from gamester.store.port import ModerationRepository, Stores

MAX_REASON = 500
DAY = 86400.0


def add_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="the server's database (default: the SQLite file gamester serve uses by default)",
    )
    acts = sp.add_subparsers(dest="action", metavar="ACTION", required=True)
    r = acts.add_parser("reports", help="the players' reports, newest first")
    r.add_argument("--limit", type=_positive_int, default=50, metavar="N", help="how many (default 50)")
    r.add_argument("--json", action="store_true", help="one JSON object a line")
    b = acts.add_parser("ban", help="ban an account: no log-in, seat, seek or chat; sessions end now")
    b.add_argument("name", help="the account's name (any case)")
    b.add_argument("--days", type=_days, default=None, metavar="D", help="for D days (default: for good)")
    b.add_argument("--reason", default=None, metavar="R", help="told to the account when it tries to log in")
    u = acts.add_parser("unban", help="lift an account's ban")
    u.add_argument("name")
    c = acts.add_parser("chat-delete", help="delete a table's chat lines (all, or one player's)")
    c.add_argument("table", help="the table's id")
    c.add_argument("--name", default=None, help="only the lines said under this name (or by this account)")


def _positive_int(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 10_000:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 10000, not {text!r}")
    return int(text)


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of days, not {text!r}") from None
    if not 0 < value <= 36500:
        raise argparse.ArgumentTypeError(f"expected more than 0 days (and at most 36500), not {text}")
    return value


class AdminError(Exception):
    """Bad input: one line, exit status 2."""


def run(args: argparse.Namespace) -> int:
    from gamester.store import default_sqlite_url, open_stores
    from gamester.web.ratings import INITIAL
    from gamester.web.seeks import TIMES

    try:
        stores = open_stores(args.db or default_sqlite_url(), INITIAL, TIMES)
    except ValueError as e:
        say_error(f"gamester admin: {e}")
        return 2
    try:
        return _act(stores, args)
    except AdminError as e:
        say_error(f"gamester admin {args.action}: {e}")
        return 2
    finally:
        stores.dispose()


def _act(stores: Stores, args: argparse.Namespace) -> int:
    store = stores.moderation
    now = time.time()
    if args.action == "reports":
        return _reports(store.reports(args.limit, now), args.json)
    if args.action == "chat-delete":
        return _chat_delete(store, args.table, args.name)
    key, name = _account(store, args.name)
    if args.action == "unban":
        lifted = store.unban(key)
        print(f"gamester: {name} may log in again" if lifted else f"gamester: {name} was not banned")
        return 0
    reason = args.reason
    if reason is not None:
        reason = " ".join(reason.split())
        if not reason or len(reason) > MAX_REASON or not reason.isprintable():
            raise AdminError(f"--reason: 1 to {MAX_REASON} printable characters")
    until = None if args.days is None else now + args.days * DAY
    ended = store.ban(key, until, reason, now)
    withdrawn = stores.seeks.withdraw_account(key, now)
    store.notify(CHANNEL, f"admin|~account:{key}|ban")
    when = "for good" if until is None else f"for {args.days:g} days (until {_utc(until)})"
    print(fit(f"gamester: banned {name} {when}"))
    print(f"gamester: {ended} session(s) ended, {withdrawn} seek(s) withdrawn")
    return 0


def _account(store: ModerationRepository, name: str) -> tuple[str, str]:
    """The account's key and its name as written (AdminError if there is none)."""
    key = name.casefold()
    shown = None if len(name) > 40 else store.account_name(key)
    if shown is None:
        raise AdminError(f"no account {name[:40]!r}")
    return key, shown


def _chat_delete(store: ModerationRepository, table: str, name: str | None) -> int:
    from gamester.web.validate import TABLE_ID

    if not TABLE_ID.match(table) or not store.table_exists(table):
        raise AdminError(f"no table {table[:40]!r}")
    gone = store.delete_chat(table, name)
    store.notify(CHANNEL, f"admin|{table}|chat-deleted")
    who = "" if name is None else f" said by {name[:40]}"
    print(fit(f"gamester: deleted {gone} chat line(s){who} at table {table}"))
    return 0


def _reports(found: list[dict[str, Any]], as_json: bool) -> int:
    if as_json:
        for r in found:
            print(json.dumps(r, ensure_ascii=False))
        return 0
    if not found:
        print("gamester: no reports")
        return 0
    for r in found:
        where = f" at table {r['table']}" if r["table"] else ""
        banned = "  [banned now]" if r["banned"] else ""
        print(fit(f"#{r['id']}  {_utc(r['at'])}  {r['reporter']} reported {r['reported']}{where}{banned}"))
        print(fit(f"    {r['reason']}"))
    return 0


def _utc(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))
