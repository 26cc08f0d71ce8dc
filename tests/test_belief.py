"""Policy inference in the search agents (``infer=policy``: ``gamester.agents.belief``, the opponent
model of ``gamester.agents.opponent``, the kits' ``deal_history``) and the research-only ``oracle``
(``gamester.agents.oracle``, ``gamester.sim.oracle``)."""

from __future__ import annotations

import importlib
import math
import random

import pytest

import gamester
from gamester.agents import agent_refuses, make_agent
from gamester.agents.base import View, parse_agent_spec, split_agents
from gamester.agents.belief import InferredWorlds, Worlds, systematic, world_source
from gamester.agents.learned import LearnedAgent, heuristic_move
from gamester.agents.opponent import Fit, PolicyModel, policy_model
from gamester.core.errors import AgentError
from gamester.core.kit import Kit
from gamester.core.protocol import Game, State
from gamester.core.rng import make_rng
from gamester.sim.oracle import OracleView, seat_view
from gamester.sim.tournament import play_game

FIT = Fit(temperature=0.15, bonus=1.5, floor=0.05)
GAMES = ("penneech", "piquesept")


def _heuristic_game(game: Game, plays: int, seed: int = 4, chance: list[object] | None = None) -> State:
    """``game`` after ``plays`` moves of the heuristic in every seat (from ``chance`` if given)."""
    kit = game.kit()
    state = game.new_initial_state(seed=seed, chance=chance)
    rng = make_rng(seed)
    for _ in range(plays):
        legal = state.legal_actions()
        state.apply_action(legal[0] if len(legal) == 1 else kit.playout(state, legal, rng))
    return state


def _hand_made_penneech() -> State:
    """A Penneech deal laid out by hand (first dealer fixed, so the one chance entry is the pack:
    the hands dealt from the top, then the turn-ups), played by the heuristic until seat 1 is to
    play with seat 0 having played at least twice."""
    game = gamester.load_game("penneech(first_dealer=0)")
    top = "KS 9H 8S 2D QD 5C TC 3S 6H AD 4S JC 7C QH 9D 2S AH 5D 8H TS JH 3C 6S KD 4H 7S"
    rest = "QC 9C 2H AC 5S 8C TH JD 3H 6C KC 4D 7D QS 9S 2C AS 5H 8D TD JS 3D 6D KH 4C 7H"
    pack = f"{top} {rest}".split(" ")
    assert len(set(pack)) == 52
    for plays in range(5, 12):
        state = _heuristic_game(game, plays, chance=[pack])
        if state.current_player() == 1 and state.observation(1)["played"][0].__len__() >= 2:
            return state
    raise AssertionError("the hand-made deal never reached the position")


def _deal_start(state: State) -> int:
    """Where the current deal's moves begin in the record (public facts only)."""
    actions = len(state.history_strings())
    if state.game.name == "penneech":
        obs = state.public_observation()
        return actions - (14 - sum(obs["hand_sizes"]))
    return 0  # a one-deal Piquesept game


def _played_on(start: State, actions: list[int]) -> State:
    """A copy of ``start`` with ``actions`` played (a deal history replayed)."""
    replayed = start.clone()
    for a in actions:
        replayed.apply_action(a)
    return replayed


def _by_hand(game: Game, world: State, me: int, fit: Fit) -> float:
    """The log of the product, over the other seats' moves of this deal in ``world``, of the
    probability of the move made: replayed from the world's record, each valued by the ``learned``
    agent itself (its evaluate), the softmax worked out here."""
    rec = world.record()
    s = game.new_initial_state(seed=0, chance=rec["chance"])
    start = _deal_start(world)
    agent = LearnedAgent(game=game)
    total = 0.0
    for i, text in enumerate(rec["actions"]):
        a = s.string_to_action(text)
        p = s.current_player()
        legal = s.legal_actions()
        if i >= start and p != me and len(legal) > 1:
            view = View(s, p)
            out = agent.evaluate(view)
            assert out is not None
            h = heuristic_move(view, legal)
            z = {b: out["values"][b] / fit.temperature + (fit.bonus if b == h else 0.0) for b in legal}
            top = max(z.values())
            share = math.exp(z[a] - top) / sum(math.exp(v - top) for v in z.values())
            total += math.log((1 - fit.floor) * share + fit.floor / len(legal))
        s.apply_action(a)
    return total


