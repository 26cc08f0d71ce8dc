"""The agent fingerprints (issue 15): what every agent chooses, for fixed seeds, at fixed positions.

The golden file ``tests/data/agent_fingerprints.json`` was first made by running THIS script on the
code before the agent refactor of issue 15 (commit 0eb4823). It was made again, once, by this script
on the code of issue 27, right after the agents' generators became ``HashRandom`` and every draw
went through our own draws ("gamester-draws-1", docs/randomness.md) instead of CPython's
``random.Random`` methods: that changed what a seeded agent draws, so the old choices could no
longer come out. It was made a third time in issue 49, when every seed made from another came to be
made by one function (``derive``, "gamester-derive-1", docs/randomness.md): the agents' seeds here
(``position_seed``, and the whole games' ``agent_seed`` as ``simulate`` seeds its players) are
derived, so the same agents now decide with other seeds; what they do with a seed did not change::

    PYTHONPATH=$PWD/src python tests/make_agent_fingerprints.py

From now on the file pins the agents' decisions on top of a generator and draws that are ours, the
same on every Python version and in either build: a refactor that changes a choice, an evaluation or
a whole game fails the test. It is rewritten only when an agent's behaviour changes on purpose (a
new version of the generator or of the draws is one such change), never to make a refactor pass:
``tests/test_agent_fingerprints.py`` replays every entry on the current code and must find the same
choices, the same evaluations and the same whole games.

What is fixed, for each game and rule set in ``CONFIGS`` and each agent spec in ``AGENTS``:

* **positions**: reached by seeded random play from a seeded deal, at several depths and at the
  positions where each kind of decision first arises (redeal offers, Piquesept's give and first
  trick, Pentyrch entries, payments of two cards, shows, bear-offs). A position is stored as a record
  (game, options, deal seed, action notations), so it is rebuilt by ``gamester.replay`` whatever the
  state's internals. Positions with a single legal move are skipped. (The random play that finds
  them uses ``random.Random(text).choice``: only this script draws them, the test replays the stored
  records, and keeping that draw kept the same positions through the regeneration of issue 27.)
* **decisions**: a fresh ``make_agent(spec, game=game, seed=K)`` steps once at the position; a second
  fresh one (same seed) evaluates it, and the evaluation is kept with its numbers rounded to 9 digits.
* **whole games** between seeded agents: the complete list of actions, which fixes how the agents use
  their generators across a game.

The functions below are shared with the test (one definition of what a fingerprint is); they use only
the public API (``load_game``, ``replay``, ``make_agent``, ``View``), which both codes offer.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).with_name("data") / "agent_fingerprints.json"
FORMAT = "gamester-agent-fingerprints"
VERSION = 1

# (game, options): every game's defaults plus the rule sets issue 15 names.
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("penneech", {}),
    ("penneech", {"objective": "deal"}),
    ("piquesept", {}),
    ("piquesept", {"players": 3}),
    ("pentyrch", {}),
    ("pentyrch", {"players": 2}),
]

# Small budgets so that the whole test stays well under a minute. The futures agent uses the shipped
# bank with the default Penneech options and a small bank (built in a second) elsewhere. The last spec of
# each game is its best agent (gamester.agents.BEST_AGENTS) at a reduced budget.
AGENTS: dict[str, list[str]] = {
    "penneech": [
        "random",
        "heuristic",
        "ismcts:iterations=60",
        "ismcts:iterations=60,rollout=random",
        "pimc:worlds=2",
        "rollout:worlds=4",
        "futures:worlds=6",
        "futures:worlds=6,bank=40,infer=0",
        "futures:worlds=12",
    ],
    "piquesept": [
        "random",
        "heuristic",
        "ismcts:iterations=40",
        "ismcts:iterations=40,rollout=random",
        "pimc:worlds=2",
        "rollout:worlds=3",
        "rollout:worlds=3,prune=0",
        "rollout:worlds=5",
    ],
    "pentyrch": [
        "random",
        "heuristic",
        "ismcts:iterations=16",
        "ismcts:iterations=16,rollout=random",
        "lookahead:worlds=2",
        "lookahead:worlds=2,candidates=4",
    ],
}
# Best agents at full budget (BEST_AGENTS at 0eb4823), for the record: futures:worlds=300,
# rollout:worlds=30, lookahead:worlds=8; reduced above to futures:worlds=12, rollout:worlds=5 and
# lookahead:worlds=2,candidates=4.

# Exact solving from a full Piquesept hand can take minutes (pimc:worlds=2 at 0eb4823: up to 187 s
# from 7 cards with 4 players, 0.3 s from 5): pimc is fingerprinted there only once few cards are left.
PIMC_PIQUESEPT_MAX_HAND = 5

# Whole games: (game, options, deal seed, one spec per seat).
GAMES: list[tuple[str, dict[str, Any], int, list[str]]] = [
    ("penneech", {"objective": "deal"}, 11, ["rollout:worlds=3", "ismcts:iterations=30"]),
    ("penneech", {"objective": "deal"}, 12, ["pimc:worlds=2", "futures:worlds=4"]),
    ("penneech", {}, 13, ["heuristic", "random"]),
    ("penneech", {"target": 15}, 14, ["futures:worlds=4,bank=40", "ismcts:iterations=20,rollout=random"]),
    ("piquesept", {}, 21, ["heuristic", "ismcts:iterations=20", "rollout:worlds=2", "random"]),
    (
        "piquesept",
        {"players": 3},
        22,
        ["rollout:worlds=2", "heuristic", "ismcts:iterations=20,rollout=random"],
    ),
    ("pentyrch", {"players": 2}, 31, ["lookahead:worlds=2", "heuristic"]),
    ("pentyrch", {}, 32, ["heuristic", "random", "ismcts:iterations=10", "heuristic"]),
]

DEAL_SEEDS = {"penneech": (101, 202, 303), "piquesept": (101, 202, 303), "pentyrch": (101, 202)}
DEPTHS = (0.0, 0.45, 0.9)  # where along a random game's non-trivial positions to stop
TIME_WORDS = ("second", "time", "elapsed")  # evaluation fields that measure time, not choice


def record(game: str, options: dict[str, Any], seed: int, actions: list[str]) -> dict[str, Any]:
    return {
        "format": "gamester-record",
        "version": 1,
        "game": game,
        "options": options,
        "seed": seed,
        "actions": actions,
    }


def isolate_cache() -> None:
    """Point the futures agent's bank cache at a fresh directory, so that only the shipped bank or a
    bank built now (from the code under test) is ever used."""
    os.environ["GAMESTER_CACHE_DIR"] = tempfile.mkdtemp(prefix="gamester-fp-cache-")


def reduce(value: Any) -> Any:
    """An evaluation as plain JSON: floats rounded to 9 digits, time measurements dropped."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {
            str(k): reduce(v) for k, v in value.items() if not any(w in str(k).lower() for w in TIME_WORDS)
        }
    if isinstance(value, (list, tuple)):
        return [reduce(v) for v in value]
    return repr(value)


