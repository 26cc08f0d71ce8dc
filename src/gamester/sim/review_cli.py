"""The ``gamester review`` arguments and command: the table, the JSON and the chart (light: the
review itself, ``gamester.sim.review``, is imported only when the command runs)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from gamester.core.columns import WIDTH, say_error, table
from gamester.core.errors import GameError, RecordError

if TYPE_CHECKING:
    from gamester.agents.review import Step


MEASURE_WORDS = {"share": "share of the best result", "chance": "chance of winning"}
"""What a review's numbers are (``measure`` in its JSON: ``gamester.agents.review.measure_of``)."""


def add_review_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument(
        "record", nargs="?", help="a record file (JSON), a .pos file (a position), or - for standard input"
    )
    sp.add_argument(
        "--position", metavar="TEXT", help="judge the seat's moves in this position (docs/positions.md)"
    )
    sp.add_argument("--seat", type=int, required=True, metavar="N", help="the player to review")
    sp.add_argument("--json", action="store_true", help="print the review as one JSON object")
    sp.add_argument(
        "--agent", metavar="SPEC", default=None, help="the judge (default: the game's best agent)"
    )
    sp.add_argument("--seed", type=int, default=0, help="the judge's and the worlds' seed (default 0)")
    sp.add_argument(
        "--worlds", type=int, default=None, help="worlds per decision for the chances (default 64)"
    )
    sp.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    sp.add_argument("--plot", metavar="FILE.png", help="chart the chance of winning over the game")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")


def run_review_cli(args: argparse.Namespace, record: Any) -> int:
    """The command, once the record is read (bad input raises a one-line :class:`GameError`)."""
    if not isinstance(record, dict):
        raise RecordError("a record is a JSON object; this file holds something else")
    if args.seed < 0:
        raise GameError(f"--seed must be 0 or more, not {args.seed}")
    if args.plot:
        _check_plot(args.plot)
    if record.get("position") is not None and not record.get("actions"):
        return judge_position(args, record)
    from gamester.agents.review import WORLDS, measure_of, review_json
    from gamester.sim.review import review_steps

    try:
        steps = review_steps(
            record,
            args.seat,
            args.agent,
            WORLDS if args.worlds is None else args.worlds,
            args.seed,
            args.workers,
            progress=not args.quiet,
        )
    except KeyboardInterrupt:
        print(file=sys.stderr)
        say_error("gamester review: interrupted; nothing was reviewed")
        return 130
    out = review_json(args.seat, steps, measure=measure_of(record["game"]))
    if args.plot:
        write_chart(args.plot, record.get("game", "?"), args.seat, steps)
    if args.json:
        print(json.dumps(out))
    else:
        print(format_review(out, steps))
        if args.plot:
            print(f"wrote {args.plot}")
    return 0


def judge_position(args: argparse.Namespace, record: dict[str, Any]) -> int:
    """``review`` of a position with no moves after it: each legal move of the seat to move, with
    its chance of winning after it, estimated from that seat's view as a review's are, and the best
    agent's choice (docs/positions.md, On the command line)."""
    from gamester.agents import best_agent_spec
    from gamester.agents.base import View, make_agent
    from gamester.agents.review import WORLDS, chances, measure_of, step_seeds
    from gamester.core.record import replay
    from gamester.core.rng import make_rng

    state = replay(record)
    seat = args.seat
    if state.is_terminal():
        raise GameError("the game is over in this position: there is no move to judge")
    if seat != state.current_player():
        raise GameError(f"it is player {state.current_player()}'s turn in this position, not player {seat}'s")
    worlds = WORLDS if args.worlds is None else args.worlds
    if worlds < 1:
        raise GameError(f"--worlds must be at least 1 (got {worlds})")
    view = View(state, seat)
    legal = view.legal_actions()
    agent_seed, world_seed = step_seeds(args.seed, len(state.history_strings()))
    best = make_agent(args.agent or best_agent_spec(state.game), game=state.game, seed=agent_seed).step(view)
    got = chances(view, legal, worlds, make_rng(world_seed))
    text = view.action_to_string
    ranked = sorted(
        ((round(sum(p) / len(p), 4), text(a)) for a, p in got.items()), key=lambda m: (-m[0], m[1])
    )
    moves = [{"action": a, "p": p} for p, a in ranked]
    out = {"seat": seat, "position": record["position"], "best": text(best), "moves": moves}
    if args.json:
        print(json.dumps(out))
        return 0
    measure = measure_of(str(record["game"]))
    rows = [("move", measure, "")] + [(a, f"{p:.0%}", "best" if a == out["best"] else "") for p, a in ranked]
    what = MEASURE_WORDS[measure]
    lines = [f"Seat {seat + 1} (player {seat}) to move: the {what} after each legal move ({worlds} worlds)"]
    lines += table(rows, right=(1,), wrap=(0,))
    lines.append(f"The best agent plays {out['best']}.")
    print("\n".join(lines))
    return 0