def test_the_weights_are_the_product_of_the_model_s_probabilities_on_a_hand_made_deal() -> None:
    """On a deal laid out by hand, each candidate world's log-weight is the sum over the other
    seat's three plays of the log of the model's probability of the card it played, worked out by
    hand from the ``learned`` agent's own values (``_by_hand``)."""
    state = _hand_made_penneech()
    game = state.game
    view = View(state, 1)
    model = PolicyModel(game, fit=FIT)
    worlds = [view.determinize(make_rng(k)) for k in range(6)]
    got = model.log_likelihoods(view, worlds)
    want = [_by_hand(game, w, 1, FIT) for w in worlds]
    assert got == pytest.approx(want, rel=1e-4, abs=1e-4)
    assert len(set(round(x, 6) for x in got)) > 1  # the worlds differ in how likely they make the plays


@pytest.mark.parametrize("name", GAMES)
def test_the_weights_are_exact_in_played_positions(name: str) -> None:
    """The same check on positions deep in a heuristic game of each game (Piquesept: the
    trade's hidden give included, for a seat outside the trade)."""
    game = gamester.load_game(name)
    model = PolicyModel(game, fit=FIT)
    checked = 0
    for plays in (9, 17, 23):
        state = _heuristic_game(game, plays)
        if state.is_terminal():
            continue
        me = state.current_player()
        view = View(state, me)
        worlds = [view.determinize(make_rng(k)) for k in range(3)]
        got = model.log_likelihoods(view, worlds)
        assert got == pytest.approx([_by_hand(game, w, me, FIT) for w in worlds], rel=1e-4, abs=1e-4)
        checked += any(x != 0.0 for x in got)
    assert checked >= 2


@pytest.mark.parametrize("spec", ["penneech", "piquesept", "piquesept(deals=2)", "pentyrch"])
def test_deal_history_replays_to_the_world_from_how_the_deal_stood(spec: str) -> None:
    """``kit.deal_history(world)`` (and the base class's, from the record) gives a start from which
    the actions replay to the world itself; the start looks to the seat as the real deal did."""
    game = gamester.load_game(spec)
    kit = game.kit()
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    seen = {0: state.observation_tensor(0)}  # actions so far -> seat 0's tensor then
    checked = 0
    while not state.is_terminal() and checked < 12:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        seen[len(state.history_strings())] = state.observation_tensor(0)
        if rng.random() < 0.2 and not state.is_terminal():
            world = state.determinize(0, make_rng(checked))
            for start, actions in (kit.deal_history(world), Kit.deal_history(kit, world)):
                replayed = _played_on(start, actions)
                assert replayed.history_strings() == world.history_strings()
                for q in range(game.num_players):
                    assert replayed.observation(q) == world.observation(q)
                    assert replayed.observation_tensor(q) == world.observation_tensor(q)
            start, actions = kit.deal_history(world)
            before = len(state.history_strings()) - len(actions)
            assert start.observation_tensor(0) == seen[before]
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize(
    ("spec", "plays"), [("penneech", 30), ("piquesept", 10), ("piquesept(deals=2)", 40), ("pentyrch", 10)]
)
def test_deal_history_of_a_world_of_a_position(spec: str, plays: int) -> None:
    """A state read from a position (docs/positions.md) has worlds that are positions of their own:
    ``deal_history`` replays them from where their record starts, never from the game's start (a
    Pentyrch position's world had no chance to replay there; a Piquesept match's later deal started
    again at its first); a position that holds its deal's plays still gives them all."""
    game = gamester.load_game(spec)
    kit = game.kit()
    state = _heuristic_game(game, plays, seed=3)
    read = game.read_position(state.position())
    me = read.current_player()
    for k in range(3):
        world = read.determinize(me, make_rng(k))
        start, actions = kit.deal_history(world)
        replayed = _played_on(start, actions)
        assert replayed.history_strings() == world.history_strings()
        for q in range(game.num_players):
            assert replayed.observation(q) == world.observation(q)
        if spec != "pentyrch":  # the whole game is Pentyrch's deal: its position starts the record
            assert len(actions) == len(kit.deal_history(state.determinize(me, make_rng(k)))[1])


def test_deal_history_of_a_match_played_on_from_a_position() -> None:
    """A Piquesept match read from a position in its second deal and played on into the next: its
    deal history (and its worlds') starts where the engine dealt the current deal."""
    game = gamester.load_game("piquesept(deals=3)")
    kit = game.kit()
    state = game.read_position(_heuristic_game(game, 40, seed=3).position())
    rng = make_rng(1)
    deals = set()
    while not state.is_terminal():
        me = state.current_player()
        for world in (state, state.determinize(me, make_rng(len(state.history_strings())))):
            start, actions = kit.deal_history(world)
            replayed = _played_on(start, actions)
            assert replayed.history_strings() == world.history_strings()
            assert replayed.observation(me) == world.observation(me)
            assert start.observation(me)["deal"] == world.observation(me)["deal"]
            assert not start.observation(me)["tricks"] and not start.observation(me)["trick"]
        deals.add(state.observation(0)["deal"])
        legal = state.legal_actions()
        state.apply_action(legal[0] if len(legal) == 1 else kit.playout(state, legal, rng))
    assert deals == {1, 2}


