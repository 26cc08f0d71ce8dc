"""The ``gamester`` command line (README.md, The command line). Stable: tests and scripts rely on it.

Imports are done inside each command, so ``gamester --help`` starts fast and loads no heavy library.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from gamester.core.columns import WIDTH, fit, say_error


class UsageError(Exception):
    """Bad input on the command line: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse with the documented failure path (README.md, The command line): one line naming what was
    wrong, exit status 2."""

    def error(self, message: str) -> NoReturn:
        say_error(f"{self.prog}: {message} (see {self.prog} --help)")
        self.exit(2)


def _options(pairs: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in pairs or []:
        if "=" not in p:
            raise UsageError(f"--option {p!r} must be KEY=VALUE, e.g. --option target=41")
        k, _, v = p.partition("=")
        out[k.strip()] = v.strip()
    return out


def _whole_number(text: str, least: int, bound: str) -> int:
    """A whole number of at least ``least``; ``bound`` words the limit in the error message."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if n < least:
        raise argparse.ArgumentTypeError(f"must be {bound}, not {text}")
    return n


def _seed(text: str) -> int:
    """``--seed``: a whole number, 0 or more (agents' seeds are derived from it)."""
    return _whole_number(text, 0, "0 or more")


def _count(text: str) -> int:
    """``--games``: a whole number, 1 or more."""
    return _whole_number(text, 1, "at least 1")


def _seat(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a player number, not {text!r}") from None


def _add_game_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument(
        "--option",
        "-o",
        action="append",
        metavar="K=V",
        help="a game option (repeatable), e.g. --option target=41 or --option ruleset=cotton",
    )


def _add_backend_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local worker processes (default) or Ray (pip install 'gamester[ray]')",
    )
    sp.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="with --backend ray: join this running cluster (default: start a local Ray)",
    )


