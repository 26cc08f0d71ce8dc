"""Two builds of gamester measured against each other, and each against OpenSpiel, in one run.

    python benchmarks/before_after.py --before /work/before/src --after /work/main/src [--quick]
    python benchmarks/before_after.py --before src --before-env GAMESTER_PURE=1 --after src
    python benchmarks/before_after.py --before src --after-python /path/to/venv/bin/python --json out.json

Each side is one long-lived worker process (this file with ``--worker``): its own interpreter
(``--X-python``, default this one), ``PYTHONPATH`` set to its tree (``--before``/``--after``; leave
it out to measure what that interpreter has installed) and its extra variables (``--X-env K=V``).
The parent imports no gamester at all. For every figure both workers get exactly the same work (the
same seeds, the same positions, the same number of games or decisions), and they take turns in
short slices, round after round (A B, then B A, ...), so that the load of a shared machine falls on
both alike. The OpenSpiel peer of a figure runs in the same worker right after its gamester slice,
so each side also gets its own ratio against OpenSpiel.

Figures (docs/benchmarks.md says more):
  * player actions per second, random complete games through the public API (the loop of
    ``gamester.sim.bench``), against OpenSpiel's ``oh_hell`` / ``euchre`` / ``maedn`` from Python;
  * ``ismcts`` iterations per second on fixed positions, ``rollout=model`` and ``rollout=random``;
    Penneech also against OpenSpiel's Python ``ISMCTSBot`` (random rollouts) on ``oh_hell``;
  * the best agent's (``BEST_AGENTS``) time per decision on fixed positions, same spec both sides;
  * ``simulate`` with ``heuristic`` in every seat: complete games per second (records included).

It prints a markdown table; ``--json FILE`` writes every count and time. Nothing here is asserted
anywhere: the figures are for people to read, and only ratios measured side by side mean anything.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import os
import random
import select
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

# Our game specs next to their OpenSpiel peers (the pairs of gamester.sim.bench.OPENSPIEL_PEERS).
SEARCH_SPECS = {"penneech": "penneech(objective=deal)", "piquesept": "piquesept", "pentyrch": "pentyrch"}
PEERS = {
    "penneech": "oh_hell(players=3,num_tricks_fixed=7)",
    "piquesept": "euchre",
    "pentyrch": "maedn",
}
# ismcts iterations per decision: enough for a real tree, few enough that Pentyrch stays short.
ISMCTS_ITERATIONS = {"penneech": 200, "piquesept": 100, "pentyrch": 20}
# Used only when neither tree has gamester.agents.BEST_AGENTS and no --best is given.
FALLBACK_BEST = {
    "penneech": "futures:worlds=300",
    "piquesept": "rollout:worlds=30",
    "pentyrch": "lookahead:worlds=8",
}
GAMES = ("penneech", "piquesept", "pentyrch")
SEARCH_POSITIONS = 4
BEST_POSITIONS = 3
POSITION_SEED = 20261201


# ---------------------------------------------------------------------------------------------
# The worker: runs inside each side's interpreter, imports that side's gamester.
# ---------------------------------------------------------------------------------------------


def _positions_of(game: Any, count: int, seed: int) -> list[Any]:
    """``count`` positions with a real choice, from random games of ``game`` chosen by ``seed``
    (the same on any tree whose rules and action order are the same)."""
    rng = random.Random(seed)
    out: list[Any] = []
    g = 0
    while len(out) < count and g < 1000:
        s = game.new_initial_state(seed=seed + g)
        g += 1
        while not s.is_terminal() and len(out) < count:
            legal = s.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                out.append(s.clone())
            s.apply_action(legal[rng.randrange(len(legal))])
    return out


def _peer_positions(game: Any, count: int, seed: int) -> list[Any]:
    """The same for a pyspiel game (chance nodes sampled from ``chance_outcomes()``)."""
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < count:
        s = game.new_initial_state()
        while not s.is_terminal() and len(out) < count:
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            legal = s.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                out.append(s.clone())
            s.apply_action(legal[rng.randrange(len(legal))])
    return out


def _fingerprint(positions: list[Any]) -> str:
    """A short hash of the positions' histories and legal moves, to check both trees search the same."""
    h = hashlib.sha256()
    for p in positions:
        h.update(json.dumps(p.record().get("actions", []), default=str).encode())
        h.update(json.dumps([p.action_to_string(a) for a in p.legal_actions()]).encode())
    return h.hexdigest()[:12]


