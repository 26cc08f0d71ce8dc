"""The ``gamester`` command line (SPEC.md, Command line). Stable: tests and scripts rely on it.

Imports are done inside each command, so ``gamester --help`` starts fast and loads no heavy library.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any


def _options(pairs: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in pairs or []:
        if "=" not in p:
            raise SystemExit(f"gamester: --option {p!r} must be KEY=VALUE")
        k, _, v = p.partition("=")
        out[k.strip()] = v.strip()
    return out


def _add_game_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--option", "-o", action="append", metavar="K=V",
                    help="a game option (repeatable), e.g. --option target=41 or --option ruleset=cotton")


def _add_backend_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="local worker processes (default) or Ray (pip install 'gamester[ray]')")
    sp.add_argument("--ray-address", metavar="ADDR", default=None,
                    help="with --backend ray: join this running cluster (default: start a local Ray)")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="gamester",
        description="Penneech, Piquesept and Pentyrch: play, replay, simulate and study three "
                    "forgotten games.")
    ap.add_argument("--version", action="store_true", help="print the version and exit")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    sp = sub.add_parser("play", help="play a game in the terminal against computer players")
    sp.add_argument("game")
    sp.add_argument("--vs", action="append", metavar="AGENT",
                    help="opponent agent spec (once for all, or once per other player in order)")
    sp.add_argument("--seat", type=int, default=0, help="your player number (default 0)")
    sp.add_argument("--seed", type=int, default=None, help="fix the deals")
    sp.add_argument("--players", type=int, default=None, help="shorthand for --option players=N")
    sp.add_argument("--hint", action="store_true",
                    help="before each of your moves, show what the strongest agent would play and "
                         "its estimated chance of winning")
    sp.add_argument("--save", metavar="FILE", help="save the game's record to FILE when it ends")
    _add_game_options(sp)

    sp = sub.add_parser("replay", help="replay a record; print a summary or a walk-through")
    sp.add_argument("record", help="a record file (JSON), or - for standard input")
    sp.add_argument("--json", action="store_true", help="print one JSON summary object")
    sp.add_argument("--seat", type=int, default=None, help="show what this player saw")

    sp = sub.add_parser("simulate", help="play many games between agents; write the records")
    sp.add_argument("game")
    sp.add_argument("--agents", required=True, help="one agent spec per player, comma-separated")
    sp.add_argument("--games", type=int, default=100)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--workers", type=int, default=1)
    sp.add_argument("--out", metavar="FILE.jsonl", help="write one complete record per line")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_backend_options(sp)
    _add_game_options(sp)

    sp = sub.add_parser("tournament", help="every agent in every seat on duplicate deals")
    sp.add_argument("game")
    sp.add_argument("--agents", required=True, help="agent specs, comma-separated")
    sp.add_argument("--games", type=int, default=100, help="number of deals (each under every seating)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--workers", type=int, default=2)
    sp.add_argument("--out", metavar="DIR", help="write the summary, chart and records here")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_backend_options(sp)
    _add_game_options(sp)

    sp = sub.add_parser("analyse", help="game-design metrics of each rule set (docs/analysis.md)")
    from gamester.sim.analyse_cli import add_analyse_arguments

    add_analyse_arguments(sp)
    _add_backend_options(sp)
    _add_game_options(sp)

    sp = sub.add_parser("rules", help="the rules of a game, its options and rule sets")
    sp.add_argument("game")

    sp = sub.add_parser("bench", help="playouts (or search iterations) per second")
    sp.add_argument("game")
    sp.add_argument("--seconds", type=float, default=3.0)
    sp.add_argument("--agent", help="measure this agent's search speed instead (e.g. ismcts)")
    sp.add_argument("--compare", action="store_true",
                    help="interleave with the game's OpenSpiel peer and print the ratio "
                         "(needs the bench extra: pip install 'gamester[bench]')")
    _add_game_options(sp)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.version:
        from gamester import __version__

        print(f"gamester {__version__}")
        return 0
    if not args.command:
        ap.print_help()
        return 0
    from gamester.core.errors import GameError

    try:
        return int(COMMANDS[args.command](args))
    except GameError as e:
        print(f"gamester {args.command}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def cmd_play(args: argparse.Namespace) -> int:
    from gamester.agents.base import Agent, make_agent
    from gamester.core.registry import load_game
    from gamester.play.terminal import TerminalGame

    opts = _options(args.option)
    if args.players is not None:
        opts["players"] = str(args.players)
    game = load_game(args.game, **opts)
    n = game.num_players
    if not 0 <= args.seat < n:
        print(f"gamester play: --seat must be 0 to {n - 1} in this game", file=sys.stderr)
        return 2
    specs = args.vs or [default_opponent(game.name)]
    others = [p for p in range(n) if p != args.seat]
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        print(f"gamester play: give --vs once, or once for each of the {len(others)} other players",
              file=sys.stderr)
        return 2
    seed = args.seed
    agents: list[Agent | None] = [None] * n
    for i, (p, spec) in enumerate(zip(others, specs, strict=True)):
        agents[p] = make_agent(spec, game=game, seed=None if seed is None else seed * 100 + i)
    hint = make_agent(default_opponent(game.name), game=game) if args.hint else None
    state = game.new_initial_state(seed=seed)
    finished = TerminalGame(state, args.seat, agents, hint_agent=hint).run()
    path = args.save
    if path is None and finished and sys.stdin.isatty():
        try:
            path = input("Save the record? File name (empty to skip): ").strip() or None
        except EOFError:
            path = None
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(state.record(), f, indent=1)
            f.write("\n")
        print(f"Record saved to {path}.")
    return 0


def default_opponent(game_name: str) -> str:
    """The strongest agent available for a game, at about a second a move."""
    from gamester.agents import best_agent_spec

    return best_agent_spec(game_name)


def _read_record(path: str) -> Any:
    from gamester.core.errors import RecordError

    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"{path} is not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def cmd_replay(args: argparse.Namespace) -> int:
    from gamester.core.record import replay, summary
    from gamester.play.terminal import renderer

    record = _read_record(args.record)
    state = replay(record)
    n = state.game.num_players
    if args.seat is not None and not 0 <= args.seat < n:
        print(f"gamester replay: --seat must be 0 to {n - 1} for this record", file=sys.stderr)
        return 2
    if args.json:
        out = summary(state)
        if args.seat is not None:
            out["observation"] = state.observation(args.seat)
        print(json.dumps(out))
        return 0
    # A walk-through: every action and what it caused, from one seat's view or from above.
    render = renderer(state.game.name)
    walk = state.game.new_initial_state(seed=state.seed, chance=record.get("chance"))
    seat = args.seat

    def events() -> None:
        for ev in walk.last_events():
            if seat is None and "seats" in ev:
                continue
            line = render.narrate(ev, -1 if seat is None else seat) if render else json.dumps(ev)
            if line:
                print("  " + line)

    events()
    for text in record.get("actions", []):
        p = walk.current_player()
        action = walk.string_to_action(text)
        shown = text if seat is None else walk.action_seen_by(action, seat)
        walk.apply_action(action)
        print(f"Player {p}: {shown}")
        events()
    if seat is not None and render:
        print(render.board(walk.observation(seat)))
    s = summary(walk)
    print(f"{'Game over' if s['is_terminal'] else 'Position'}: scores {s['scores']}"
          + (f", returns {s['returns']}, winners {s['winners']}" if s["is_terminal"] else
             f", player {s['current_player']} to act"))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from gamester.sim.simulate import run_simulation

    return run_simulation(args.game, _options(args.option), args.agents, args.games, args.seed,
                          args.workers, args.out, progress_bar=not args.quiet, backend=args.backend,
                          ray_address=args.ray_address)


def cmd_tournament(args: argparse.Namespace) -> int:
    try:
        from gamester.sim.tournament import run_cli
    except ImportError as e:
        print(f"gamester tournament: not available in this installation ({e})", file=sys.stderr)
        return 2
    return int(run_cli(args))


def cmd_analyse(args: argparse.Namespace) -> int:
    from gamester.sim.analyse_cli import run_analyse_cli

    return int(run_analyse_cli(args))


def cmd_rules(args: argparse.Namespace) -> int:
    from gamester.play.rules_text import rules_text

    print(rules_text(args.game))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from gamester.core.registry import load_game
    from gamester.sim import bench

    game = load_game(args.game, **_options(args.option))
    if args.agent:
        search_speed = getattr(bench, "search_speed", None)
        if search_speed is None:
            print("gamester bench: search benchmarks are not available yet", file=sys.stderr)
            return 2
        res = search_speed(game, args.agent, args.seconds)
        for k, v in res.items():
            print(f"{k}: {v:,.1f}" if isinstance(v, float) else f"{k}: {v}")
        return 0
    if args.compare:
        try:
            totals = bench.compare_with_openspiel(game, rounds=max(1, int(args.seconds / 0.5)))
        except ImportError:
            print("gamester bench: --compare needs OpenSpiel: pip install 'gamester[bench]'",
                  file=sys.stderr)
            return 2
        print(bench.format_comparison(totals))
        return 0
    t = bench.random_playouts(game, args.seconds)
    print(f"{game.spec()}: random playouts through the public API for {t.seconds:.1f} s")
    print(f"  player actions per second: {t.actions_per_second:,.0f}")
    print(f"  games per second:          {t.games_per_second:,.1f}")
    print(f"  mean actions per game:     {t.actions / max(1, t.games):.1f}")
    return 0


COMMANDS = {
    "play": cmd_play,
    "replay": cmd_replay,
    "simulate": cmd_simulate,
    "tournament": cmd_tournament,
    "analyse": cmd_analyse,
    "rules": cmd_rules,
    "bench": cmd_bench,
}