SERVE_HELP = "run the web server: play in the browser, tables, bots (docs/web.md)"
DB_HELP = "the web server's database: export, import, upgrade (docs/deploy.md)"


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(
        prog="gamester",
        description="Penneech, Piquesept and Pentyrch: play, replay, simulate and study three "
        "forgotten games.",
    )
    ap.add_argument("--version", action="store_true", help="print the version and exit")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    sp = sub.add_parser("play", help="play a game in the terminal against computer players")
    sp.add_argument("game")
    sp.add_argument(
        "--vs",
        action="append",
        metavar="AGENT",
        help="opponent agent spec (once for all, or once per other player in order)",
    )
    sp.add_argument(
        "--seat",
        type=_seat,
        default=None,
        help="your player number (default 0, or the one saved in a --resume record)",
    )
    sp.add_argument("--seed", type=_seed, default=None, help="fix the deals (0 or more)")
    sp.add_argument("--players", type=int, default=None, help="shorthand for --option players=N")
    sp.add_argument(
        "--hint",
        action="store_true",
        help="before each of your moves, show what the strongest agent would play and "
        "its estimated chance of winning",
    )
    sp.add_argument(
        "--save",
        metavar="FILE",
        help="save the game's record to FILE when it ends (or when you leave early, so it can be resumed)",
    )
    sp.add_argument(
        "--resume", metavar="RECORD.json", help="continue a saved, unfinished game from your seat"
    )
    sp.add_argument(
        "--tutorial",
        nargs="?",
        const=1,
        type=int,
        metavar="N",
        help="learn the game: a fixed deal whose lesson explains each rule as it first matters "
        "(N: the game's second lesson, and so on)",
    )
    _add_game_options(sp)

    sp = sub.add_parser("replay", help="replay a record or a position; print a summary or a walk-through")
    sp.add_argument(
        "record",
        nargs="?",
        help="a record (JSON), a .jsonl file of records, a .pos file (a position), or - for standard input",
    )
    sp.add_argument(
        "--position", metavar="TEXT", help="a position in the game's notation (docs/positions.md)"
    )
    sp.add_argument(
        "--index",
        type=int,
        default=None,
        metavar="I",
        help="which record of a .jsonl file (from 0; default 0)",
    )
    sp.add_argument("--json", action="store_true", help="print one JSON summary object")
    sp.add_argument("--seat", type=_seat, default=None, help="show what this player saw")

    sp = sub.add_parser("simulate", help="play many games between agents; write the records")
    sp.add_argument("game")
    sp.add_argument("--agents", required=True, help="one agent spec per player, comma-separated")
    sp.add_argument("--games", type=_count, default=100)
    sp.add_argument("--seed", type=_seed, default=0)
    sp.add_argument("--workers", type=int, default=1)
    sp.add_argument("--out", metavar="FILE.jsonl", help="write one complete record per line")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_backend_options(sp)
    _add_game_options(sp)

    sp = sub.add_parser("tournament", help="every agent in every seat on duplicate deals")
    sp.add_argument("game")
    sp.add_argument("--agents", required=True, help="agent specs, comma-separated")
    sp.add_argument("--games", type=_count, default=100, help="number of deals (each under every seating)")
    sp.add_argument("--seed", type=_seed, default=0)
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

    sp = sub.add_parser("review", help="one player's decisions judged by the best agent, from its view")
    from gamester.sim.review_cli import add_review_arguments

    add_review_arguments(sp)

    sp = sub.add_parser("explore", help="which reading of the rules makes the better game (docs/explore.md)")
    from gamester.sim.explore_cli import add_explore_arguments

    add_explore_arguments(sp)
    _add_backend_options(sp)
    _add_game_options(sp)

    sp = sub.add_parser("train", help="train the learned agent from self-play (docs/learning.md)")
    from gamester.learn.cli import add_train_arguments

    add_train_arguments(sp)
    _add_backend_options(sp)
    _add_game_options(sp)

    sp = sub.add_parser("rules", help="the rules of a game, its options and rule sets")
    sp.add_argument("game")

    from gamester.play.server_cli import add_db_arguments, add_serve_arguments

    add_serve_arguments(sub.add_parser("serve", help=SERVE_HELP))
    add_db_arguments(sub.add_parser("db", help=DB_HELP))

    sp = sub.add_parser("admin", help="moderation on the server's machine: reports, bans, chat (docs/web.md)")
    from gamester.web.admin import add_arguments as add_admin_arguments

    add_admin_arguments(sp)

    sp = sub.add_parser("bench", help="playouts (or search iterations) per second")
    sp.add_argument("game")
    sp.add_argument("--seconds", type=float, default=3.0)
    sp.add_argument("--agent", help="measure this agent's search speed instead (e.g. ismcts)")
    sp.add_argument(
        "--compare",
        action="store_true",
        help="interleave with the game's OpenSpiel peer and print the ratio "
        "(needs the bench extra: pip install 'gamester[bench]')",
    )
    sp.add_argument("--peer", help="with --compare: the OpenSpiel game to compare with (e.g. 'euchre')")
    _add_game_options(sp)
    return ap


def _on_interrupt(signum: int, frame: Any) -> None:
    """Ctrl-C: the terminal sends it to every process of the job. Worker processes forked by
    ``simulate``/``tournament``/``analyse`` inherit this handler and let it pass (their pool ends
    them when the main process leaves), so no worker prints a traceback; the main process raises
    KeyboardInterrupt and leaves with exit status 130."""
    if os.getpid() != _MAIN_PID:
        return
    raise KeyboardInterrupt


_MAIN_PID = os.getpid()


def main(argv: Sequence[str] | None = None) -> int:
    global _MAIN_PID
    _MAIN_PID = os.getpid()
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_interrupt)
    try:
        return _main(argv)
    except KeyboardInterrupt:  # README.md, The command line: Ctrl-C anywhere leaves quietly
        _quiet_exit()
        return 130


def _quiet_exit() -> None:
    """After Ctrl-C: end the line the person was on, and keep a later flush from complaining."""
    try:
        print(file=sys.stderr, flush=True)
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def _letters_if_needed() -> None:
    """A console that cannot print the suit symbols gets letters (``7S``) instead of a crash."""
    from gamester.play.words import LetterStream, can_print_symbols

    if not isinstance(sys.stdout, LetterStream) and not can_print_symbols(sys.stdout):
        sys.stdout = LetterStream(sys.stdout)
    if not isinstance(sys.stderr, LetterStream) and not can_print_symbols(sys.stderr):
        sys.stderr = LetterStream(sys.stderr)


def _main(argv: Sequence[str] | None) -> int:
    _letters_if_needed()
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
    except (GameError, UsageError) as e:
        say_error(f"gamester {args.command}: {e}")
        return 2
    except BrokenPipeError:
        return 0