class Worker:
    """What one side measures; every ``run`` does a given amount of work and times it."""

    def __init__(self) -> None:
        self.cache: dict[str, Any] = {}
        self.clock: Callable[[], float] = time.process_time

    def hello(self, req: dict[str, Any]) -> dict[str, Any]:
        self.clock = time.perf_counter if req.get("clock") == "wall" else time.process_time
        gamester = importlib.import_module("gamester")
        agents = importlib.import_module("gamester.agents")
        best = getattr(agents, "BEST_AGENTS", None)
        if not isinstance(best, dict) and callable(getattr(agents, "best_agent_spec", None)):
            best = {}  # newer trees: the game's kit recommends its agent
            for name in GAMES:
                try:
                    best[name] = str(agents.best_agent_spec(gamester.load_game(name)))
                except Exception:
                    best[name] = str(agents.best_agent_spec(name))
        try:
            import pyspiel  # type: ignore[import-not-found, unused-ignore]

            peer = f"open_spiel {getattr(pyspiel, '__version__', '?')}"
        except ImportError as e:
            peer = f"no OpenSpiel ({e})"
        where = os.path.dirname(os.path.abspath(str(gamester.__file__)))
        compiled = sum(  # extension modules inside the package: a compiled build has some
            f.endswith((".so", ".pyd")) for _, _, files in os.walk(where) for f in files
        )
        return {
            "gamester": where,
            "compiled_modules": compiled,
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "best_agents": dict(best) if isinstance(best, dict) else None,
            "peer": peer,
        }

    # -- setting a figure up (untimed), then one warm-up unit of each part, timed for calibration

    def prepare(self, req: dict[str, Any]) -> dict[str, Any]:
        gamester = importlib.import_module("gamester")

        kind, name = req["kind"], req["game"]
        fig: dict[str, Any] = {"kind": kind, "game": gamester.load_game(req["spec"]), "fingerprint": None}
        if kind in ("ismcts", "best"):
            count = SEARCH_POSITIONS if kind == "ismcts" else BEST_POSITIONS
            fig["positions"] = _positions_of(fig["game"], count, POSITION_SEED)
            fig["fingerprint"] = _fingerprint(fig["positions"])
            fig["agent"] = req["agent"]
            fig["agent_iterations"] = req["iterations"]
        if kind == "simulate":
            fig["agent"] = req["agent"]
        if req.get("peer"):
            import pyspiel

            fig["peer"] = pyspiel.load_game(PEERS[name])
            if kind == "ismcts":
                fig["peer_positions"] = _peer_positions(fig["peer"], SEARCH_POSITIONS, POSITION_SEED)
                fig["peer_iterations"] = req["peer_iterations"]
        self.cache[req["key"]] = fig
        return {
            "unit_seconds": self._calibrate(lambda n: self._ours(fig, n, 0)),
            "peer_unit_seconds": self._calibrate(lambda n: self._peer(fig, n, 0)) if "peer" in fig else None,
            "fingerprint": fig["fingerprint"],
        }

    @staticmethod
    def _calibrate(work: Callable[[int], dict[str, float]]) -> float:
        """Seconds per unit of work, after a warm-up unit, from runs doubled until 0.1 s or more."""
        work(1)
        n = 1
        while True:
            t = work(n)["seconds"]
            if t >= 0.1 or n >= 4096:
                return t / n
            n *= 2

    def run(self, req: dict[str, Any]) -> dict[str, Any]:
        fig = self.cache[req["key"]]
        ours = self._ours(fig, req["units"], req["start"])
        peer = self._peer(fig, req["peer_units"], req["start"]) if "peer" in fig else None
        return {"ours": ours, "peer": peer}

    # -- the gamester side of a figure

    def _ours(self, fig: dict[str, Any], units: int, start: int) -> dict[str, float]:
        agents_mod = importlib.import_module("gamester.agents")
        View, make_agent = agents_mod.View, agents_mod.make_agent
        # The side's own agent seeds (agent_seed, docs/randomness.md), or on a tree from before it
        # the formula its `simulate` used then, so each side plays what its `simulate` plays.
        agent_seed = getattr(agents_mod, "agent_seed", None) or (lambda seed, p: seed * 16 + p)

        game = fig["game"]
        clock = self.clock
        kind = fig["kind"]
        count = 0
        elapsed = 0.0
        if kind == "actions":  # the loop of gamester.sim.bench.random_playouts, a fixed number of games
            rng = random.Random(start)
            randrange = rng.randrange
            new = game.new_initial_state
            t0 = clock()
            for i in range(units):
                s = new(seed=start * 1000 + i)  # deal numbers, the same games on either side
                while not s.is_terminal():
                    la = s.legal_actions()
                    s.apply_action(la[randrange(len(la))])
                    count += 1
            elapsed = clock() - t0
        elif kind in ("ismcts", "best"):  # decisions at the fixed positions, agents built untimed
            positions = fig["positions"]
            for i in range(start, start + units):
                pos = positions[i % len(positions)]
                agent = make_agent(fig["agent"], game=game, seed=i)
                view = View(pos, pos.current_player())
                t0 = clock()
                agent.step(view)
                elapsed += clock() - t0
                if kind == "ismcts":
                    count += int(getattr(agent, "last_iterations", 0) or fig["agent_iterations"])
                else:
                    count += 1
        elif kind == "simulate":  # what `gamester simulate` does per game: agents, play, the record
            spec = fig["agent"]
            players = game.num_players() if callable(game.num_players) else game.num_players
            t0 = clock()
            for i in range(start, start + units):
                s = game.new_initial_state(seed=i)
                agents = [make_agent(spec, game=game, seed=agent_seed(i, p)) for p in range(players)]
                while not s.is_terminal():
                    p = s.current_player()
                    s.apply_action(agents[p].step(View(s, p)))
                s.record()
                count += 1
            elapsed = clock() - t0
        return {"count": count, "seconds": elapsed, "units": units}

    # -- the OpenSpiel side

    def _peer(self, fig: dict[str, Any], units: int, start: int) -> dict[str, float]:
        game = fig["peer"]
        clock = self.clock
        count = 0
        elapsed = 0.0
        if fig["kind"] == "actions":  # gamester.sim.bench.openspiel_playouts, a fixed number of games
            rng = random.Random(start)
            randrange = rng.randrange
            t0 = clock()
            for _ in range(units):
                s = game.new_initial_state()
                while not s.is_terminal():
                    if s.is_chance_node():
                        outcomes = s.chance_outcomes()
                        s.apply_action(outcomes[randrange(len(outcomes))][0])
                    else:
                        la = s.legal_actions()
                        s.apply_action(la[randrange(len(la))])
                        count += 1
            elapsed = clock() - t0
        else:  # OpenSpiel's Python ISMCTSBot, random rollouts, uct_c=2 (as openspiel-ismcts runs it)
            import numpy as np
            from open_spiel.python.algorithms import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
                ismcts,
                mcts,
            )

            positions = fig["peer_positions"]
            n = fig["peer_iterations"]
            for i in range(start, start + units):
                pos = positions[i % len(positions)]
                rs = np.random.RandomState(i)
                bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, n, random_state=rs)
                t0 = clock()
                bot.step(pos)
                elapsed += clock() - t0
                count += n
        return {"count": count, "seconds": elapsed, "units": units}


