"""Issue 15: "a fourth game is one new folder plus its entry points, and nothing else changes".

Minitrick (``tests/fourth_game/``: twelve cards, a hidden hand, a turn-up for trump, two or three
players) is registered here the way an installed package's entry point would register it, and then
goes through everything the three real games go through: loading by name and spec, the conformance
suite's own checks, records, every agent, simulation and tournaments, the web service with bots, and
the OpenSpiel and PettingZoo adapters. Nothing in ``src/`` names it.

The places in ``src/`` this game first found assuming the three games (each was a strict xfail here
until fixed in 8c13ddb and e1fabee; each test's docstring names its place): OpenSpiel's table of player
counts, ``bench --compare``'s table of peers, ``analyse``'s table of skill ladders, the terminal's
renderer lookup by module name, and the browser's table of game drawings.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gamester
import tests.test_agents as agents_suite
import tests.test_player_checks as player_checks
import tests.test_state_fields as state_fields
from gamester.agents import View, best_agent_spec, make_agent
from gamester.agents.rollout import RolloutAgent
from gamester.core import registry
from gamester.core.errors import AgentError, GameError, IllegalActionError, OptionError, RecordError
from gamester.core.kit import Kit
from gamester.core.protocol import State
from gamester.core.rng import make_rng
from gamester.testing import check_game
from gamester.testing.leaks import check_twin
from tests.fourth_game import MiniTrickGame
from tests.fourth_game.game import CODE, SUIT_MASK, cards_in
from tests.fourth_game.kit import choose

NAME = "minitrick"
ROOT = Path(__file__).resolve().parent.parent
SPECS = [f"{NAME}(ruleset={rs})" for rs in MiniTrickGame.rulesets] + [
    f"{NAME}(trump=none,players=3,deals=2,first_dealer=2)",
    f"{NAME}(must_trump=true,players=3)",
]


@pytest.fixture(autouse=True, scope="module")
def registered() -> Iterator[None]:
    """The game in this process's registry for this module only (what its entry point does; the
    suite also runs with the game installed through one, then this changes nothing)."""
    before = registry._GAMES.get(NAME)
    registry.register_game(MiniTrickGame)
    yield
    if before is None:
        del registry._GAMES[NAME]
    else:
        registry._GAMES[NAME] = before


@pytest.fixture(scope="module")
def entry_point_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory that, on ``sys.path``, installs the game's entry point: the metadata an installed
    package ``gamester-minitrick`` would have. Subprocesses and spawned workers see it too."""
    d = tmp_path_factory.mktemp("entry_point")
    info = d / "gamester_minitrick-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gamester-minitrick\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[gamester.games]\n{NAME} = tests.fourth_game:MiniTrickGame\n")
    return d