def cmd_play(args: argparse.Namespace) -> int:
    from gamester.agents.base import Agent, agent_seed, make_agent
    from gamester.core.record import replay
    from gamester.core.registry import game_class, load_game
    from gamester.play.terminal import TerminalGame

    if args.tutorial is not None:
        return _play_tutorial(args)
    opts = _options(args.option)
    if args.players is not None:
        opts["players"] = str(args.players)
    if args.save:
        _check_output_file(args.save, "--save")
    saved: dict[str, Any] = {}
    if args.resume:
        if opts or args.seed is not None:
            raise UsageError(
                "--resume takes the options and the seed from the record: leave out "
                "--option, --players and --seed"
            )
        record = _read_record(args.resume)
        state = replay(record)
        game = state.game
        if game_class(args.game).name != game.name:
            raise UsageError(f"{args.resume} is a game of {game.name}, not {args.game}")
        if state.is_terminal():
            raise UsageError(
                f"{args.resume}: that game is over, nothing to resume "
                f"(gamester replay {args.resume} shows it)"
            )
        play = record.get("play")
        saved = play if isinstance(play, dict) else {}
    else:
        game = load_game(args.game, **opts)
        state = game.new_initial_state(seed=args.seed)
    n = game.num_players
    seat = args.seat
    if seat is None and args.resume:
        seat = saved.get("seat") if isinstance(saved.get("seat"), int) else None
        if seat is None:
            seat = _ask_seat(args.resume, n)
    if seat is None:
        seat = 0
    if not 0 <= seat < n:
        raise UsageError(f"--seat must be 0 to {n - 1} in this game, not {seat}")
    others = [p for p in range(n) if p != seat]
    specs: list[str] = args.vs or []
    if not specs and isinstance(saved.get("opponents"), list) and len(saved["opponents"]) == n:
        specs = [str(saved["opponents"][p]) for p in others if saved["opponents"][p]]
    specs = specs or [default_opponent(game.name)]
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        raise UsageError(
            "give --vs once"
            + (
                f", or once for each of the {len(others)} other players"
                if len(others) > 1
                else " (there is one other player)"
            )
        )
    base = state.seed if args.resume else args.seed
    agents: list[Agent | None] = [None] * n
    per_player: list[str | None] = [None] * n
    for p, spec in zip(others, specs, strict=True):
        agents[p] = make_agent(spec, game=game, seed=None if base is None else agent_seed(base, p))
        per_player[p] = spec

    def hint_factory() -> Agent:
        return make_agent(default_opponent(game.name), game=game)

    hint = hint_factory() if args.hint else None
    tg = TerminalGame(
        state,
        seat,
        agents,
        hint_agent=hint,
        hint_factory=hint_factory,
        specs=per_player,
        resumed=bool(args.resume),
    )
    play_info = {"seat": seat, "opponents": per_player}
    try:
        tg.run()
    except KeyboardInterrupt:
        if args.save:  # leaving with Ctrl-C still keeps the record asked for
            _save_record(args.save, state, play_info, quiet_errors=True)
        raise
    if args.save:
        if _save_record(args.save, state, play_info):
            return 0
        if not sys.stdin.isatty():
            return 2
    elif tg.status == "eof" or not sys.stdin.isatty():
        return 0
    _save_prompt(state, play_info, tg.status == "over")
    return 0


def _play_tutorial(args: argparse.Namespace) -> int:
    """``gamester play GAME --tutorial``: the lesson's deal, seat and computer players are fixed."""
    from gamester.agents.base import Agent, View
    from gamester.core.errors import GameError
    from gamester.core.lesson import lessons
    from gamester.core.registry import game_class
    from gamester.play.terminal import TerminalGame

    class LinePlayer(Agent):
        """A computer player of a lesson: the terminal asks the lesson for its moves (its line)."""

        name = "playing the lesson's line"

        def step(self, view: View) -> int:
            raise GameError("a lesson's computer player makes the lesson's moves, not its own")

    fixed = [
        flag
        for flag, given in (
            ("--seat", args.seat is not None),
            ("--seed", args.seed is not None),
            ("--players", args.players is not None),
            ("--option", bool(args.option)),
            ("--vs", bool(args.vs)),
            ("--resume", bool(args.resume)),
        )
        if given
    ]
    if fixed:
        raise UsageError("--tutorial sets the deal, seats and opponents: drop " + ", ".join(fixed))
    game = game_class(args.game).name
    mine = [x for x in lessons() if x.game == game]
    if not mine:
        raise UsageError(f"{game} has no lesson")
    if not 1 <= args.tutorial <= len(mine):
        raise UsageError(f"--tutorial {args.tutorial}: {game} has lessons 1 to {len(mine)}")
    lesson = mine[args.tutorial - 1]
    state = lesson.new_state()
    n = state.game.num_players
    agents: list[Agent | None] = [None if p == lesson.seat else LinePlayer() for p in range(n)]
    specs: list[str | None] = [None] * n
    if args.save:
        _check_output_file(args.save, "--save")
    tg = TerminalGame(state, lesson.seat, agents, specs=specs, tutorial=lesson)
    play_info = {"seat": lesson.seat, "opponents": specs}
    try:
        tg.run()
    except KeyboardInterrupt:
        if args.save:
            _save_record(args.save, state, play_info, quiet_errors=True)
        raise
    if args.save:
        return 0 if _save_record(args.save, state, play_info) else 2
    return 0