def worker_main() -> None:
    """Answer one JSON request per line on stdin; anything the code under test prints goes to stderr."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    proto: TextIO = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    w = Worker()
    for line in sys.stdin:
        req = json.loads(line)
        try:
            answer = getattr(w, req["op"])(req)
        except Exception as e:  # reported to the parent as one line; the figure is dropped for this side
            answer = {"error": f"{type(e).__name__}: {e}".splitlines()[0][:300]}
        proto.write(json.dumps(answer) + "\n")
        proto.flush()


# ---------------------------------------------------------------------------------------------
# The parent: starts both workers, takes turns, prints the table.
# ---------------------------------------------------------------------------------------------


class BenchError(Exception):
    pass


@dataclass
class Side:
    label: str
    tree: str | None
    python: str
    env: dict[str, str]
    proc: subprocess.Popen[str] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    setup: list[dict[str, Any]] = field(default_factory=list)  # hello and prepares, replayed on a restart

    def start(self) -> None:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env["PYTHONHASHSEED"] = "0"
        if self.tree:
            env["PYTHONPATH"] = self.tree
        env.update(self.env)
        self.proc = subprocess.Popen(
            [self.python, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd="/",  # so that neither side picks up a gamester from the current directory
        )

    def ask(self, req: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
            if self.setup:
                note(f"{self.label}: worker restarted; setting its figures up again")
                for old in list(self.setup):
                    if self.proc is None:
                        return {"error": f"the {self.label} worker cannot be set up again"}
                    self._send(old, timeout)
        if req["op"] in ("hello", "prepare"):
            self.setup.append(req)
        return self._send(req, timeout)

    def _send(self, req: dict[str, Any], timeout: float) -> dict[str, Any]:
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(req) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            return {"error": f"the {self.label} worker died"}
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        if not ready:
            proc.kill()
            proc.wait()
            self.proc = None
            return {"error": f"no answer within {timeout:.0f} s (worker stopped)"}
        line = proc.stdout.readline()
        if not line:
            self.proc = None
            return {"error": f"the {self.label} worker died (exit status {proc.wait()})"}
        answer: dict[str, Any] = json.loads(line)
        return answer

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class Figure:
    key: str
    label: str
    kind: str  # actions | ismcts | best | simulate
    game: str
    spec: str
    unit: str  # what the printed number is
    agent: str | None = None
    iterations: int | None = None
    peer_label: str | None = None
    lower_is_better: bool = False
    units: int = 1
    peer_units: int = 0
    fingerprints: dict[str, str | None] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    slices: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {"before": [], "after": []})

    def request(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "game": self.game,
            "spec": self.spec,
            "agent": self.agent,
            "iterations": self.iterations,
            "peer": self.peer_label is not None,
            "peer_iterations": self.iterations,
        }


def figures(best: dict[str, str], games: tuple[str, ...]) -> list[Figure]:
    out: list[Figure] = []
    for g in games:
        out.append(
            Figure(
                f"actions:{g}",
                f"{g}: player actions/s, random games (`{SEARCH_SPECS[g]}`)",
                "actions",
                g,
                SEARCH_SPECS[g],
                "actions/s",
                peer_label=f"OpenSpiel `{PEERS[g]}` random games",
            )
        )
    for g in games:
        for rollout in ("model", "random"):
            n = ISMCTS_ITERATIONS[g]
            out.append(
                Figure(
                    f"ismcts-{rollout}:{g}",
                    f"{g}: `ismcts` rollout={rollout} iterations/s ({n} a decision)",
                    "ismcts",
                    g,
                    SEARCH_SPECS[g],
                    "iterations/s",
                    agent=f"ismcts:iterations={n},rollout={rollout}",
                    iterations=n,
                    peer_label=f"OpenSpiel Python ISMCTSBot on `{PEERS[g]}`" if g == "penneech" else None,
                )
            )
    for g in games:
        out.append(
            Figure(
                f"best:{g}",
                f"{g}: best agent `{best[g]}` ms per decision (lower is better)",
                "best",
                g,
                g,
                "ms/decision",
                agent=best[g],
                lower_is_better=True,
            )
        )
    for g in games:
        out.append(
            Figure(
                f"simulate:{g}",
                f"{g}: simulate, `heuristic` in every seat, games/s",
                "simulate",
                g,
                g,
                "games/s",
            )
        )
        out[-1].agent = "heuristic"
    return out


def _rate(parts: list[dict[str, Any]], what: str, lower_is_better: bool) -> float | None:
    count = sum(p[what]["count"] for p in parts if p.get(what))
    seconds = sum(p[what]["seconds"] for p in parts if p.get(what))
    if not count or not seconds:
        return None
    return float(1000.0 * seconds / count if lower_is_better else count / seconds)


def summarize(fig: Figure) -> dict[str, Any]:
    """Each side's figure over all its slices, the ratios, and the spread of the per-round ratios."""
    res: dict[str, Any] = {"figure": fig.label, "unit": fig.unit, "errors": fig.errors}
    for side in ("before", "after"):
        res[side] = _rate(fig.slices[side], "ours", fig.lower_is_better)
        peer = _rate(fig.slices[side], "peer", False) if fig.peer_label else None
        res[f"{side}_peer"] = peer
        ours = res[side]
        res[f"{side}_vs_peer"] = (ours / peer) if ours and peer and not fig.lower_is_better else None
    b, a = res["before"], res["after"]
    res["totals_after_over_before"] = a / b if a and b else None
    res["round_ratios"] = _paired(fig, "ours", fig.lower_is_better)
    res["after_over_before"] = statistics.median(res["round_ratios"]) if res["round_ratios"] else None
    res["after_over_before_ci"] = median_interval(res["round_ratios"])
    if fig.peer_label:
        peer_rounds = _paired(fig, "peer", False)
        res["peer_round_ratios"] = peer_rounds
        res["peer_after_over_before"] = statistics.median(peer_rounds) if peer_rounds else None
    return res


