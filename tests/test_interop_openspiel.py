"""The OpenSpiel adapter (issue 13): registration, chance nodes, observers, resampling, serialization,
OpenSpiel's own tests and tools (random_sim_test, playthroughs, ISMCTSBot, evaluate_bots, Shimmy)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

import gamester  # noqa: E402
from gamester.core.cards import parse_card  # noqa: E402
from gamester.core.registry import load_game  # noqa: E402
from gamester.interop import openspiel as gos  # noqa: E402

GOLDEN = Path(__file__).parent / "golden"
RULESETS = [
    (name, rs)
    for name in ("penneech", "piquesept", "pentyrch")
    for rs in sorted(gamester.load_game(name).rulesets)
]


@pytest.fixture(scope="module", autouse=True)
def _registered() -> None:
    gos.register()


def _random_play(state: pyspiel.State, rng: np.random.RandomState, limit: int = 100_000) -> pyspiel.State:
    for _ in range(limit):
        if state.is_terminal():
            break
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_register_names_and_types() -> None:
    assert {"gamester_penneech", "gamester_pentyrch", "gamester_piquesept"} <= set(gos.register())
    g = pyspiel.load_game("gamester_penneech")
    t = g.get_type()
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (t.min_num_players, t.max_num_players) == (2, 2)
    assert (g.min_utility(), g.max_utility(), g.num_distinct_actions()) == (-1.0, 1.0, 54)
    q = pyspiel.load_game("gamester_piquesept(ruleset=three_hand,deals=2)")
    assert q.num_players() == 3 and (q.min_utility(), q.max_utility()) == (-4.0, 4.0)
    assert q.max_game_length() == 2 * 31
    p = pyspiel.load_game("gamester_pentyrch")
    assert p.num_players() == 4 and p.min_utility() == -3.0 and p.max_game_length() == 800
    assert pyspiel.load_game("gamester_penneech(objective=deal)").max_utility() == 77.0


@pytest.mark.parametrize("name,ruleset", RULESETS)
def test_every_ruleset_and_option_is_a_parameter(name: str, ruleset: str) -> None:
    g = pyspiel.load_game(f"gamester_{name}(ruleset={ruleset})")
    assert g.engine == load_game(f"{name}(ruleset={ruleset})")
    params = g.get_parameters()
    assert set(params) == set(load_game(name).options_json()) | {"ruleset"}
    # The game's string names the options in force, so it loads the same game again.
    assert pyspiel.load_game(str(g)).engine == g.engine


def test_options_and_bad_parameters() -> None:
    g = pyspiel.load_game("gamester_penneech(ruleset=cotton,target=41,first_dealer=1)")
    assert g.engine == load_game("penneech(ruleset=cotton,target=41,first_dealer=1)")
    assert pyspiel.load_game("gamester_penneech(first_dealer=-1)").engine.options.first_dealer == "draw"
    q = pyspiel.load_game("gamester_piquesept(players=3,removed_eights=8C 8D)")
    assert q.engine == load_game("piquesept", players=3, removed_eights="8C,8D")
    with pytest.raises(Exception, match="target"):
        pyspiel.load_game("gamester_penneech(target=0)")
    with pytest.raises(Exception, match="nonsense"):
        pyspiel.load_game("gamester_penneech(nonsense=1)")
    with pytest.raises(Exception, match="rule set .nope."):
        pyspiel.load_game("gamester_penneech(ruleset=nope)")


@pytest.mark.parametrize("name,ruleset", RULESETS)
def test_random_sim_test(name: str, ruleset: str) -> None:
    """OpenSpiel's own checks (legal actions, chance sums, returns in bounds, clone, serialize)."""
    g = pyspiel.load_game(f"gamester_{name}(ruleset={ruleset})")
    pyspiel.random_sim_test(g, num_sims=1 if name == "pentyrch" else 3, serialize=True, verbose=False)


def _chance_runs(state: pyspiel.State, rng: np.random.RandomState) -> list[int]:
    """Lengths of the runs of consecutive chance nodes in one random game."""
    runs: list[int] = []
    prev_chance = False
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            assert len({p for _, p in outcomes}) == 1  # uniform over the cards still unplaced
            if not prev_chance:
                runs.append(0)
            runs[-1] += 1
            actions = [a for a, _ in outcomes]
            state.apply_action(int(rng.choice(actions)))
            prev_chance = True
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            prev_chance = False
    return runs


