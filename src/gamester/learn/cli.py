"""The ``gamester train`` arguments and command (light: torch is imported only when it runs)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from gamester.core.columns import fit, say_error
from gamester.core.errors import GameError

LEARN_HINT = "pip install 'gamester[learn]'"


def add_train_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("game")
    sp.add_argument(
        "--out", metavar="DIR", required=True, help="write model.npz, train.jsonl and curve.png here"
    )
    sp.add_argument(
        "--hours", type=float, default=None, help="wall-clock budget (default 0.25 without --games)"
    )
    sp.add_argument(
        "--games",
        type=int,
        default=None,
        help="budget in self-play games (reproducible: same seed, same weights)",
    )
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--workers", type=int, default=1, help="local self-play processes (default 1)")
    sp.add_argument("--eval-deals", type=int, default=200, help="deals against heuristic per curve point")
    sp.add_argument(
        "--target",
        choices=("game", "deal"),
        default="game",
        help="each decision's label: the game's final return (default), or the race's estimate from the "
        "scores at the end of its deal (games played as a race of deals: penneech)",
    )
    sp.add_argument(
        "--teacher",
        metavar="SPEC",
        default=None,
        help="label with a search agent's values of every legal action (expert iteration), e.g. "
        "rollout:worlds=8, instead of final returns",
    )
    sp.add_argument(
        "--teach-share",
        type=float,
        default=1.0,
        metavar="F",
        help="with --teacher: the share of decisions with a choice it evaluates (default 1)",
    )
    sp.add_argument(
        "--features",
        choices=("action", "afterstate", "afterstate-turned"),
        default="action",
        help="how the network reads an action: its id or notation (default), the seat's view of "
        "the position it leads to (afterstate), or that view turned so the seat to move sits at the "
        "first seat (afterstate-turned, Pentyrch)",
    )
    sp.add_argument(
        "--buffer", type=int, default=150_000, metavar="N", help="replay buffer in samples (default 150000)"
    )
    sp.add_argument(
        "--reuse", type=float, default=4.0, metavar="R", help="gradient samples per new sample (default 4)"
    )
    sp.add_argument("--quiet", action="store_true", help="no progress bar")


def run_train_cli(args: argparse.Namespace, options: dict[str, Any]) -> int:
    # One thread per process for the small matrices of self-play: a BLAS pool spinning on a shared
    # machine made the forward pass three times slower. Only effective before numpy is first loaded.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    try:
        import torch  # noqa: F401  (the extra's one heavy dependency, checked first)
    except ImportError:
        say_error(f"gamester train: needs the learn extra (torch is missing): {LEARN_HINT}")
        return 2
    from gamester.core.registry import load_game
    from gamester.learn.train import TrainConfig, train

    if args.hours is not None and args.hours <= 0 or args.games is not None and args.games < 1:
        say_error("gamester train: --hours must be above 0 and --games at least 1")
        return 2
    if args.eval_deals < 1 or args.buffer < 1 or args.reuse <= 0:
        say_error("gamester train: --eval-deals and --buffer must be at least 1, --reuse above 0")
        return 2
    try:
        game = load_game(args.game, **options)
        cfg = TrainConfig(
            game=game.spec(),
            out=args.out,
            hours=0.25 if args.hours is None and args.games is None else args.hours,
            games=args.games,
            seed=args.seed,
            backend=args.backend,
            workers=args.workers,
            ray_address=args.ray_address,
            eval_deals=args.eval_deals,
            target=args.target,
            teacher=args.teacher,
            teach_share=args.teach_share,
            features=args.features,
            buffer=args.buffer,
            reuse=args.reuse,
            progress=not args.quiet,
        )
        last = train(cfg)
    except (GameError, OSError) as err:
        say_error(f"gamester train: {err}")
        return 2
    print(trained(game.spec(), last, args.out))
    return 0


def trained(spec: str, last: dict[str, Any], out: str) -> str:
    """The closing lines of ``gamester train``: the budget spent, the speed, the last point of the
    curve and where the weights are (one line of 110 columns before issue 27; now lines that fit).

    >>> print(trained("penneech", {"games": 40, "seconds": 61.2, "selfplay_decisions_per_second": 812.4,
    ...     "vs_heuristic": {"mean": -0.05, "deals": 200}}, "runs/pn"))
    penneech: 40 games in 61 s, 812 self-play decisions/s;
      vs heuristic -0.050 over 200 deals; weights in runs/pn/model.npz
    """
    vs = last.get("vs_heuristic", {})
    return fit(
        f"{spec}: {last['games']} games in {last['seconds']:.0f} s, "
        f"{last['selfplay_decisions_per_second']:.0f} self-play decisions/s;\n"
        f"  vs heuristic {vs.get('mean', float('nan')):+.3f} over {vs.get('deals', 0)} deals; "
        f"weights in {os.path.join(out, 'model.npz')}"
    )