def median_interval(xs: list[float]) -> tuple[float, float, float] | None:
    """A distribution-free interval for the median of ``xs`` and its coverage: the k-th smallest and
    k-th largest, with the largest k for which it misses the median with probability at most 5%
    (Binomial(n, 1/2) tails). With fewer than 6 values that is the whole range, covering less."""
    n = len(xs)
    if n < 2:
        return None

    def miss(k: int) -> float:  # P(the median lies outside [k-th smallest, k-th largest])
        return float(2 * sum(math.comb(n, i) for i in range(k)) / 2**n)

    k = 1
    while k + 1 <= n // 2 and miss(k + 1) <= 0.05:
        k += 1
    ordered = sorted(xs)
    return ordered[k - 1], ordered[n - k], 1.0 - miss(k)


def _paired(fig: Figure, what: str, lower_is_better: bool) -> list[float]:
    """after/before of each round's two slices (taken one right after the other)."""
    out = []
    for sb, sa in zip(fig.slices["before"], fig.slices["after"], strict=False):
        rb = _rate([sb], what, lower_is_better)
        ra = _rate([sa], what, lower_is_better)
        if rb and ra:
            out.append(ra / rb)
    return out


def _num(x: float | None, unit: str) -> str:
    if x is None:
        return "—"
    if unit == "ms/decision":
        return f"{x:,.1f} ms"
    return f"{x:,.0f}" if x >= 100 else f"{x:,.2f}"


