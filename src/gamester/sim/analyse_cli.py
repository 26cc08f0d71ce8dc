"""The ``gamester analyse`` arguments and command (light: imports the analysis only when run)."""

from __future__ import annotations

import argparse

from gamester.core.columns import listing, say_error
from gamester.core.errors import GameError


def add_analyse_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("game")
    sp.add_argument(
        "--ruleset",
        action="append",
        metavar="R",
        help="a rule set to analyse (repeatable; default: every rule set of the game)",
    )
    sp.add_argument("--games", type=int, default=100, help="games per rule set (default 100)")
    sp.add_argument(
        "--agents", default=None, help="agent specs, one per player or one for all (default: the best agent)"
    )
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    sp.add_argument(
        "--out", metavar="DIR", help="write summary.json, NAME/records.jsonl, plots and report.md here"
    )
    sp.add_argument(
        "--worlds",
        type=int,
        default=8,
        help="sampled worlds per seat and decision for the chance estimates (0: none)",
    )
    sp.add_argument(
        "--skill-games", type=int, default=10, help="deals per rung of the skill ladder (0: no skill_trace)"
    )
    sp.add_argument(
        "--skill-ladder",
        default=None,
        metavar="SPEC",
        help="the ladder agent with {} for the budget (default per game, e.g. rollout:worlds={})",
    )
    sp.add_argument("--skill-budgets", default="1,2,4,8", help="doubling budgets (default 1,2,4,8)")
    sp.add_argument("--info-games", type=int, default=20, help="deals for info_value (0: no info_value)")
    sp.add_argument(
        "--info-agent",
        default=None,
        metavar="SPEC",
        help="the agent shown every card for info_value (default: the first analysis "
        "agent; it must search sampled worlds)",
    )
    sp.add_argument("--quiet", action="store_true", help="no progress bar")


def _budgets(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise GameError(
            f"--skill-budgets {text!r} must be whole numbers separated by commas, e.g. 1,2,4,8"
        ) from None


def run_analyse_cli(args: argparse.Namespace) -> int:
    from gamester.sim.analyse import Analysis, run_analysis
    from gamester.sim.plots import have_matplotlib
    from gamester.sim.report import cell_parts

    options: dict[str, str] = {}
    for o in args.option or []:
        if "=" not in o:
            say_error(f"gamester analyse: --option {o!r} must be KEY=VALUE")
            return 2
        k, _, v = o.partition("=")
        if k.strip() == "ruleset":
            say_error("gamester analyse: choose rule sets with --ruleset, not --option ruleset=")
            return 2
        options[k.strip()] = v.strip()
    try:
        a = Analysis(
            game=args.game,
            rulesets=list(args.ruleset or []),
            options=options,
            games=args.games,
            agents=args.agents,
            seed=args.seed,
            worlds=args.worlds,
            skill_games=args.skill_games,
            skill_ladder=args.skill_ladder,
            skill_budgets=_budgets(args.skill_budgets),
            info_games=args.info_games,
            info_agent=args.info_agent,
            workers=args.workers,
            backend=args.backend,
            ray_address=args.ray_address,
            progress=not args.quiet,
        )
        summary = run_analysis(a, args.out)
    except GameError as e:
        say_error(f"gamester analyse: {e}")
        return 2
    for name, rs in summary["rulesets"].items():
        print(f"{summary['game']} {name}: {rs['games']} games")
        for metric, entry in rs["metrics"].items():
            # A value by seat and role (four seats and two roles ran to 195 columns): a line each
            # (width 0: every part on its own line, lined up under the first).
            print(listing(f"  {metric:17s} ", cell_parts(entry), width=0, sep=";"))
    if args.out:
        files = [
            f"{args.out}/summary.json",
            "report.md",
            *(f"{n}/records.jsonl" for n in summary["rulesets"]),
        ]
        print(listing("wrote ", files + (["plots (*.png)"] if have_matplotlib() else []), sep=", "))
        if not have_matplotlib():
            print("note: no plots: matplotlib is not installed (pip install 'gamester[sim]')")
    return 0