def _ask_seat(path: str, n: int) -> int:
    """Which player the person was, for a record that does not say (one saved by another tool)."""
    if not sys.stdin.isatty():
        raise UsageError(f"{path} does not say which player was yours: give --seat N (0 to {n - 1})")
    while True:
        try:
            raw = input(f"Which player were you in this game? (0 to {n - 1}): ").strip()
        except EOFError:
            raise UsageError("no player chosen: give --seat N") from None
        if raw.isdigit() and 0 <= int(raw) < n:
            return int(raw)
        print(f"Please type a number from 0 to {n - 1}.")


def _save_prompt(state: Any, play_info: dict[str, Any], over: bool) -> None:
    """Ask for a file name until the record is saved or the person declines; a bad path asks
    again, so the record is never lost to a typing mistake."""
    question = (
        "Save the record? File name (empty to skip): "
        if over
        else "Save the game to resume it later? File name (empty to skip): "
    )
    while True:
        try:
            path = input(question).strip()
        except EOFError:
            return
        if not path:
            return
        try:
            _check_output_file(path, "file")
        except UsageError as e:
            print(f"Cannot save there: {e}. Try another name.")
            continue
        if _save_record(path, state, play_info):
            return
        print("Try another name.")


def _save_record(path: str, state: Any, play_info: dict[str, Any], quiet_errors: bool = False) -> bool:
    """Write the record (with who played where, for --resume); False, with one line, on failure."""
    record = state.record()
    record["play"] = play_info
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
            f.write("\n")
    except OSError as e:
        if not quiet_errors:
            say_error(f"gamester play: cannot write {path}: {e.strerror}")
        return False
    if not state.is_terminal():
        line = f"Game saved to {path}; continue it with: gamester play {state.game.name} --resume {path}"
        # Too wide for the terminal: the command on a line of its own, whole, to be copied.
        print(line if len(line) <= WIDTH else line.replace(" with: ", " with:\n  ", 1))
    else:
        print(f"Record saved to {path}.")
    return True


def _check_output_file(path: str, what: str) -> None:
    """A file we are about to write: its folder must exist and it must not be a folder."""
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"{what} {path} is a folder, not a file name")
    if not os.path.isdir(folder):
        raise UsageError(f"{what} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"{what} {path}: the folder {folder} is not writable")


def _check_output_dir(path: str, what: str) -> None:
    """A folder we are about to write into (created if missing): not a file; its parent exists."""
    import os

    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"{what} {path} is a file, not a folder")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(path) and not os.path.isdir(parent):
        raise UsageError(f"{what} {path}: the folder {parent} does not exist")


def default_opponent(game_name: str) -> str:
    """The strongest agent available for a game, at about a second a move."""
    from gamester.agents import best_agent_spec

    return best_agent_spec(game_name)


def _position_record(text: object) -> dict[str, Any]:
    """The record that starts at a position and holds nothing after it (docs/positions.md)."""
    from gamester.core.record import read_position

    return read_position(text).record()


def _read_source(args: argparse.Namespace) -> Any:
    """What ``replay`` and ``review`` read: a record file, or a position (``--position TEXT`` or a
    ``.pos`` file holding one line of notation) as the record that starts there."""
    if (args.record is None) == (args.position is None):
        raise UsageError("give a record file or --position TEXT (one of them)")
    if args.position is not None:
        return _position_record(args.position)
    if args.record.endswith(".pos"):
        return _position_record(_read_text(args.record))
    return _read_record(args.record, getattr(args, "index", None))