def _ratio(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}×"


def table(results: list[dict[str, Any]], figs: list[Figure]) -> str:
    head = "| figure | before | after | after/before [95% interval] | before vs peer | after vs peer |"
    lines = [head, "|---|---:|---:|---:|---:|---:|"]
    for res, fig in zip(results, figs, strict=True):
        ratio = _ratio(res["after_over_before"])
        ci = res["after_over_before_ci"]
        if ci:
            cover = "" if ci[2] >= 0.95 else f", {ci[2]:.0%}"  # too few rounds for 95%
            ratio += f" [{ci[0]:.2f}–{ci[1]:.2f}{cover}]"
        if res["errors"]:
            ratio += " " + "; ".join(f"{side} failed: {msg}" for side, msg in res["errors"].items())
        lines.append(
            f"| {res['figure']} | {_num(res['before'], fig.unit)} | {_num(res['after'], fig.unit)} "
            f"| {ratio} | {_ratio(res['before_vs_peer'])} | {_ratio(res['after_vs_peer'])} |"
        )
    peers = [(r, f) for r, f in zip(results, figs, strict=True) if f.peer_label]
    if peers:
        lines += [
            "",
            "The peers as measured inside each side's process (their after/before is noise):",
            "",
        ]
        lines += ["| peer (for) | in before | in after | after/before |", "|---|---:|---:|---:|"]
        for res, fig in peers:
            unit = "iterations/s" if fig.kind == "ismcts" else "actions/s"
            lines.append(
                f"| {fig.peer_label} ({fig.key}), {unit} | {_num(res['before_peer'], unit)} | "
                f"{_num(res['after_peer'], unit)} | {_ratio(res.get('peer_after_over_before'))} |"
            )
    return "\n".join(lines)