def _env(entry_point_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(entry_point_dir), str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _gamester(entry_point_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gamester", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(entry_point_dir),
        cwd=str(entry_point_dir),
    )


def _play(state: State, seed: int) -> State:
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


# -- loading -------------------------------------------------------------------------------------
def test_loads_by_name_and_spec_with_clear_errors() -> None:
    assert NAME in gamester.game_names()
    g = gamester.load_game(NAME)
    assert isinstance(g, MiniTrickGame) and g.num_players == 2 and g.num_distinct_actions == 12
    g3 = gamester.load_game("minitrick(ruleset=match,players=3)")
    assert (g3.options.players, g3.options.deals, g3.options.must_trump) == (3, 3, True)
    assert gamester.load_game(g3.spec()) == g3
    assert (
        gamester.load_game(NAME, deals="2", must_trump="yes").spec() == "minitrick(must_trump=true,deals=2)"
    )
    with pytest.raises(OptionError, match="unknown option 'trumps'; valid options: ruleset, players"):
        gamester.load_game("minitrick(trumps=none)")
    with pytest.raises(OptionError, match="first_dealer must be from 0 to 1"):
        gamester.load_game(NAME, first_dealer=2)
    with pytest.raises(OptionError, match="valid rule sets: standard, three_hand, match"):
        gamester.load_game(NAME, ruleset="cotton")


def test_loads_through_its_entry_point(entry_point_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the package's metadata on the path and nothing registered by hand, the registry finds
    the game the way it finds the three of its own."""
    monkeypatch.syspath_prepend(str(entry_point_dir))
    monkeypatch.delitem(registry._GAMES, NAME)
    monkeypatch.setattr(registry, "_SCANNED", False)
    monkeypatch.setattr(registry, "_ENTRY_POINTS", {})
    assert {"penneech", "piquesept", "pentyrch", NAME} <= set(registry.game_names())
    assert registry.game_class(NAME) is MiniTrickGame


def test_rules_text_comes_from_the_folder() -> None:
    from gamester.play.rules_text import rules_text

    text = rules_text(NAME)
    assert text.startswith("# Minitrick") and "## Options (generated from the code)" in text
    assert "- must_trump (default False; true or false)" in text and "- match: deals=3" in text


# -- the protocol: gamester.testing.check_game, what any new game's author runs --------------------
@pytest.mark.parametrize("spec", SPECS)
def test_check_game(spec: str) -> None:
    """Every check of ``gamester.testing.check_game`` (conformance, records, leaks, clone), as
    docs/new-game.md tells a new game's author to call it, plus cards conserved after every action
    (the invariant the game supplies). The leak checks found a leak here first: worlds reshuffled
    earlier deals' stocks from their real order, so two states a seat could not tell apart gave
    different worlds."""
    spec_game = gamester.load_game(spec)
    passed = check_game(spec_game, only=[spec], invariant=_cards_conserved)
    assert passed == [f"{check}: {spec}" for check in ("conformance", "records", "leaks", "clone")]


def test_check_game_covers_every_rule_set() -> None:
    passed = check_game(NAME, checks=["records"])
    assert passed == [f"records: {NAME}(ruleset={rs})" for rs in MiniTrickGame.rulesets]


def _cards_conserved(state: State) -> None:
    """Each of the 12 cards is in exactly one place: a hand, the turn-up, a trick, or the stock."""
    views = [state.observation(p) for p in range(state.game.num_players)]
    pub = state.public_observation()
    seen = [c for v in views for c in v["hand"]] + [pub["turnup"]] + pub["trick"]
    seen += [c for t in pub["tricks"] for c in t["cards"]]
    assert len(seen) == len(set(seen)), seen
    assert len(seen) + pub["stock_size"] == 12
    assert pub["hand_sizes"] == [len(v["hand"]) for v in views]


def test_hand_made_twins_give_the_same_worlds() -> None:
    """Twins made by hand, without determinize: an unplayed card of the other hand swapped with a
    stock card of a suit that hand has not shown it lacks (every inference still holds)."""
    made = 0
    for seed in range(6):
        game = gamester.load_game(f"{NAME}(ruleset=match)")
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(9, 20)):
            state.apply_action(rng.choice(state.legal_actions()))
        seat = state.current_player()
        rec = state.record()
        pack = rec["chance"][-1]
        pub = state.public_observation()
        theirs = state.observation(1 - seat)["hand"]
        # rules.md, What each player knows: not following shows a void; with must_trump (this rule
        # set), not trumping either shows no trump.
        void: set[str] = set()
        for t in [*pub["tricks"], {"leader": pub["leader"], "cards": pub["trick"]}]:
            for c, q in _plays(t):
                led = t["cards"][0][-1]
                if q == 1 - seat and c[-1] != led:
                    void.add(led)
                    if pub["trump"] and c[-1] != pub["trump"]:
                        void.add(pub["trump"])
        stock = pack[9:]
        for x in theirs:
            for y in stock:
                if y[-1] in void:
                    continue
                chance = [list(e) for e in rec["chance"]]
                p = chance[-1]
                i, j = p.index(x), p.index(y)
                p[i], p[j] = p[j], p[i]
                other = gamester.replay({**rec, "chance": chance, "seed": rec["seed"] + 1})
                differs, _ = check_twin(state, other, seat)
                assert differs
                made += 1
                break
    assert made >= 3


def _plays(trick: dict[str, Any]) -> list[tuple[str, int]]:
    return [(c, (trick["leader"] + i) % 2) for i, c in enumerate(trick["cards"])]


def test_state_fields_and_player_checks() -> None:
    """tests/test_state_fields.py and tests/test_player_checks.py, on this game."""
    state_fields.test_clone_of_clone_is_independent_of_both(NAME)
    state_fields.test_slotted_states_pickle_and_copy(NAME)
    for bad in player_checks.BAD_PLAYERS:
        player_checks.test_a_bad_player_is_refused_by_name(NAME, bad)
    player_checks.test_every_real_player_still_gets_its_view(NAME)
    player_checks.test_a_states_repr_names_no_hand_card_and_not_the_seed(NAME)


# -- rules from hand-made deals ------------------------------------------------------------------
# Two players, dealer 0: pack[0::2] to seat 1, pack[1::2] to seat 0, pack[8] turned up.
DEAL = ["AH", "KC", "QH", "QC", "KS", "AC", "QS", "KD", "AD", "KH", "AS", "QD"]
# Seat 1: AH QH KS QS; seat 0: KC QC AC KD; turn-up AD (diamonds trump); stock KH AS QD.


def _dealt(**options: Any) -> State:
    return gamester.load_game(NAME, **options).new_initial_state(chance=[DEAL])


def test_deal_follow_suit_trump_and_trick_winner() -> None:
    """rules.md, Dealing and Tricks."""
    s = _dealt()
    assert s.observation(1)["hand"] == ["QH", "AH", "QS", "KS"]
    assert s.observation(0)["hand"] == ["QC", "KC", "AC", "KD"]
    assert s.public_observation()["turnup"] == "AD" and s.public_observation()["trump"] == "D"
    assert s.current_player() == 1  # left of the dealer leads
    s.apply_action(s.string_to_action("AH"))
    # Seat 0 has no heart: any card; the KD trumps the Ace.
    assert [CODE[a] for a in s.legal_actions()] == ["QC", "KC", "AC", "KD"]
    s.apply_action(s.string_to_action("KD"))
    (trick,) = [e for e in s.last_events() if e["type"] == "trick"]
    assert trick == {"type": "trick", "leader": 1, "cards": ["AH", "KD"], "winner": 0}
    assert s.current_player() == 0 and s.scores() == [1, 0]
    s.apply_action(s.string_to_action("QC"))
    assert [CODE[a] for a in s.legal_actions()] == ["QH", "QS", "KS"]  # void in clubs: anything
    with pytest.raises(IllegalActionError, match="AH is not in seat 1's hand"):
        s.apply_action(s.string_to_action("AH"))


def test_must_trump_and_no_trump() -> None:
    s = _dealt(must_trump=True)
    s.apply_action(s.string_to_action("AH"))
    assert [CODE[a] for a in s.legal_actions()] == ["KD"]  # void in hearts, holding a trump
    before = s.record()
    with pytest.raises(IllegalActionError, match=r"AC is not legal: seat 0 void in hearts must play a trump"):
        s.apply_action(s.string_to_action("AC"))
    assert s.record() == before
    s = _dealt(trump="none")
    assert s.public_observation()["trump"] is None
    s.apply_action(s.string_to_action("AH"))
    s.apply_action(s.string_to_action("KD"))  # no trump: the Ace of the led suit wins
    assert s.current_player() == 1 and s.scores() == [0, 1]


def test_determinize_keeps_shown_voids_and_varies_the_rest() -> None:
    """A seat that did not follow hearts never gets a heart in a world; the rest is redrawn."""
    s = _dealt()
    for code in ("AH", "KD", "QC"):  # seat 0 showed it has no heart
        s.apply_action(s.string_to_action(code))
    worlds = [s.determinize(1, random.Random(k)) for k in range(200)]
    hands = {tuple(w.observation(0)["hand"]) for w in worlds}
    assert len(hands) > 3, hands
    assert all(not any(c.endswith("H") for c in h) for h in hands)
    assert all(w.observation(1) == s.observation(1) for w in worlds)
    # The true seed and stock never leak into the worlds.
    assert all(w.seed != s.seed for w in worlds)
    stocks = {tuple(w.record()["chance"][0][9:]) for w in worlds}
    assert len(stocks) > 1


def test_determinize_with_must_trump_infers_a_trump_void() -> None:
    """rules.md, What each player knows: with must_trump, a player who neither follows nor trumps has
    no trump either, so no world gives it one; without the rule, some worlds do."""
    # Seat 1: AH QH KH QS; seat 0: KC QC AC KD; AS turned up (spades trump); stock KS AD QD.
    pack = ["AH", "KC", "QH", "QC", "KH", "AC", "QS", "KD", "AS", "KS", "AD", "QD"]
    for must, ks_possible in ((True, False), (False, True)):
        s = gamester.load_game(NAME, must_trump=must).new_initial_state(chance=[pack])
        s.apply_action(s.string_to_action("AH"))
        s.apply_action(s.string_to_action("QC"))  # seat 0: no heart, no spade
        seen = {c for k in range(100) for c in s.determinize(1, random.Random(k)).observation(0)["hand"]}
        assert not any(c.endswith("H") for c in seen)
        assert ("KS" in seen) is ks_possible, (must, seen)


def test_records_replay_and_refuse_bad_input() -> None:
    s = _play(gamester.load_game(f"{NAME}(ruleset=match)").new_initial_state(seed=4), 4)
    rec = json.loads(json.dumps(s.record()))
    assert rec["game"] == NAME and len(rec["chance"]) == 3 and len(rec["actions"]) == 24
    again = gamester.replay(rec)
    assert again.record() == rec and again.returns() == s.returns()
    summary = gamester.summary(again)
    assert summary["is_terminal"] and summary["scores"] == s.scores() and "tricks_won" in summary
    bad = dict(rec, chance=[DEAL[:-1] + ["2C"]])
    with pytest.raises(RecordError, match=r"chance\[0\]"):
        gamester.replay(bad)
    with pytest.raises(RecordError, match=r"actions\[0\]: .*'ZZ' is not a Minitrick action"):
        gamester.replay(dict(rec, actions=["ZZ"]))
    # A position, summarized for one seat, lists its legal moves only on its turn.
    mid = gamester.replay(dict(rec, actions=rec["actions"][:3]))
    seat = mid.current_player()
    assert (
        gamester.summary(mid, seat)["legal_actions"]
        and gamester.summary(mid, 1 - seat)["legal_actions"] == []
    )


# -- agents --------------------------------------------------------------------------------------
AGENTS = [
    "random",
    "heuristic",
    "ismcts:iterations=40",
    "ismcts:iterations=40,rollout=random",
    "rollout:worlds=4",
    "futures:worlds=4",
]


@pytest.mark.parametrize("spec", [f"{NAME}(ruleset=match)", f"{NAME}(ruleset=three_hand)"])
@pytest.mark.parametrize("agent", AGENTS)
def test_every_generic_agent_plays_a_whole_game(agent: str, spec: str) -> None:
    game = gamester.load_game(spec)
    state = game.new_initial_state(seed=2)
    agents = [make_agent(agent, game=game, seed=10 + p) for p in range(game.num_players)]
    evaluated = 0
    while not state.is_terminal():
        p = state.current_player()
        legal = state.legal_actions()
        a = agents[p].step(View(state.clone(), p))
        assert a in legal
        if len(legal) > 1 and evaluated < 2:
            ev = agents[p].evaluate(View(state.clone(), p))
            if ev is not None:
                assert ev["action"] in legal
                evaluated += 1
        state.apply_action(a)
    assert len(state.returns()) == game.num_players


@pytest.mark.parametrize(
    "agent", ["heuristic", "ismcts:iterations=40", "rollout:worlds=3", "futures:worlds=3"]
)
def test_agents_cannot_cheat_and_are_deterministic(agent: str) -> None:
    """tests/test_agents.py's checks: two states the seat cannot tell apart lead a seeded agent to
    the same action; the same seed gives the same action."""
    agents_suite.test_cannot_cheat(NAME, agent)
    agents_suite.test_legal_and_deterministic(NAME, agent)


def test_pimc_and_lookahead_refuse_with_a_clear_error() -> None:
    game = gamester.load_game(NAME)
    with pytest.raises(AgentError, match="'minitrick' offers no solver; try 'ismcts'"):
        make_agent("pimc", game=game)
    with pytest.raises(AgentError, match="'minitrick' offers none; try 'ismcts'"):
        make_agent("lookahead", game=game)


def test_futures_without_a_race_plays_exactly_as_rollout() -> None:
    """Minitrick is no race of deals (its kit offers none), so ``futures`` is ``rollout`` with the
    same budget: the same evaluation, value for value."""
    state = _dealt(deals=3)
    state.apply_action(state.string_to_action("QS"))
    view = View(state, 0)
    ev = make_agent("futures:worlds=6", game=state.game, seed=3).evaluate(view)
    same = RolloutAgent(state.game, 6, None, 1, make_rng(3).getrandbits(32)).evaluate(view)
    assert ev == same and "inconsistent_worlds" not in ev


def test_heuristic_comes_from_the_kit_and_is_the_recommended_agents_base() -> None:
    game = gamester.load_game(NAME)
    assert (
        best_agent_spec(game) == best_agent_spec(NAME) == game.kit().recommended_agent == "rollout:worlds=12"
    )
    s = _dealt()
    s.apply_action(s.string_to_action("KS"))
    # Seat 0 cannot follow spades: the cheapest winner is its only trump, the KD.
    assert CODE[make_agent("heuristic", game=game, seed=0).step(View(s, 0))] == "KD"
    # Leading: a plain Ace first; following without a winner, the weakest card.
    rng = random.Random(0)
    hand = cards_in(SUIT_MASK[0] | SUIT_MASK[2])
    assert CODE[choose([], hand, 1, rng)] in ("AC", "AH")
    assert CODE[choose([8], cards_in(SUIT_MASK[2] & ~(1 << 8)), 1, rng)] == "QH"  # no heart beats the AH led


class BareMiniTrick(MiniTrickGame):
    """Minitrick whose kit offers nothing beyond the protocol (the base ``Kit``)."""

    name = "minitrick_bare"
    title = "Minitrick (bare kit)"

    def _make_kit(self) -> Kit:
        return Kit(self)


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch) -> MiniTrickGame:
    monkeypatch.setitem(registry._GAMES, BareMiniTrick.name, BareMiniTrick)
    game = gamester.load_game(BareMiniTrick.name)
    assert isinstance(game, BareMiniTrick)
    return game


def test_a_game_with_a_bare_kit_plays_with_the_generic_agents(bare: MiniTrickGame) -> None:
    """core/kit.py: a game that offers no heuristic, solver or model still plays with random and
    ismcts; the agents that need more refuse it in one line."""
    assert best_agent_spec(bare) == "ismcts:seconds=1"
    for spec in ("heuristic", "rollout", "futures", "pimc", "lookahead"):
        with pytest.raises(AgentError, match="offers no"):
            make_agent(spec, game=bare)
    state = bare.new_initial_state(seed=1)
    agents = [make_agent("ismcts:iterations=30", game=bare, seed=1), make_agent("random", seed=2)]
    while not state.is_terminal():
        p = state.current_player()
        state.apply_action(agents[p].step(View(state, p)))
    assert gamester.replay(state.record()).returns() == state.returns()


def test_web_agent_menu_offers_only_agents_the_game_can_seat(bare: MiniTrickGame) -> None:
    pytest.importorskip("fastapi")
    from gamester.web.service import agent_menu

    for entry in agent_menu(bare.name):
        make_agent(entry["spec"], game=bare)


# -- simulation, tournaments, the command line ----------------------------------------------------
def test_simulate_and_tournament_through_the_python_api() -> None:
    from gamester.sim.simulate import simulate
    from gamester.sim.tournament import run_tournament

    out = list(simulate(NAME, {"ruleset": "three_hand"}, ["heuristic", "random", "rollout:worlds=2"], 3, 7))
    assert [len(rec["actions"]) for rec, _, _ in out] == [9, 9, 9]
    assert [gamester.replay(rec).returns() for rec, _, _ in out] == [r for _, r, _ in out]
    summary = run_tournament(NAME, ["heuristic", "random"], games=4, seed=1, workers=2, progress=False)
    assert (
        summary["game"] == NAME
        and summary["games"] == 8
        and set(summary["agents"]) == {"heuristic", "random"}
    )


def test_command_line_finds_it_through_its_entry_point(entry_point_dir: Path, tmp_path: Path) -> None:
    """``gamester`` in a fresh process: the game is only an entry point there."""
    out = tmp_path / "games.jsonl"
    r = _gamester(
        entry_point_dir, "simulate", NAME, "--agents", "heuristic,random", "--games", "3", "--out", str(out)
    )
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(x)["game"] == NAME for x in lines)
    r = _gamester(entry_point_dir, "replay", str(out), "--index", "2", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["is_terminal"] is True
    r = _gamester(entry_point_dir, "rules", NAME)
    assert r.returncode == 0 and r.stdout.startswith("# Minitrick")
    r = _gamester(entry_point_dir, "simulate", NAME, "--agents", "pimc")
    assert r.returncode == 2 and "offers no solver" in r.stderr and "Traceback" not in r.stderr


def test_bench_compare_names_the_missing_peer_in_one_line(entry_point_dir: Path) -> None:
    """sim/bench.py indexed OPENSPIEL_PEERS[game.name], a table of the three games: a KeyError and a
    traceback for any other game."""
    r = _gamester(entry_point_dir, "bench", NAME, "--compare", "--seconds", "0.2")
    assert "Traceback" not in r.stderr
    assert r.returncode == 0 or (r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1)


def test_analyse_measures_it() -> None:
    from gamester.sim.analyse import Analysis, run_analysis

    a = Analysis(
        game=NAME,
        rulesets=["three_hand"],
        games=4,
        worlds=2,
        skill_games=2,
        skill_budgets=(1, 2),
        info_games=1,
        workers=1,
        progress=False,
    )
    summary = run_analysis(a)
    assert summary["game"] == NAME and summary["agents"] == ["rollout:worlds=12"]
    metrics = summary["rulesets"]["three_hand"]["metrics"]
    assert metrics["duration_actions"]["value"] == 9.0 and "balance" in metrics


def test_analyse_skill_ladder_follows_the_kit() -> None:
    """sim/analyse.py had LADDERS, a table of the three games' ladders; others got ismcts."""
    from gamester.sim.analyse import Analysis, ladder_specs

    game = gamester.load_game(NAME)
    kind = game.kit().recommended_agent.split(":")[0]
    assert all(s.startswith(kind + ":") for s in ladder_specs(Analysis(game=NAME), game))


def test_terminal_play_to_the_end(entry_point_dir: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "play", NAME, "--vs", "heuristic", "--seed", "3"],
        input="1\n" * 20,
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(entry_point_dir),
        cwd=str(entry_point_dir),
    )
    assert r.returncode == 0, r.stderr
    assert "Game over" in r.stdout and "Traceback" not in r.stderr


def test_its_own_renderer_draws_only_the_seats_view() -> None:
    from tests.fourth_game import render

    s = _dealt()
    text = render.board(s.observation(0))
    assert "Your hand: Q♣ K♣ A♣ K♦" in text and "A♥" not in text
    assert "Your hand" not in render.board(s.public_observation())
    s.apply_action(s.string_to_action("AH"))
    s.apply_action(s.string_to_action("KD"))
    assert [render.narrate(e, 1) for e in s.last_events()] == ["Player 0 wins the trick (A♥ K♦)."]


def test_terminal_finds_the_renderer_in_the_games_folder() -> None:
    """play/terminal.py once imported only gamester.play.render_<name>: a game from another package
    could not bring its own, and play and replay printed raw JSON. Now every game's ``render`` is found
    in its own package, the shipped three's too."""
    from gamester.play.terminal import renderer

    assert renderer(NAME) is not None


# -- the web service -----------------------------------------------------------------------------
@pytest.mark.slow
def test_web_lists_it_and_bots_play_a_table_to_the_end(
    entry_point_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bots think in spawned worker processes, which know the game only through its entry point."""
    pytest.importorskip("fastapi")
    from tests.web_helpers import client_on, join, new_table, play_seat

    monkeypatch.syspath_prepend(str(entry_point_dir))
    with client_on(tmp_path / "web.db") as c:
        games = {g["name"]: g for g in c.get("/api/games").json()["games"]}
        g = games[NAME]
        assert g["title"] == "Minitrick" and g["players"] == [2, 3]
        assert [o["name"] for o in g["options"]] == [
            "players",
            "trump",
            "must_trump",
            "deals",
            "first_dealer",
        ]
        assert {rs["name"] for rs in g["rulesets"]} == {"standard", "three_hand", "match"}
        assert "rollout:worlds=12" in [a["spec"] for a in g["agents"]]
        r = c.get(f"/api/games/{NAME}/rules")
        assert r.status_code == 200 and r.json()["markdown"].startswith("# Minitrick")

        tid = new_table(
            c, NAME, ["heuristic", "rollout:worlds=3", "random"], options={"ruleset": "three_hand"}
        )
        end = time.monotonic() + 60
        while (info := c.get(f"/api/tables/{tid}").json())["status"] != "over":
            assert time.monotonic() < end, info
            time.sleep(0.2)
        rec = c.get(f"/api/tables/{tid}/record").json()
        assert gamester.replay(rec).is_terminal() and len(rec["actions"]) == 9

        tid = new_table(c, NAME, ["human", "heuristic"])
        token = join(c, tid, 0)
        with c.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
            got = play_seat(ws, random.Random(5))
        views = [m for m in got if m["type"] == "view"]
        assert views[-1]["status"] == "over" and all("hand" in m["view"] for m in views)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            assert "hand" not in ws.receive_json()["view"]


@pytest.mark.slow
def test_browser_table_page_draws_a_game_it_has_no_module_for(
    entry_point_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """web/static/js/table.js held GAMES = {penneech, piquesept, pentyrch} (replay.js the same): the
    lobby offered the game and its table page threw "Cannot read properties of undefined".

    The server runs in a thread of this process (uvicorn on 127.0.0.1), its bot worker spawned with
    the entry point on its path; Chromium starts meanwhile."""
    sync_api = pytest.importorskip("playwright.sync_api")
    uvicorn = pytest.importorskip("uvicorn")
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Debian's chromium is not installed")
    import socket
    import threading
    import urllib.request

    from gamester.web import create_app

    monkeypatch.syspath_prepend(str(entry_point_dir))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    base = f"http://127.0.0.1:{port}"
    app = create_app(f"sqlite:///{tmp_path / 'b.db'}", bot_workers=1)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    errors: list[str] = []
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
            )
            try:
                deadline = time.monotonic() + 60
                while not server.started:
                    assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
                    time.sleep(0.1)
                body = json.dumps({"game": NAME, "options": {}, "seats": ["random", "random"], "clock": None})
                req = urllib.request.Request(
                    f"{base}/api/tables", data=body.encode(), headers={"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(req, timeout=10) as r:
                    tid = json.load(r)["id"]
                page = browser.new_page()
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"{base}/#/table/{tid}")
                # The finished game's result, drawn by the page (or the error it throws instead).
                end = time.monotonic() + 30
                while not errors and not page.locator('[data-testid="result"]').count():
                    assert time.monotonic() < end, "the table page drew no result"
                    page.wait_for_timeout(100)
            finally:
                browser.close()
    finally:
        server.should_exit = True
        thread.join(30)
    assert errors == []
    assert not thread.is_alive()


# -- interop -------------------------------------------------------------------------------------
def test_pettingzoo_environment() -> None:
    pytest.importorskip("pettingzoo")
    import warnings

    from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]  # no stubs

    from gamester.interop.pettingzoo import env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(NAME, render_mode="ansi", ruleset="three_hand"), num_cycles=200)
        seed_test(lambda: env(NAME, render_mode="ansi"), num_cycles=50)


def test_openspiel_adapter() -> None:
    """interop/openspiel.py registered only the games of its _PLAYER_RANGE table (the three), and
    would have given any other 2-4 players."""
    pyspiel = pytest.importorskip("pyspiel")
    from gamester.interop import openspiel

    assert "gamester_minitrick" in openspiel.register()
    g = pyspiel.load_game("gamester_minitrick(ruleset=three_hand)")
    assert g.num_players() == 3 and g.get_type().max_num_players == 3 and g.get_type().min_num_players == 2
    assert (g.min_utility(), g.max_utility()) == (-1.0, 2.0)
    pyspiel.random_sim_test(g, num_sims=3, serialize=True, verbose=False)
    # OpenSpiel's own ISMCTS, as an agent seeing only its seat, plays a whole game through it.
    game = gamester.load_game(f"{NAME}(ruleset=match)")
    state = game.new_initial_state(seed=8)
    bots = [make_agent("openspiel-ismcts:simulations=20", game=game, seed=1), make_agent("heuristic", seed=2)]
    while not state.is_terminal():
        p = state.current_player()
        a = bots[p].step(View(state, p))
        assert a in state.legal_actions()
        state.apply_action(a)


def test_no_source_file_names_the_fourth_game() -> None:
    """What makes it a fourth game: src/ does not know it."""
    hits = [p for p in (ROOT / "src").rglob("*.py") if NAME in p.read_text(encoding="utf-8")]
    assert hits == []


def test_game_errors_are_game_errors() -> None:
    s = _dealt()
    for bad in (-1, 12, "AH", True, None):
        with pytest.raises(GameError):
            s.apply_action(bad)  # type: ignore[arg-type]
    with pytest.raises(GameError, match="not a player"):
        s.observation(5)