@pytest.mark.parametrize("name", [*GAMES, "pentyrch"])
def test_resampled_worlds_stay_consistent_with_the_seat_s_knowledge(name: str) -> None:
    """Every world handed out after the weighting is one the exact sampler drew: it shows the seat its
    own view and tensor, offers its moves, replays from its record and keeps the game's invariants."""
    game = gamester.load_game(name)
    invariants = importlib.import_module(f"tests.invariants_{name}")
    plays = 60 if name == "pentyrch" else 13
    state = _heuristic_game(game, plays, seed=8)
    me = state.current_player()
    view = View(state, me)
    worlds = InferredWorlds(view, make_rng(3), policy_model(game), 8)
    for _ in range(10):
        w = worlds.draw()
        assert w.observation(me) == state.observation(me)
        assert w.observation_tensor(me) == state.observation_tensor(me)
        assert w.legal_actions() == state.legal_actions()
        assert gamester.replay(w.record()).record() == w.record()
        invariants.check(w)
    stats = worlds.stats()
    assert stats["candidates"] >= 8 and 1 <= stats["distinct"] <= stats["kept"] <= stats["candidates"]


def test_a_world_kept_twice_comes_back_with_only_the_unseen_redrawn() -> None:
    """A candidate the resampling keeps twice is handed out as two states with the same hands, the
    second with the unturned stock (which no seat has seen) drawn afresh."""
    import json

    state = _hand_made_penneech()
    view = View(state, 1)
    sharp = PolicyModel(state.game, fit=Fit(0.01, 5.0, 0.001))
    worlds = InferredWorlds(view, make_rng(1), sharp, 16)
    drawn = [worlds.draw()]
    drawn += [worlds.draw() for _ in range(worlds.kept - 1)]
    assert worlds.kept == 16 and worlds.distinct < 16  # the weights kept some candidate twice
    assert len({id(w) for w in drawn}) == len(drawn)
    hands = [json.dumps([w.observation(q) for q in (0, 1)]) for w in drawn]
    i, j = next((i, j) for i in range(16) for j in range(i + 1, 16) if hands[i] == hands[j])
    assert drawn[i].record()["chance"][-1][:16] == drawn[j].record()["chance"][-1][:16]
    assert drawn[i].record()["chance"][-1][16:] != drawn[j].record()["chance"][-1][16:]


def test_systematic_resampling_keeps_each_world_in_proportion() -> None:
    weights = [0.5, 0.0, 0.25, 0.125, 0.125]
    for seed in range(20):
        got = systematic(make_rng(seed), weights, 8)
        assert got == sorted(got) and 1 not in got
        for i, w in enumerate(weights):
            assert abs(got.count(i) - 8 * w) < 1
    assert systematic(make_rng(0), [1.0, 1.0], 1) in ([0], [1])


def test_without_other_players_moves_every_candidate_is_searched() -> None:
    """At the first move of a deal nothing has been seen: all candidates are equally likely and all
    are kept (no draws wasted)."""
    game = gamester.load_game("piquesept")
    state = game.new_initial_state(seed=2)
    view = View(state, state.current_player())
    worlds = InferredWorlds(view, make_rng(1), policy_model(game), 8)
    worlds.draw()
    assert worlds.stats()["kept"] == 8


AGENTS = {
    "penneech": ["rollout:worlds=3", "futures:worlds=3,bank=50", "ismcts:iterations=12", "pimc:worlds=1"],
    "piquesept": ["rollout:worlds=3", "ismcts:iterations=12"],
    "pentyrch": ["lookahead:worlds=2"],
}


@pytest.mark.parametrize(("name", "spec"), [(g, s) for g, specs in AGENTS.items() for s in specs])
def test_every_search_agent_takes_infer_policy_and_is_deterministic_with_a_seed(name: str, spec: str) -> None:
    game = gamester.load_game(name)
    state = _heuristic_game(game, 40 if name == "pentyrch" else 9, seed=6)
    if spec.startswith("pimc"):
        state = _heuristic_game(game, 24, seed=6)
    view = View(state, state.current_player())
    full = f"{spec},infer=policy,pool=8"
    first = make_agent(full, game=game, seed=5).evaluate(view)
    again = make_agent(full, game=game, seed=5).evaluate(View(state.clone(), state.current_player()))
    assert first is not None and again is not None
    assert first["action"] in view.legal_actions()
    for out in (first, again):
        out["inference"].pop("seconds")  # the clock's, not the search's
    assert first == again
    assert first["inference"]["candidates"] >= 8


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("rollout:infer=maybe", "infer='maybe': choose from none, policy"),
        ("ismcts:infer=", "infer='': choose from none, policy"),
        ("futures:infer=2", "infer='2': choose from heuristic, policy, none"),
        ("lookahead:pool=1,infer=policy", "parameter pool='1' must be at least 2"),
        ("pimc:pool=x", "parameter pool='x' must be a whole number"),
    ],
)
def test_malformed_infer_specs_are_refused_in_one_line(spec: str, words: str) -> None:
    with pytest.raises(AgentError) as e:
        make_agent(spec, game=gamester.load_game("pentyrch" if "lookahead" in spec else "penneech"))
    assert words in str(e.value) and "\n" not in str(e.value)