def _env_pairs(items: list[str], flag: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise BenchError(f"{flag} {item!r}: expected KEY=VALUE")
        out[key] = value
    return out


def _side(label: str, tree: str | None, python: str | None, env: list[str]) -> Side:
    if tree is None and python is None:
        raise BenchError(f"the {label} side needs --{label} TREE or --{label}-python PYTHON (or both)")
    if tree is not None:
        tree = os.path.abspath(tree)
        if not os.path.isfile(os.path.join(tree, "gamester", "__init__.py")):
            raise BenchError(f"--{label} {tree}: no gamester/__init__.py there (give the src/ directory)")
    exe = python or sys.executable
    if not os.access(exe, os.X_OK):
        raise BenchError(f"--{label}-python {exe}: not an executable file")
    return Side(label, tree, exe, _env_pairs(env, f"--{label}-env"))


def note(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    if args.json:
        try:
            open(args.json, "a").close()  # a bad path fails now, not after ten minutes
        except OSError as e:
            raise BenchError(f"--json {args.json}: {e.strerror}") from None
    sides = {
        "before": _side("before", args.before, args.before_python, args.before_env),
        "after": _side("after", args.after, args.after_python, args.after_env),
    }
    rounds = args.rounds or (5 if args.quick else 12)
    limit = args.budget or (120.0 if args.quick else 600.0)
    rounds_done = 0
    slice_s = args.slice or (0.25 if args.quick else 0.5)
    timeout = max(120.0, 40 * slice_s)
    t_start = time.perf_counter()
    interrupted = False
    try:
        for side in sides.values():
            side.start()
        for name, side in sides.items():
            side.info = side.ask({"op": "hello", "clock": "wall" if args.wall else "cpu"}, timeout)
            if "error" in side.info:
                raise BenchError(f"the {name} side cannot start: {side.info['error']}")
            where = side.info["gamester"]
            if side.tree and not where.startswith(side.tree + os.sep):
                raise BenchError(f"the {name} side imports gamester from {where}, not from {side.tree}")
            env = " ".join(f"{k}={v}" for k, v in side.env.items())
            note(f"{name}: gamester from {where}, Python {side.info['python']} {env}; {side.info['peer']}")
        best = dict(FALLBACK_BEST)
        tree_best = sides["before"].info.get("best_agents") or sides["after"].info.get("best_agents")
        if tree_best:
            best.update({g: s for g, s in tree_best.items() if g in best})
        b_best, a_best = sides["before"].info.get("best_agents"), sides["after"].info.get("best_agents")
        if b_best and a_best and b_best != a_best:
            note(f"note: BEST_AGENTS differ between the trees; both sides run the before's {b_best}")
        best.update(_env_pairs(args.best, "--best"))
        games = tuple(g for g in GAMES if not args.games or g in args.games)
        figs = [f for f in figures(best, games) if not args.only or any(o in f.key for o in args.only)]
        if not figs:
            keys = ", ".join(f.key for f in figures(best, GAMES))
            raise BenchError(f"--only matches no figure; the figures are {keys}")

        # Set up and warm up every figure on both sides, and size the slices from the slower side.
        for i, fig in enumerate(figs, 1):
            unit = peer_unit = 0.0
            for name, side in sides.items():
                ans = side.ask({"op": "prepare", **fig.request()}, timeout)
                if "error" in ans:
                    fig.errors[name] = ans["error"]
                    note(f"[prepare {i}/{len(figs)}] {fig.key} {name}: FAILED {ans['error']}")
                    continue
                fig.fingerprints[name] = ans["fingerprint"]
                unit = max(unit, ans["unit_seconds"])
                peer_unit = max(peer_unit, ans["peer_unit_seconds"] or 0.0)
            fig.units = max(1, round(slice_s / unit)) if unit else 1
            fig.peer_units = max(1, round(slice_s / peer_unit)) if peer_unit else 0
            fp = set(fig.fingerprints.values())
            if len(fp) > 1:
                note(f"note: {fig.key}: the two trees build different positions {fp}: not the same work")
            note(f"[prepare {i}/{len(figs)}] {fig.key}: {fig.units} unit(s) a slice, peer {fig.peer_units}")

        total = rounds * len(figs) * 2
        done = 0
        rounds_start = time.perf_counter()
        for r in range(rounds):
            if interrupted:
                break
            spent = time.perf_counter() - t_start
            per_round = (time.perf_counter() - rounds_start) / r if r else 0.0
            if r >= 2 and spent + per_round > limit:
                note(f"stopping after {r} rounds: another would pass the {limit:.0f} s budget (--budget)")
                break
            rounds_done = r + 1
            order = ("before", "after") if r % 2 == 0 else ("after", "before")
            for fig in figs:
                if fig.errors:
                    continue
                start = 1 + r * fig.units
                for name in order:
                    done += 1
                    req = {"op": "run", "key": fig.key, "units": fig.units, "start": start}
                    req["peer_units"] = fig.peer_units
                    try:
                        ans = sides[name].ask(req, timeout)
                    except KeyboardInterrupt:
                        note("interrupted: the table covers the rounds done so far")
                        interrupted = True
                        break
                    if "error" in ans:
                        fig.errors[name] = ans["error"]
                        note(f"[{done}/{total}] round {r + 1} {fig.key} {name}: FAILED {ans['error']}")
                        break
                    fig.slices[name].append(ans)
                    x = _rate([ans], "ours", fig.lower_is_better)
                    msg = f"[{done}/{total}] round {r + 1}/{rounds} {fig.key} {name}: "
                    msg += f"{_num(x, fig.unit)} {fig.unit}"
                    if ans.get("peer"):
                        msg += f", peer {_num(_rate([ans], 'peer', False), 'x')}"
                    note(msg)
                if interrupted:
                    break
    finally:
        for side in sides.values():
            side.stop()
    for fig in figs:  # an interrupted round leaves one side a slice ahead: drop it
        paired = min(len(v) for v in fig.slices.values())
        for v in fig.slices.values():
            del v[paired:]
    rounds_done = max((len(f.slices["before"]) for f in figs), default=0)

    results = [summarize(f) for f in figs]
    elapsed = time.perf_counter() - t_start
    desc = {
        name: {
            "tree": s.tree,
            "python": s.python,
            "env": s.env,
            "gamester": s.info.get("gamester"),
            "compiled_modules": s.info.get("compiled_modules"),
            "peer": s.info.get("peer"),
        }
        for name, s in sides.items()
    }
    for name, s in sides.items():
        env = " ".join(f"{k}={v}" for k, v in s.env.items())
        built = (
            f", {s.info.get('compiled_modules')} compiled modules" if s.info.get("compiled_modules") else ""
        )
        print(f"{name + ':':8}{s.info.get('gamester')} (Python {s.info.get('python')}{built}) {env}".rstrip())
    clock = "wall-clock" if args.wall else "CPU"
    print(
        f"{rounds_done} rounds of ~{slice_s:g} s slices per side and figure ({clock} time), {elapsed:.0f} s"
    )
    print("after/before: the median of the rounds' paired ratios, with a distribution-free 95% interval")
    print("for it (order statistics); each side's own figure is over all its slices.")
    print()
    print(table(results, figs))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "sides": desc,
                    "rounds": rounds_done,
                    "slice_seconds": slice_s,
                    "clock": "wall" if args.wall else "cpu",
                    "seconds": elapsed,
                    "figures": [
                        {
                            **res,
                            "key": f.key,
                            "units_per_slice": f.units,
                            "peer_units_per_slice": f.peer_units,
                            "fingerprints": f.fingerprints,
                            "slices": f.slices,
                        }
                        for res, f in zip(results, figs, strict=True)
                    ],
                },
                fh,
                indent=1,
            )
    return 130 if interrupted else 0