def format_review(out: dict[str, Any], steps: list[Step]) -> str:
    """The readable table: one line per decision, the marks, why each marked move falls short, and
    the summary. Seats are named as the web page names them, Seat 1 for player 0; the numbers are
    what ``out["measure"]`` says (a share of the best result, or the chance of winning)."""
    import textwrap

    from gamester.agents.review import BLUNDER, MISTAKE, summarise

    seat = out["seat"]
    who = f"Seat {seat + 1} (player {seat}, --seat {seat})"
    if not steps:
        return f"{who} made no decision in this record (no turn with more than one legal move)."
    measure = out["measure"]
    lines = [f"Review of {who}:", f"the {MEASURE_WORDS[measure]} after the move played and after the best"]
    rows = [("#", "played", measure, "best", measure, "mark")]
    for s in steps:
        rows.append(
            (
                str(s.index),
                s.action,
                f"{s.p_played:.0%}",
                "=" if s.action == s.best else s.best,
                f"{s.p_best:.0%}",
                s.mark,
            )
        )
    # A move with a long payment (Pentyrch for two pays up to six cards) continues under itself.
    lines += table(rows, right=(0, 2, 4), wrap=(1, 3))
    marked = [s for s in steps if s.mark and s.why]
    if marked:
        lines.append("Why:")
        for s in marked:
            lines += textwrap.wrap(
                f"{s.index} ({s.mark}): {s.why}",
                WIDTH,
                initial_indent="  ",
                subsequent_indent="    ",
                break_long_words=False,
                break_on_hyphens=False,
            )
    summ = summarise(steps)
    lines.append(
        f"{len(steps)} decisions; accuracy {summ['accuracy']:.0%}; {summ['mistakes']} mistake(s) "
        f"(a drop of {MISTAKE:.0%} or more),\n{summ['blunders']} blunder(s) ({BLUNDER:.0%} or more)."
    )
    return "\n".join(lines)


def _check_plot(path: str) -> None:
    import importlib.util

    if not path.lower().endswith(".png"):
        raise GameError(f"--plot {path}: the chart is a PNG file (name it FILE.png)")
    if importlib.util.find_spec("matplotlib") is None:
        raise GameError("--plot needs matplotlib: pip install 'gamester[sim]'")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise GameError(f"--plot {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise GameError(f"--plot {path} is a folder: give a file name")


def write_chart(path: str, game: str, seat: int, steps: list[Step]) -> None:
    """The share after each decision: the move played and the best, marks in colour."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.6))
    xs = [s.index for s in steps]
    ax.plot(xs, [s.p_best for s in steps], color="#9aa7b4", linestyle="--", label="best move")
    ax.plot(xs, [s.p_played for s in steps], color="#2b5f8a", marker="o", markersize=3, label="move played")
    for mark, colour in (("mistake", "#e09b2d"), ("blunder", "#c0392b")):
        pts = [s for s in steps if s.mark == mark]
        if pts:
            ax.scatter([s.index for s in pts], [s.p_played for s in pts], color=colour, zorder=3, label=mark)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("action in the record")
    ax.set_ylabel("share of the best result")
    ax.set_title(f"{game}: review of Seat {seat + 1} (player {seat})", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=90)
    except OSError as e:
        raise GameError(f"cannot write {path}: {e.strerror}") from None
    finally:
        plt.close(fig)
