"""How long Pentyrch takes to list the moves of its largest positions (``overpay=true``).

With ``overpay`` a hand of many low cards may pay for one exchange in tens of thousands of ways, so a
position can have over a hundred thousand legal moves. Listing them, their mask and their notation
must stay linear in their number. This replays the worst records we found (random play biased toward
large hands of low cards, see the records' options) and times, for the final position: the legal
actions, the mask, the notation one action at a time and all at once, parsing every notation back,
and ``gamester.summary`` (what ``gamester replay --json`` prints).

    python benchmarks/pentyrch_overpay.py [RECORD.json ...] [--sample N]

``--sample N`` times only N actions for the one-at-a-time measures and scales up (useful for an
old, quadratic version, where doing them all takes hours).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gamester

HERE = Path(__file__).parent.parent / "tests" / "data"


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("records", nargs="*", type=Path)
    ap.add_argument("--sample", type=int, default=0)
    args = ap.parse_args()
    paths = args.records or sorted(HERE.glob("pentyrch_overpay_*.json"))
    for path in paths:
        record = json.loads(path.read_text())
        dt, state = timed(lambda r=record: gamester.replay(r))
        print(
            f"{path.name}: {record['game']} {record['options'].get('players')} players, "
            f"{len(record['actions'])} actions, replayed in {dt:.3f} s"
        )
        dt, legal = timed(state.legal_actions)
        print(f"  legal_actions        {len(legal):>9,} moves  {dt:8.3f} s")
        dt, _ = timed(state.legal_actions_mask)
        print(f"  legal_actions_mask                     {dt:8.3f} s")
        some = legal if not args.sample else legal[:: max(1, len(legal) // args.sample)]
        scale = len(legal) / len(some)
        dt, names = timed(lambda s=some, st=state: [st.action_to_string(a) for a in s])
        print(f"  action_to_string x{len(some):,}{'' if scale == 1 else ' (scaled)'}{dt * scale:>14.3f} s")
        dt, back = timed(lambda n=names, st=state: [st.string_to_action(x) for x in n])
        assert back == some, "notation does not parse back to its action"
        print(f"  string_to_action x{len(some):,}{'' if scale == 1 else ' (scaled)'}{dt * scale:>14.3f} s")
        if hasattr(state, "legal_action_strings"):
            dt, every = timed(state.legal_action_strings)
            print(f"  legal_action_strings                   {dt:8.3f} s")
            if scale == 1:
                assert every == names
        if not args.sample:
            dt, _ = timed(lambda st=state: gamester.summary(st))
            print(f"  summary (replay --json)                {dt:8.3f} s")


if __name__ == "__main__":
    main()