def test_chance_one_card_at_a_time() -> None:
    """Penneech: the 14 dealt cards and 8 turn-ups of a deal; Piquesept: 31 cards of the pack (the
    32nd is forced) then the drawn card; Pentyrch: the layout (23 + 1 forced) and the hands (15 + 1)."""
    rng = np.random.RandomState(0)
    runs = _chance_runs(pyspiel.load_game("gamester_penneech(first_dealer=0)").new_initial_state(), rng)
    assert runs and all(r == 22 for r in runs)
    runs = _chance_runs(pyspiel.load_game("gamester_piquesept").new_initial_state(), rng)
    assert runs == [31, 1]
    state = pyspiel.load_game("gamester_pentyrch").new_initial_state()
    assert len(state.chance_outcomes()) == 24
    assert _chance_runs(state, rng) == [23 + 15]


def test_penneech_draw_tie_reads_deeper_as_chance() -> None:
    """A tied draw for the deal reads on into the pack: those cards are chance nodes too."""
    s = pyspiel.load_game("gamester_penneech").new_initial_state()
    for code in ("AS", "AH", "KS", "KH"):  # two tied pairs
        s.apply_action(parse_card(code))
    assert s.is_chance_node() and len(s.chance_outcomes()) == 48
    rng = np.random.RandomState(1)
    drawn = 0
    while s.driver.need is not None and s.driver.need.index == 0:
        s.apply_action(int(rng.choice([a for a, _ in s.chance_outcomes()])))
        drawn += 1
    assert drawn == 47  # the rest of the pack (the last card is forced)
    while s.is_chance_node():  # the deal itself
        s.apply_action(int(rng.choice([a for a, _ in s.chance_outcomes()])))
    events = s.engine().last_events()
    assert [e["cards"] for e in events[:2]] == [["AS", "AH"], ["KS", "KH"]]


@pytest.mark.parametrize(
    "spec",
    [
        "gamester_penneech",
        "gamester_piquesept(ruleset=three_hand)",
        "gamester_pentyrch(ruleset=two_player,max_rounds=30)",
    ],
)
def test_records_replay_in_gamester(spec: str) -> None:
    """A game played through OpenSpiel is an ordinary gamester game: its record replays the same."""
    s = _random_play(pyspiel.load_game(spec).new_initial_state(), np.random.RandomState(2))
    record = json.loads(json.dumps(s.engine().record()))
    replayed = gamester.replay(record)
    assert replayed.is_terminal() and replayed.returns() == s.returns()
    assert replayed.history_strings() == s.engine().history_strings()


def test_clone_is_independent_and_serialize_round_trips() -> None:
    g = pyspiel.load_game("gamester_piquesept")
    rng = np.random.RandomState(3)
    s = g.new_initial_state()
    for _ in range(45):  # into the play, past the deal and the drawn card
        _random_play(s, rng, limit=1)
    c = s.clone()
    before = s.information_state_string(0)
    _random_play(c, rng, limit=5)
    assert s.information_state_string(0) == before
    text = pyspiel.serialize_game_and_state(g, s)
    g2, s2 = pyspiel.deserialize_game_and_state(text)
    for p in range(g.num_players()):
        assert s2.information_state_string(p) == s.information_state_string(p)
        assert s2.observation_tensor(p) == s.observation_tensor(p)
    assert s2.legal_actions() == s.legal_actions()
    # Mid-deal (a chance node) serializes too, with the cards drawn so far.
    m = g.new_initial_state()
    for _ in range(5):
        _random_play(m, rng, limit=1)
    _, m2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, m))
    assert m2.is_chance_node() and m2.chance_outcomes() == m.chance_outcomes()


@pytest.mark.parametrize(
    "spec,moves",
    [("gamester_penneech", 60), ("gamester_piquesept", 40), ("gamester_pentyrch(ruleset=partnership)", 42)],
)
def test_resample_from_infostate(spec: str, moves: int) -> None:
    """Worlds keep the player's information state (ISMCTS relies on it) and redeal what is hidden."""
    g = pyspiel.load_game(spec)
    rng = np.random.RandomState(4)
    s = g.new_initial_state()
    while s.is_chance_node() or s.move_number() < moves:
        _random_play(s, rng, limit=1)
        if s.is_terminal():
            pytest.fail("game ended too early for the test")
    while s.is_chance_node():
        _random_play(s, rng, limit=1)
    p = s.current_player()
    other = (p + 1) % g.num_players()
    key = s.information_state_string(p)
    differs = 0
    for i in range(12):
        w = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert w.information_state_string(p) == key
        assert w.observation_tensor(p) == s.observation_tensor(p)
        assert sorted(w.legal_actions()) == sorted(s.legal_actions())
        differs += w.engine().observation(other) != s.engine().observation(other)
        _random_play(w, np.random.RandomState(i))
        assert w.is_terminal()
    assert differs > 0  # the worlds are dealt afresh, not the true state