def _read_text(path: str) -> str:
    """A small text file's content (a position), or a one-line error naming it."""
    from gamester.core.errors import PositionError

    try:
        with open(path, "rb") as f:
            data = f.read(40_000)
        return data.decode("utf-8-sig").strip()
    except OSError as e:
        raise PositionError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise PositionError(f"{path} is not UTF-8 text") from None


def _read_record(path: str, index: int | None = None) -> Any:
    """One record from a file: a JSON record, or line ``index`` (from 0) of a ``.jsonl`` file."""
    import os

    from gamester.core.errors import RecordError
    from gamester.core.record import load_record_lines, load_record_text

    try:
        if path == "-":
            data: bytes = sys.stdin.buffer.read()
        else:
            if os.path.isdir(path):
                raise RecordError(f"{path} is a folder: give a record file (.json or .jsonl)")
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror}") from None
    if path.endswith(".jsonl") or index is not None:
        try:
            records = load_record_lines(data)
        except RecordError as e:
            try:  # one record written over several lines (play --save, indented) counts as one
                records = [load_record_text(data, path)]
            except RecordError:
                raise RecordError(f"{path}: {e}") from None
        i = 0 if index is None else index
        if not records:
            raise RecordError(f"{path} holds no record")
        if not 0 <= i < len(records):
            raise RecordError(
                f"--index {i}: {path} holds {len(records)} record(s), numbered 0 to {len(records) - 1}"
            )
        return records[i]
    try:
        return load_record_text(data, path)
    except RecordError as e:
        msg = str(e)
        raise RecordError(msg if path in msg else f"{path}: {msg}") from None


def cmd_replay(args: argparse.Namespace) -> int:
    from gamester.core.record import replay, summary
    from gamester.core.words import Names, and_list, cards, pretty
    from gamester.play.terminal import renderer

    record = _read_source(args)
    state = replay(record)
    n = state.game.num_players
    seat = args.seat
    if seat is not None and not 0 <= seat < n:
        raise UsageError(f"--seat must be 0 to {n - 1} for this record, not {seat}")
    if args.json:
        out = summary(state, seat)
        if seat is not None:
            out["observation"] = state.observation(seat)
        print(json.dumps(out))
        return 0
    # A walk-through: every action and what it caused, from one seat's view or from above (the
    # full record: every hand). Built from the record's chance and actions, like replay() itself.
    render = renderer(state.game.name)
    walk = replay({**record, "actions": []})
    base = Names(seat, tuple(f"player {p}" for p in range(n)))
    names = base

    def rename() -> None:  # Pentyrch names players by their seats, which change in a match
        nonlocal names
        if render is not None and hasattr(render, "names_for"):
            names = render.names_for(walk.public_observation(), base)

    def events() -> None:
        evs = walk.last_events_seen_by(seat)
        if render is None:
            lines = [json.dumps(ev) for ev in evs]
        elif hasattr(render, "narrate_all"):
            lines = render.narrate_all(evs, -1 if seat is None else seat, names)
        else:
            lines = [x for x in (render.narrate(ev, -1 if seat is None else seat, names) for ev in evs) if x]
        for line in lines:
            print(fit("  " + line))

    def board() -> None:
        if render is None:
            return
        obs = walk.observation(seat) if seat is not None else walk.public_observation()
        print(render.board(obs, names, **(render.context(walk.game) if hasattr(render, "context") else {})))

    def hands() -> str:
        if seat is not None:
            return f"your hand: {cards(walk.observation(seat).get('hand', []), '(empty)')}"
        return "hands: " + "; ".join(
            f"{names(p)} {cards(walk.observation(p).get('hand', []), '(empty)')}" for p in range(n)
        )

    pentyrch_board = bool(getattr(render, "NARRATES_MOVES", False))
    rename()
    if pentyrch_board:
        board()
    events()
    last_round = None
    for text in record.get("actions", []):
        p = walk.current_player()
        print(fit(f"  ({hands()})"))
        action = walk.string_to_action(text)
        shown = walk.action_seen_by(action, seat)
        walk.apply_action(action)
        print(fit(f"{names(p, cap=True)}: {pretty(shown)}"))
        rename()
        events()
        obs = walk.public_observation()
        if pentyrch_board and seat is None and obs.get("round") != last_round:
            last_round = obs.get("round")
            board()
    if seat is not None or pentyrch_board:
        board()
    s = summary(walk, seat)
    scores = ", ".join(f"{names(q)} {v}" for q, v in enumerate(s["scores"]))
    if s["is_terminal"]:
        won = s["winners"]
        result = (
            "a draw"
            if not won
            else and_list([names(q) for q in won]) + (" win" if won == [seat] or len(won) > 1 else " wins")
        )
        print(fit(f"Game over: {result[0].upper() + result[1:]}. Scores: {scores}."))
    else:
        print(
            fit(
                f"Position after {len(record.get('actions', []))} actions: scores {scores}; "
                f"{names(s['current_player'])} to act."
            )
        )
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from gamester.sim.simulate import run_simulation

    if args.out:
        _check_output_file(args.out, "--out")
    return run_simulation(
        args.game,
        _options(args.option),
        args.agents,
        args.games,
        args.seed,
        args.workers,
        args.out,
        progress_bar=not args.quiet,
        backend=args.backend,
        ray_address=args.ray_address,
    )