def decide(spec: str, state: Any, seed: int) -> dict[str, Any]:
    """What a fresh seeded agent does at ``state``: its step and (if it has one) its evaluation."""
    from gamester.agents import View, make_agent

    player = state.current_player()
    agent = make_agent(spec, game=state.game, seed=seed)
    step = agent.step(View(state.clone(), player))
    agent = make_agent(spec, game=state.game, seed=seed)
    ev = agent.evaluate(View(state.clone(), player))
    out: dict[str, Any] = {"step": state.action_to_string(step)}
    if ev is not None:
        ev = dict(ev)
        if "action" in ev:
            ev["action"] = state.action_to_string(int(ev["action"]))
        out["evaluate"] = reduce(ev)
    return out


def play_game(game_name: str, options: dict[str, Any], seed: int, specs: list[str]) -> list[str]:
    """A whole game between seeded agents (seat i's agent seeded ``agent_seed(seed, i)``, as
    ``simulate`` seeds it): its actions."""
    from gamester import load_game
    from gamester.agents import View, agent_seed, make_agent

    game = load_game(game_name, **options)
    agents = [make_agent(s, game=game, seed=agent_seed(seed, i)) for i, s in enumerate(specs)]
    state = game.new_initial_state(seed=seed)
    actions: list[str] = []
    while not state.is_terminal():
        p = state.current_player()
        a = agents[p].step(View(state, p))
        actions.append(state.action_to_string(a))
        state.apply_action(a)
    return actions