def test_public_observer_shows_no_hand() -> None:
    from open_spiel.python.observation import make_observation

    g = pyspiel.load_game("gamester_piquesept")
    s = _random_play(g.new_initial_state(), np.random.RandomState(5), limit=40)
    public = make_observation(
        g,
        pyspiel.IIGObservationType(
            public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    text = public.string_from(s, 0)
    assert text.startswith(json.dumps(s.engine().public_observation(), sort_keys=True, separators=(",", ":")))
    for seat in range(g.num_players()):
        for card in s.engine().observation(seat)["hand"]:  # unplayed cards stay hidden
            assert f'"{card}"' not in text
    private = make_observation(g, pyspiel.IIGObservationType(perfect_recall=True))
    assert private.string_from(s, 0) == s.information_state_string(0)
    private.set_from(s, 0)
    assert list(private.tensor) == pytest.approx(s.information_state_tensor(0))


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.txt")), ids=lambda p: p.stem)
def test_golden_playthroughs(path: Path) -> None:
    """Made with OpenSpiel's playthrough tool (``generate_playthrough``); replayed call by call."""
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    original, new = generate_playthrough.replay(str(path))
    assert original == new


def test_ismcts_bot_and_evaluate_bots() -> None:
    from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

    from gamester.interop.agents import SearchBot

    for spec in (
        "gamester_penneech(objective=deal)",
        "gamester_piquesept(ruleset=three_hand)",
        "gamester_pentyrch(ruleset=two_player,max_rounds=8)",
    ):
        g = pyspiel.load_game(spec)
        bots = [SearchBot(g, simulations=8, seed=i) for i in range(g.num_players())]
        returns = evaluate_bots.evaluate_bots(g.new_initial_state(), bots, np.random.RandomState(6))
        assert len(returns) == g.num_players() and abs(sum(returns)) < 1e-9
    # OpenSpiel's own bot, untouched, searching with the adapter's resample_from_infostate.
    g = pyspiel.load_game("gamester_penneech(objective=deal)")
    rs = np.random.RandomState(7)
    bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rs), 2.0, 10, random_state=rs)
    s = g.new_initial_state()
    while s.is_chance_node():
        _random_play(s, rs, limit=1)
    assert bot.step(s) in s.legal_actions()


def test_shimmy_wraps_the_adapter() -> None:
    shimmy = pytest.importorskip("shimmy")
    from pettingzoo.test import api_test

    for spec in (
        "gamester_penneech(objective=deal)",
        "gamester_piquesept",
        "gamester_pentyrch(ruleset=two_player,max_rounds=10)",
    ):
        env = shimmy.OpenSpielCompatibilityV0(env=pyspiel.load_game(spec))
        with pytest.warns():
            api_test(env, num_cycles=100)


def test_driver_state_of_an_engine_position() -> None:
    """``state_at`` wraps a gamester position (a real one or a world) with its future chance explicit."""
    g = gos.for_engine(load_game("penneech(first_dealer=0)"))
    engine_state = g.engine.new_initial_state(seed=9)
    r = random.Random(0)
    for _ in range(16):
        engine_state.apply_action(r.choice(engine_state.legal_actions()))
    s = g.state_at(engine_state)
    assert s.information_state_string(0) == gos.GamesterState(g, s.driver).information_state_string(0)
    assert s.engine().observation(0) == engine_state.observation(0)
    _random_play(s, np.random.RandomState(8))
    assert s.is_terminal()


def test_information_state_hides_the_secret_trade() -> None:
    """Piquesept: the card the drawer gives the soloist is hidden from the other seats' information
    states (moves as each player saw them), while the two traders see it."""
    g = pyspiel.load_game("gamester_piquesept")
    rng = np.random.RandomState(9)
    for _attempt in range(5):
        s = g.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                _random_play(s, rng, limit=1)
                continue
            engine = s.engine()
            if engine.observation(s.current_player())["phase"] == "give":
                drawer = s.current_player()
                soloist = engine.observation(drawer)["soloist"]
                action = int(rng.choice(s.legal_actions()))
                code = engine.action_to_string(action)
                s.apply_action(action)
                for p in range(g.num_players()):
                    moves = s.information_state_string(p).split("\nmoves: ")[1].split()
                    text = s.information_state_string(p)
                    if p in (drawer, soloist):
                        assert code in moves
                    else:
                        assert code not in moves and f'"{code}"' not in text
                return
            _random_play(s, rng, limit=1)
    pytest.fail("no trade in five deals")