def main() -> None:
    if sys.argv[1:] == ["--worker"]:
        worker_main()
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", metavar="TREE", help="a source tree (its src/ directory) for PYTHONPATH")
    ap.add_argument("--after", metavar="TREE", help="the same for the other side")
    ap.add_argument(
        "--before-python", metavar="PYTHON", help="interpreter of the before side (default: this one)"
    )
    ap.add_argument(
        "--after-python", metavar="PYTHON", help="interpreter of the after side (default: this one)"
    )
    ap.add_argument("--before-env", metavar="KEY=VAL", action="append", default=[], help="repeatable")
    ap.add_argument("--after-env", metavar="KEY=VAL", action="append", default=[], help="repeatable")
    ap.add_argument("--quick", action="store_true", help="5 rounds of 0.25 s slices (about 2 minutes)")
    ap.add_argument("--rounds", type=int, help="turns per side and figure (default 12; --quick 5)")
    ap.add_argument(
        "--budget",
        type=float,
        help="no round starts that would end past this many seconds (default 600; --quick 120)",
    )
    ap.add_argument("--slice", type=float, help="seconds of work per turn (default 0.5; --quick 0.25)")
    ap.add_argument("--games", nargs="+", choices=GAMES, help="only these games")
    ap.add_argument("--only", action="append", default=[], help="only figures whose key contains this")
    ap.add_argument("--best", metavar="GAME=SPEC", action="append", default=[], help="best agent spec")
    ap.add_argument("--wall", action="store_true", help="time by the wall clock, not the process's CPU time")
    ap.add_argument("--json", metavar="FILE", help="write every count and time as JSON")
    args = ap.parse_args()
    if args.rounds is not None and args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if args.budget is not None and args.budget <= 0:
        ap.error("--budget must be positive")
    if args.slice is not None and args.slice <= 0:
        ap.error("--slice must be positive")
    try:
        sys.exit(run(args))
    except BenchError as e:
        print(f"before_after: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