def test_futures_keeps_its_old_infer_spellings() -> None:
    game = gamester.load_game("penneech")
    assert make_agent("futures:infer=1,bank=50", game=game).infer == "heuristic"  # type: ignore[attr-defined]
    assert make_agent("futures:infer=0,bank=50", game=game).infer == "none"  # type: ignore[attr-defined]
    assert make_agent("futures:bank=50", game=game).infer == "heuristic"  # type: ignore[attr-defined]


def test_plain_worlds_are_the_sampler_s_draws() -> None:
    """``infer=none`` hands out exactly what ``determinize`` draws with the same generator (the
    agents' decisions without inference are unchanged: tests/test_agent_fingerprints.py)."""
    state = _hand_made_penneech()
    view = View(state, 1)
    plain = world_source(view, make_rng(4), "none", 8)
    assert type(plain) is Worlds and plain.stats() is None
    rng = make_rng(4)
    for _ in range(3):
        assert plain.draw().record() == view.determinize(rng).record()


# -- the oracle -------------------------------------------------------------------------------------
def test_oracle_spec_wraps_a_whole_spec() -> None:
    inner = "rollout:worlds=3,prune=0"
    assert parse_agent_spec(f"oracle:{inner}") == ("oracle", {"agent": inner})
    assert split_agents(f"oracle:{inner},heuristic") == [f"oracle:{inner}", "heuristic"]
    game = gamester.load_game("piquesept")
    bad_specs = [("oracle", "name the search it runs"), ("oracle:oracle:rollout", "cannot be an oracle")]
    for bad, words in bad_specs:
        with pytest.raises(AgentError, match=words):
            make_agent(bad, game=game)
    with pytest.raises(AgentError, match="unknown parameter"):
        make_agent("oracle:rollout:bogus=1", game=game)


def test_oracle_refuses_a_seat_s_view_and_every_table() -> None:
    game = gamester.load_game("piquesept")
    state = game.new_initial_state(seed=3)
    agent = make_agent("oracle:rollout:worlds=2", game=game, seed=1)
    with pytest.raises(AgentError, match="research harness"):
        agent.step(View(state, state.current_player()))
    assert agent_refuses("oracle:rollout:worlds=2", game) is not None
    assert isinstance(seat_view(agent, state, 0), OracleView)
    assert type(seat_view(make_agent("heuristic", game=game), state, 0)) is View


def test_oracle_worlds_hold_every_hand_and_redraw_only_the_future() -> None:
    """An oracle's world has every hand of the true state; Penneech's unturned stock is drawn
    afresh (no seat has seen it), so the oracle does not know the turn-ups to come."""
    state = _hand_made_penneech()
    view = OracleView(state, 1)
    worlds = [view.determinize(make_rng(k)) for k in range(4)]
    for w in worlds:
        for q in (0, 1):
            assert w.observation(q) == state.observation(q)
    stocks = {tuple(w.record()["chance"][-1][16:]) for w in worlds}
    assert len(stocks) == 4 and tuple(state.record()["chance"][-1][16:]) not in stocks
    piq = _heuristic_game(gamester.load_game("piquesept"), 9)
    w = OracleView(piq, 0).determinize(make_rng(1))
    assert [w.observation(q) for q in range(4)] == [piq.observation(q) for q in range(4)]


def test_a_tournament_game_hands_the_oracle_the_true_hands() -> None:
    game = gamester.load_game("piquesept")
    res = play_game(game, ["oracle:rollout:worlds=2", "rollout:worlds=2", "heuristic", "heuristic"], 11)
    assert len(res["returns"]) == 4 and res["moves"][0] > 0


def test_the_pool_default_is_spelt_out_in_every_signature() -> None:
    """A compiled class shows its signature only when every default is a literal (make_agent reads
    it): each agent spells out ``pool=32``, which must stay the module's ``POOL``."""
    import inspect

    from gamester.agents.belief import POOL

    for name in ("rollout", "futures", "ismcts", "pimc", "lookahead"):
        factory = gamester.agents.base._factory(name)
        params = inspect.signature(factory).parameters
        assert params["pool"].default == POOL and params["infer"].default in ("none", "heuristic")
