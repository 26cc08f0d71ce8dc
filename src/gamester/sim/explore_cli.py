"""The ``gamester explore`` arguments and command (light: imports the exploration only when run)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gamester.core.columns import fit, labelled, listing, say_error
from gamester.core.errors import GameError


def add_explore_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("game")
    sp.add_argument(
        "--out", metavar="DIR", required=True, help="write explore.json, records, the plot and report.md here"
    )
    sp.add_argument(
        "--budget", type=int, default=1000, help="analysed games in all, over every reading (default 1000)"
    )
    sp.add_argument(
        "--agents", default=None, help="agent specs, one per player or one for all (default: the best agent)"
    )
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument(
        "--worlds",
        type=int,
        default=8,
        help="sampled worlds per seat and decision for the chance estimates (default 8, as analyse)",
    )
    sp.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    sp.add_argument(
        "--score",
        default="auto",
        help="how readings are ranked: with-balance, without-balance, or auto (default): without "
        "seat balance where every seat is alike by construction (Penneech, Piquesept)",
    )
    sp.add_argument("--quiet", action="store_true", help="no progress bar")


def run_explore_cli(args: argparse.Namespace) -> int:
    from gamester.sim.explore import Exploration, Progress, run_exploration

    options: dict[str, str] = {}
    for o in args.option or []:
        if "=" not in o:
            say_error(f"gamester explore: --option {o!r} must be KEY=VALUE")
            return 2
        k, _, v = o.partition("=")
        options[k.strip()] = v.strip()
    progress = Progress()
    try:
        e = Exploration(
            game=args.game,
            options=options,
            budget=args.budget,
            agents=args.agents,
            seed=args.seed,
            worlds=args.worlds,
            workers=args.workers,
            backend=args.backend,
            ray_address=args.ray_address,
            progress=not args.quiet,
            score=args.score,
        )
        doc = run_exploration(e, args.out, progress)
    except GameError as err:
        say_error(f"gamester explore: {err}")
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        say_error(
            f"gamester explore: interrupted after {progress.done} of {progress.total} games; "
            f"nothing written to {args.out}"
        )
        return 130
    print(ranking(doc, args.out))
    return 0


def ranking(doc: dict[str, Any], out: str) -> str:
    """What the command prints: the first ten readings with their scores, and the files written."""
    from gamester.sim.explore import reading_key
    from gamester.sim.plots import have_matplotlib

    lines = []
    for i, row in enumerate(doc["readings"][:10]):
        lo, hi = row["ci"]
        v = row["score"]
        shown = "-" if v is None else f"{v:.3f} [{lo:.3f}, {hi:.3f}]"
        opts = reading_key({k: row["options"][k] for k in doc["space"]})
        # A reading's options (Pentyrch's seven ran to 116 columns) wrap after a comma.
        lines.append(labelled(f"{i + 1:3d}. {shown}  {row['games']:5d} games  ", opts))
    if len(doc["readings"]) > 10:
        lines.append(fit(f"     … {len(doc['readings']) - 10} more in {out}/explore.json"))
    files = [f"{out}/explore.json", "rounds.json", "report.md", "records/*.jsonl"]
    lines.append(listing("wrote ", files + (["explore.png"] if have_matplotlib() else []), sep=", "))
    return "\n".join(lines)