def cmd_tournament(args: argparse.Namespace) -> int:
    if args.out:
        _check_output_dir(args.out, "--out")
    try:
        from gamester.sim.tournament import run_cli
    except ImportError as e:
        say_error(f"gamester tournament: not available in this installation ({e})")
        return 2
    return int(run_cli(args))


def cmd_analyse(args: argparse.Namespace) -> int:
    from gamester.sim.analyse_cli import run_analyse_cli

    return int(run_analyse_cli(args))


def cmd_review(args: argparse.Namespace) -> int:
    from gamester.sim.review_cli import run_review_cli

    return run_review_cli(args, _read_source(args))


def cmd_explore(args: argparse.Namespace) -> int:
    from gamester.sim.explore_cli import run_explore_cli

    return int(run_explore_cli(args))


def cmd_train(args: argparse.Namespace) -> int:
    from gamester.learn.cli import run_train_cli

    return run_train_cli(args, _options(args.option))


def cmd_rules(args: argparse.Namespace) -> int:
    from gamester.play.rules_text import for_terminal, rules_text

    print(for_terminal(rules_text(args.game)))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from gamester.core.registry import load_game
    from gamester.sim import bench

    game = load_game(args.game, **_options(args.option))
    if args.agent:
        search_speed = getattr(bench, "search_speed", None)
        if search_speed is None:
            say_error("gamester bench: search benchmarks are not available yet")
            return 2
        res = search_speed(game, args.agent, args.seconds)
        for k, v in res.items():
            print(f"{k}: {v:,.1f}" if isinstance(v, float) else f"{k}: {v}")
        return 0
    if args.compare:
        try:
            totals = bench.compare_with_openspiel(game, args.peer, rounds=max(1, int(args.seconds / 0.5)))
        except ImportError:
            say_error("gamester bench: --compare needs OpenSpiel: pip install 'gamester[bench]'")
            return 2
        print(bench.format_comparison(totals))
        return 0
    t = bench.random_playouts(game, args.seconds)
    print(fit(f"{game.spec()}: random playouts through the public API for {t.seconds:.1f} s"))
    print(f"  player actions per second: {t.actions_per_second:,.0f}")
    print(f"  games per second:          {t.games_per_second:,.1f}")
    print(f"  mean actions per game:     {t.actions / max(1, t.games):.1f}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from gamester.play.server_cli import run_serve

    return run_serve(args)


def cmd_db(args: argparse.Namespace) -> int:
    from gamester.play.server_cli import run_db

    return run_db(args)


def cmd_admin(args: argparse.Namespace) -> int:
    try:
        from gamester.web.admin import run
    except ImportError as e:  # the web extra is missing
        say_error(f"gamester admin: needs the web extra ({e.name} is missing): pip install 'gamester[web]'")
        return 2
    return run(args)


COMMANDS = {
    "play": cmd_play,
    "replay": cmd_replay,
    "simulate": cmd_simulate,
    "tournament": cmd_tournament,
    "analyse": cmd_analyse,
    "review": cmd_review,
    "explore": cmd_explore,
    "train": cmd_train,
    "rules": cmd_rules,
    "serve": cmd_serve,
    "admin": cmd_admin,
    "bench": cmd_bench,
    "db": cmd_db,
}