def _tags(game: str, legal: list[str], obs: dict[str, Any]) -> list[str]:
    """The kinds of decision at a position (to make sure each kind is fingerprinted)."""
    tags: list[str] = []
    if game == "penneech":
        tags.append(
            "redeal" if "redeal" in legal else "trick-lead" if not obs.get("trick") else "trick-follow"
        )
    elif game == "piquesept":
        tags.append(str(obs.get("phase")))
    else:
        for mark, tag in (("@", "entry"), ("+", "two-card-payment"), ("=", "show"), (" off", "bear-off")):
            if any(mark in t for t in legal):
                tags.append(tag)
        if any("-" in t for t in legal):
            tags.append("step")
    return tags


def positions(game_name: str, options: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """Positions chosen along one seeded random game: several depths, and the first of each kind."""
    from gamester import load_game

    game = load_game(game_name, **options)
    rng = random.Random(f"fingerprint {game_name} {sorted(options.items())} {seed}")
    state = game.new_initial_state(seed=seed)
    seen: list[tuple[list[str], list[str], int]] = []  # (prefix, tags, hand size)
    actions: list[str] = []
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) > 1:
            p = state.current_player()
            obs = state.observation(p)
            names = [state.action_to_string(a) for a in legal]
            seen.append((list(actions), _tags(game_name, names, obs), len(obs.get("hand") or [])))
        a = rng.choice(legal)
        actions.append(state.action_to_string(a))
        state.apply_action(a)
    chosen: dict[int, list[str]] = {}
    for f in DEPTHS:
        chosen.setdefault(int(f * (len(seen) - 1)), []).append(f"depth {f}")
    for tag in sorted({t for _, tags, _ in seen for t in tags}):
        i = next(i for i, (_, tags, _) in enumerate(seen) if tag in tags)
        chosen.setdefault(i, []).append(tag)
    # and one late position for the solver-based agents (few cards left)
    if game_name == "piquesept":
        for most, why in ((PIMC_PIQUESEPT_MAX_HAND, "late"), (3, "end")):
            late = [i for i, (_, _, h) in enumerate(seen) if h <= most]
            if late:
                chosen.setdefault(late[0], []).append(why)
    return [
        {"seed": seed, "actions": seen[i][0], "why": sorted(set(chosen[i])), "hand": seen[i][2]}
        for i in sorted(chosen)
    ]


def applies(game_name: str, spec: str, hand: int) -> bool:
    return not (game_name == "piquesept" and spec.startswith("pimc") and hand > PIMC_PIQUESEPT_MAX_HAND)


def position_seed(index: int, game_name: str) -> int:
    """The seed of every agent deciding at position ``index`` of ``game_name``'s positions."""
    from gamester.core.rng import derive

    return derive(7, "fingerprint", game_name, index)


def generate() -> dict[str, Any]:
    from gamester import load_game, replay

    isolate_cache()
    out: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "made_from": "gamester with derived agent seeds, gamester-derive-1 (issue 49)",
        "positions": [],
        "games": [],
    }
    for game_name, options in CONFIGS:
        load_game(game_name, **options)  # the options are valid
        index = 0
        for seed in DEAL_SEEDS[game_name]:
            for pos in positions(game_name, options, seed):
                state = replay(record(game_name, options, seed, pos["actions"]))
                entry: dict[str, Any] = {
                    "game": game_name,
                    "options": options,
                    "seed": seed,
                    "actions": pos["actions"],
                    "why": pos["why"],
                    "player": state.current_player(),
                    "agent_seed": position_seed(index, game_name),
                    "decisions": {},
                }
                for spec in AGENTS[game_name]:
                    if applies(game_name, spec, pos["hand"]):
                        entry["decisions"][spec] = decide(spec, state, entry["agent_seed"])
                out["positions"].append(entry)
                index += 1
                print(
                    f"{game_name} {options} seed {seed} #{len(pos['actions'])} {pos['why']}", file=sys.stderr
                )
    for game_name, options, seed, specs in GAMES:
        out["games"].append(
            {
                "game": game_name,
                "options": options,
                "seed": seed,
                "agents": specs,
                "actions": play_game(game_name, options, seed, specs),
            }
        )
        print(
            f"game {game_name} {options} {specs}: {len(out['games'][-1]['actions'])} actions", file=sys.stderr
        )
    return out


def main() -> None:
    import gamester

    print(f"generating from {gamester.__file__}", file=sys.stderr)
    data = generate()
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    n = sum(len(p["decisions"]) for p in data["positions"])
    print(
        f"wrote {GOLDEN}: {len(data['positions'])} positions, {n} decisions, {len(data['games'])} games",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
