"""The ``learned`` agent and ``gamester train`` (docs/learning.md)."""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gamester
from gamester.agents.base import EvaluatingAgent, View, make_agent
from gamester.agents.learned import LearnedAgent, action_tokens, load_model, mismatch, shipped_model_path
from gamester.core.errors import AgentError, GameError
from gamester.core.protocol import Game, State
from gamester.core.registry import load_game
from gamester.play.cli import main
from gamester.testing.leaks import twin

GAMES = ["penneech", "piquesept", "pentyrch"]


SHIPPED = sorted(shipped_model_path("x").parent.glob("*.npz"))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_weights_load_and_fit_the_game(path: Path) -> None:
    """Every shipped file is named for its game (``<game>.npz`` or ``<game>-<what>.npz``), a few MB at
    most, and fits the game it was trained on; every game ships its main file."""
    assert path.stat().st_size < 4_000_000  # a few MB at most
    model = load_model(path)
    name = model.meta["game"]
    assert path.name == f"{name}.npz" or path.name.startswith(f"{name}-")
    game = load_game(model.meta["spec"])
    model.check(game)
    assert model.w1o.shape == (game.observation_tensor_size, model.w2.shape[0])
    assert {p.name for p in SHIPPED} >= {f"{g}.npz" for g in GAMES}


def test_learned_picks_the_shipped_weights_that_fit_the_options() -> None:
    """The three-hand Piquesept reads a smaller observation than the four-hand one: ``learned`` plays
    each from its own file (``piquesept-3p.npz``), with no ``model=`` in the spec."""
    from gamester.agents.learned import cached_model, shipped_model_paths

    paths = shipped_model_paths("piquesept")
    assert [p.name for p in paths] == ["piquesept.npz", "piquesept-3p.npz"]
    for options, path in [({}, paths[0]), ({"players": 3}, paths[1])]:
        game = load_game("piquesept", **options)
        agent = make_agent("learned", game=game)
        assert isinstance(agent, LearnedAgent)
        assert agent.model is cached_model(str(path))
        assert agent.model.meta["spec"] == game.spec()
        state = game.new_initial_state(seed=1)
        view = View(state, state.current_player())
        assert agent.step(view) in view.legal_actions()


@pytest.mark.parametrize("name", GAMES)
def test_spec_parses_with_and_without_a_model_path(name: str) -> None:
    game = load_game(name)
    a = make_agent("learned", game=game, seed=3)
    assert isinstance(a, LearnedAgent)
    b = make_agent(f"learned:model={shipped_model_path(name)}", game=game)
    assert isinstance(b, LearnedAgent)
    with pytest.raises(AgentError, match="unknown parameter 'worlds'"):
        make_agent("learned:worlds=3", game=game)


def test_a_bad_model_file_is_one_clear_error(tmp_path: Path) -> None:
    game = load_game("penneech")
    with pytest.raises(AgentError, match="no such file"):
        make_agent(f"learned:model={tmp_path / 'missing.npz'}", game=game)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a model")
    with pytest.raises(AgentError, match="cannot be read"):
        make_agent(f"learned:model={junk}", game=game)
    # Weights of another game: the observation sizes differ.
    with pytest.raises(AgentError, match="observation numbers"):
        make_agent(f"learned:model={shipped_model_path('pentyrch')}", game=game)


def test_refuses_says_what_the_model_cannot_play_from_its_metadata(tmp_path: Path) -> None:
    """``LearnedAgent.refuses`` (what the web's seat check asks) agrees with making the agent, and
    reads the model's metadata without loading its weights."""
    from gamester.agents import agent_refuses
    from gamester.agents import learned as module

    module._CACHE.clear()
    cases = [("penneech", {}), ("piquesept", {}), ("piquesept", {"players": 3}), ("pentyrch", {"players": 2})]
    games = [load_game(name, **options) for name, options in cases]
    answers = [agent_refuses("learned", game) for game in games]
    assert module._CACHE == {}  # no weights loaded to answer
    # The three-hand Piquesept is played from its own shipped file (piquesept-3p.npz).
    assert [why is None for why in answers] == [True, True, True, True]
    for game, why in zip(games, answers, strict=True):
        if why is None:
            make_agent("learned", game=game)
        else:
            with pytest.raises(AgentError) as e:
                make_agent("learned", game=game)
            assert str(e.value) == why
    assert "no such file" in str(agent_refuses(f"learned:model={tmp_path / 'x.npz'}", load_game("penneech")))
    other = f"learned:model={shipped_model_path('pentyrch')}"
    assert "trained on 'pentyrch'" in str(agent_refuses(other, load_game("penneech")))
    # Named by path, the four-hand file is refused for the three-hand game, in the same words.
    four = f"learned:model={shipped_model_path('piquesept')}"
    why = agent_refuses(four, load_game("piquesept", players=3))
    assert why is not None and "observation numbers" in why
    with pytest.raises(AgentError, match="observation numbers"):
        make_agent(four, game=load_game("piquesept", players=3))


@pytest.mark.parametrize("name", GAMES)
def test_plays_legal_moves_to_the_end(name: str) -> None:
    game = load_game(name)
    n = game.num_players
    for seed in range(2):
        state = game.new_initial_state(seed=seed)
        agents = [make_agent("learned" if p % 2 == 0 else "heuristic", game=game, seed=p) for p in range(n)]
        steps = 0
        while not state.is_terminal():
            p = state.current_player()
            legal = state.legal_actions()
            a = agents[p].step(View(state, p))
            assert a in legal
            state.apply_action(a)
            steps += 1
        assert steps > 0


@pytest.mark.parametrize("name", GAMES)
def test_same_view_same_move_whatever_the_hidden_cards(name: str) -> None:
    """A twin (a real game the seat cannot tell apart from this one, its hidden cards drawn again,
    gamester.testing.leaks) gets the same move and the same values: the agent reads only the view."""
    game = load_game(name)
    agent = make_agent("learned", game=game)
    assert isinstance(agent, LearnedAgent)
    rng = random.Random(5)
    checked = differed = 0
    for seed in range(3):
        state = game.new_initial_state(seed=100 + seed)
        steps = 0
        while not state.is_terminal() and steps < 60:
            p = state.current_player()
            legal = state.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                other = twin(state, p, salt=steps)
                differed += any(
                    other.observation(q) != state.observation(q) for q in range(game.num_players) if q != p
                )
                va, vb = View(state, p), View(other, p)
                assert agent.step(va) == agent.step(vb)
                ea, eb = agent.evaluate(va), agent.evaluate(vb)
                assert ea is not None and eb is not None
                assert ea["values"] == eb["values"]
                checked += 1
            state.apply_action(make_agent("heuristic", game=game, seed=steps).step(View(state, p)))
            steps += 1
    assert checked >= 3
    assert differed, "no twin differed in a hidden card: the test would show nothing"


def game_obs_size(name: str) -> int:
    return load_game(name).observation_tensor_size


def random_afterstate_model(game: Game, hidden: int = 32, features: str = "afterstate") -> Any:
    """Untrained weights that read afterstates (and the heuristic's choice): what the features do,
    apart from what training makes of them."""
    from gamester.agents.learned import Model

    gen = np.random.default_rng(3)
    n = game.observation_tensor_size
    meta = {
        "game": game.name, "spec": game.spec(), "obs_size": n, "num_actions": game.num_distinct_actions,
        "vocab": None, "features": features, "heuristic_input": True, "scale": 1.0, "margin": 0.0,
    }  # fmt: skip
    arrays = {
        "w1": gen.normal(0, 0.1, (n + 1, hidden)), "b1": gen.normal(0, 0.1, hidden),
        "w2": gen.normal(0, 0.1, (hidden, hidden)), "b2": gen.normal(0, 0.1, hidden),
        "w3": gen.normal(0, 0.1, hidden), "b3": np.zeros(1),
    }  # fmt: skip
    return Model(arrays, meta)


@pytest.mark.parametrize("name", GAMES)
def test_afterstate_features_read_only_the_view(name: str) -> None:
    """Afterstate rows are taken in a world drawn from the seat's view: a twin (the hidden cards dealt
    again) gets the same rows, values and move."""
    from gamester.agents.learned import afterstate_tensors

    game = load_game(name)
    model = random_afterstate_model(game)
    agent = LearnedAgent()
    agent.model, agent._game = model, game
    checked = 0
    state = game.new_initial_state(seed=21)
    for steps in range(50):
        if state.is_terminal():
            break
        p = state.current_player()
        legal = state.legal_actions()
        if len(legal) > 1:
            va, vb = View(state, p), View(twin(state, p, salt=steps), p)
            assert np.array_equal(afterstate_tensors(va, legal), afterstate_tensors(vb, legal))
            ea, eb = agent.evaluate(va), agent.evaluate(vb)
            assert ea == eb and ea is not None and ea["action"] in legal
            checked += 1
        state.apply_action(make_agent("heuristic", game=game, seed=steps).step(View(state, p)))
    assert checked >= 5


def test_pentyrch_afterstates_are_the_position_each_move_makes() -> None:
    """Early in a Pentyrch game no move picks up a card the mover has not seen, so each afterstate row
    is exactly the seat's view of the real position after that move (rules: Exchange)."""
    from gamester.agents.learned import afterstate_tensors
    from gamester.games.pentyrch.views import TURNS

    game = load_game("pentyrch")
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        for steps in range(8):
            p = state.current_player()
            legal = state.legal_actions()
            rows = afterstate_tensors(View(state, p), legal)
            for row, a in zip(rows, legal, strict=True):
                after = state.clone()
                after.apply_action(a)
                assert np.array_equal(row, np.asarray(after.observation_tensor(p), dtype=np.float32))
            assert len({r.tobytes() for r in rows}) == len(legal), "two moves, one position"
            turned = afterstate_tensors(View(state, p), legal, turned=True)
            assert np.array_equal(turned, rows[:, list(TURNS[state.current_seat()])])
            state.apply_action(make_agent("heuristic", game=game, seed=steps).step(View(state, p)))


def test_unknown_features_are_one_clear_error() -> None:
    from gamester.agents.learned import Model

    model = random_afterstate_model(load_game("pentyrch"), hidden=4)
    arrays = model.arrays()
    with pytest.raises(AgentError, match="unknown features 'pixels'"):
        Model(arrays, {**model.meta, "features": "pixels"})


def test_turned_features_play_pentyrch_and_only_games_that_turn(tmp_path: Path) -> None:
    """A model reading the turned board plays Pentyrch from its view (twins alike); a game whose kit
    offers no turn refuses it in one line, and training is refused it before it starts."""

    game = load_game("pentyrch")
    model = random_afterstate_model(game, features="afterstate-turned")
    agent = LearnedAgent()
    agent.model, agent._game = model, game
    state = game.new_initial_state(seed=4)
    for steps in range(30):
        p = state.current_player()
        if len(state.legal_actions()) > 1:
            ea, eb = agent.evaluate(View(state, p)), agent.evaluate(View(twin(state, p, salt=steps), p))
            assert ea == eb and ea is not None and ea["action"] in state.legal_actions()
        state.apply_action(make_agent("heuristic", game=game, seed=steps).step(View(state, p)))
    other = load_game("piquesept")
    meta = {**model.meta, "game": "piquesept", "spec": "piquesept", "obs_size": other.observation_tensor_size}
    assert "offers no turn" in (mismatch(meta, other) or "")
    pytest.importorskip("torch")
    from gamester.learn.train import TrainConfig, train

    with pytest.raises(GameError, match="piquesept offers no turned observation"):
        train(TrainConfig(game="piquesept", out=str(tmp_path / "t"), games=8, features="afterstate-turned"))


def test_the_agent_is_deterministic_and_ignores_its_seed() -> None:
    game = load_game("piquesept")
    state = game.new_initial_state(seed=11)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    p = state.current_player()
    moves = {make_agent("learned", game=game, seed=s).step(View(state, p)) for s in range(5)}
    assert len(moves) == 1


def test_action_tokens_read_the_notation() -> None:
    assert action_tokens("pass") == ["0 pass", "0 pas", "0#1"]
    assert "1@a4" in action_tokens("JH @a4 7D")
    assert "2=2D" in action_tokens("JD f5-e4 =2D")


def test_train_without_the_extra_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    assert main(["train", "penneech", "--out", str(tmp_path / "t"), "--games", "8"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "gamester train: needs the learn extra (torch is missing): pip install 'gamester[learn]'"


def test_train_refuses_bad_budgets(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("torch")  # the learn extra (.ci/run installs it)
    assert main(["train", "penneech", "--out", str(tmp_path), "--games", "0"]) == 2
    assert "--games at least 1" in capsys.readouterr().err
    assert main(["train", "nosuchgame", "--out", str(tmp_path), "--games", "4"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamester train: ") and err.count("\n") == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "target", "teacher", "features"),
    [
        ("piquesept", "game", None, "action"),
        ("pentyrch", "game", None, "action"),
        ("penneech", "deal", None, "action"),
        ("piquesept", "game", "rollout:worlds=2", "action"),
        ("pentyrch", "game", "lookahead:worlds=2", "afterstate-turned"),
    ],
)
def test_tiny_training_is_reproducible(
    name: str, target: str, teacher: str | None, features: str, tmp_path: Path
) -> None:
    """The same seed and budget give the same weights; another seed gives others. Writes the log,
    the curve and weights the agent loads (and says which label they were trained on)."""
    pytest.importorskip("torch")
    from gamester.learn.train import TrainConfig, train

    def run(out: str, seed: int) -> dict[str, np.ndarray]:
        cfg = TrainConfig(
            game=name, out=str(tmp_path / out), games=32, seed=seed, hidden=16, games_per_job=4,
            eval_every=2, eval_deals=4, margin_deals=4, vocab_games=10, progress=False, buffer=5_000,
            target=target, teacher=teacher, teach_share=0.5, features=features,
        )  # fmt: skip
        train(cfg)
        with np.load(tmp_path / out / "model.npz") as f:
            return {k: f[k] for k in f.files}

    a, b, c = run("a", 7), run("b", 7), run("c", 8)
    assert a.keys() == b.keys()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["w1"], c["w1"])
    log = (tmp_path / "a" / "train.jsonl").read_text().splitlines()
    assert len(log) == 3 and '"vs_heuristic"' in log[1]  # two rounds, then the margins tried
    meta = load_model(tmp_path / "a" / "model.npz").meta
    assert json.loads(log[2])["margin"] == meta["margin"]
    assert meta["target"] == (target if teacher is None else "teacher")
    assert meta["teacher"] == teacher
    assert meta["features"] == features
    if features != "action":  # no action inputs but the heuristic's
        assert meta["vocab"] is None and a["w1"].shape[0] == game_obs_size(name) + 1
    if teacher is not None:  # the teacher's speed is logged like the other timings
        first = json.loads(log[0])
        assert first["taught"] > 0 and first["labels"] >= first["taught"]
        assert first["teacher_labels_per_second"] > 0 and first["times"]["teacher"] > 0
    assert (tmp_path / "a" / "curve.png").stat().st_size > 1000
    game = load_game(name)
    agent = make_agent(f"learned:model={tmp_path / 'a' / 'model.npz'}", game=game)
    state = game.new_initial_state(seed=1)
    p = state.current_player()
    assert agent.step(View(state, p)) in state.legal_actions()


def test_deal_target_labels_a_decision_by_the_race_at_its_deal_s_end() -> None:
    """With ``target="deal"`` each Penneech sample is labelled by the race's estimate from the scores
    as its deal ended (the last deal's by the game's result); the play, so the samples, are those of
    ``target="game"``."""
    from gamester.games.penneech import solver
    from gamester.learn.selfplay import SelfPlayJob, deal_labels, play_job

    game = load_game("penneech")
    race = game.kit().race
    assert race is not None
    # deal_labels: 2 * chance - 1 from the scores with the next deal's turn-up taken back.
    state = game.new_initial_state(seed=4)
    bots = [make_agent("heuristic", game=game, seed=p) for p in range(2)]
    while race.deal_number(state) == 0:
        p = state.current_player()
        state.apply_action(bots[p].step(View(state, p)))
    s = race.scores_before_next_deal(state)
    target = game.options.target
    assert deal_labels(game, race, state) == [
        2 * solver.race(s[0], s[1], target) - 1,
        2 * solver.race(s[1], s[0], target) - 1,
    ]
    meta = {"vocab": None, "heuristic_input": True}
    by = {
        t: play_job(
            SelfPlayJob("penneech", meta, None, seed=9, games=6, epsilon=0.1, heuristic_share=0.75, target=t)
        )
        for t in ("game", "deal")
    }
    a, b = by["game"], by["deal"]
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.acts, b.acts)
    assert set(np.unique(a.returns)) == {-1.0, 1.0}
    inner = b.returns[(b.returns > -1) & (b.returns < 1)]
    assert len(inner) > len(b.returns) // 4  # most decisions are in a deal that does not end the game
    assert np.all((b.returns == a.returns) | (np.abs(b.returns) < 1))  # the last deal: the result


@pytest.mark.slow
def test_deal_target_needs_a_race_of_deals(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from gamester.learn.selfplay import check_target

    check_target(load_game("penneech"), "deal")
    with pytest.raises(GameError, match="needs a game played as a race of deals"):
        check_target(load_game("piquesept"), "deal")
    with pytest.raises(GameError, match="needs a game played as a race of deals"):
        check_target(load_game("penneech", objective="deal"), "deal")
    with pytest.raises(GameError, match="unknown target"):
        check_target(load_game("penneech"), "final")
    pytest.importorskip("torch")
    assert main(["train", "piquesept", "--out", str(tmp_path), "--games", "4", "--target", "deal"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamester train: target 'deal' needs") and err.count("\n") == 1


def test_learned_is_listed() -> None:
    assert "learned" in gamester.agents.agent_names()


@pytest.mark.slow
def test_ray_backend_gives_the_same_weights(tmp_path: Path) -> None:
    """Self-play jobs carry their own seeds: under Ray they give the samples, so the weights, that
    this process gives."""
    pytest.importorskip("torch")
    pytest.importorskip("ray")
    from gamester.learn.train import TrainConfig, train

    def run(out: str, backend: str) -> dict[str, np.ndarray]:
        cfg = TrainConfig(
            game="piquesept", out=str(tmp_path / out), games=64, seed=3, hidden=16, games_per_job=8,
            eval_every=2, eval_deals=4, margin_deals=4, progress=False, buffer=5_000, backend=backend,
            workers=2,
        )  # fmt: skip
        train(cfg)
        with np.load(tmp_path / out / "model.npz") as f:
            return {k: f[k] for k in f.files}

    a, b = run("local", "local"), run("ray", "ray")
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_teacher_values_read_each_search_agent_s_evaluation() -> None:
    """``teacher_values`` maps an evaluation onto legal action ids: ``rollout``/``futures`` by
    notation, ``learned`` by id, ``lookahead`` by its candidates' mean return; others get none."""
    from gamester.learn.selfplay import teacher_values

    game = load_game("piquesept")
    state = game.new_initial_state(seed=11)
    while len(state.legal_actions()) < 3:
        state.apply_action(state.legal_actions()[0])
    p = state.current_player()
    view = View(state, p)
    a, b, c = state.legal_actions()[:3]
    ta, tb = view.action_to_string(a), view.action_to_string(b)
    assert teacher_values(view, [a, b, c], {"values": {ta: 0.75, tb: -0.25}}) == {a: 0.75, b: -0.25}
    assert teacher_values(view, [a, b, c], {"values": {b: 1.5, 999: 2.0}}) == {b: 1.5}
    lookahead = {"candidates": {tb: {"n": 3, "mean_return": 0.5}, ta: {"n": 0, "mean_return": None}}}
    assert teacher_values(view, [a, b, c], lookahead) == {b: 0.5}
    assert teacher_values(view, [a, b, c], {"action": a, "values": {}}) == {}


def test_teacher_labels_are_its_values_and_the_play_is_unchanged() -> None:
    """With a teacher, the first decision's samples are every legal action labelled by that teacher's
    own evaluation of the seat's view (a teacher rebuilt from the job's seed gives the same); the
    games played are those without a teacher (same observations)."""
    from gamester.core.rng import derive, make_rng
    from gamester.learn import selfplay

    game = load_game("piquesept")
    meta = {"vocab": None, "heuristic_input": True}
    spec = "rollout:worlds=3"
    job = selfplay.SelfPlayJob("piquesept", meta, None, seed=4, games=2, epsilon=0.1, heuristic_share=0.75)
    plain = selfplay.play_job(job)
    taught = selfplay.play_job(dataclasses.replace(job, teacher=spec))
    assert plain.returns.size and taught.returns.size > plain.returns.size
    assert taught.taught == len(plain.returns)  # every decision with a choice evaluated
    assert {r.tobytes() for r in taught.obs} == {r.tobytes() for r in plain.obs}
    # The first decision with a choice, evaluated again by hand.
    state = game.new_initial_state(seed=make_rng(4).getrandbits(62))
    while len(state.legal_actions()) == 1:
        state.apply_action(state.legal_actions()[0])
    view = View(state, state.current_player())
    legal = state.legal_actions()
    teacher = selfplay.make_teacher(game, spec, make_rng(derive(4, "teacher")).getrandbits(32))
    values = selfplay.teacher_values(view, legal, teacher.evaluate(view))
    assert len(values) == len(legal) > 1 and len(set(values.values())) > 1
    assert taught.returns[: len(legal)].tolist() == pytest.approx([values[a] for a in legal])
    assert np.array_equal(taught.acts[: len(legal), 0], legal)
    # Half the decisions: fewer labels, the same games.
    half = selfplay.play_job(dataclasses.replace(job, teacher=spec, teach_share=0.5))
    assert 0 < half.taught < taught.taught


def test_the_teacher_reads_only_the_view() -> None:
    """A twin (the seat's hidden cards dealt again) gets the same labels from a teacher seeded alike."""
    from gamester.learn.selfplay import make_teacher, teacher_values

    game = load_game("piquesept")
    checked = 0
    for seed in range(3):
        state = game.new_initial_state(seed=200 + seed)
        bots = [make_agent("heuristic", game=game, seed=p) for p in range(game.num_players)]
        for step in range(12):
            p = state.current_player()
            legal = state.legal_actions()
            if len(legal) > 1 and step % 4 == 3:
                other = twin(state, p, salt=step)
                assert any(other.observation(q) != state.observation(q) for q in range(4) if q != p)
                got = [
                    teacher_values(
                        View(s, p), legal, make_teacher(game, "rollout:worlds=4", 9).evaluate(View(s, p))
                    )
                    for s in (state, other)
                ]
                assert got[0] == got[1] and got[0]
                checked += 1
            state.apply_action(bots[p].step(View(state, p)))
    assert checked >= 3


def test_a_bad_teacher_is_one_clear_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("torch")
    cases = [
        (["--teacher", "heuristic"], "gives no evaluation to learn from"),
        (["--teacher", "rollout:wrlds=3"], "unknown parameter 'wrlds'"),
        (["--teacher", "rollout", "--teach-share", "0"], "share must be above 0"),
    ]
    for extra, words in cases:
        assert main(["train", "piquesept", "--out", str(tmp_path), "--games", "4", *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith("gamester train: ") and words in err and err.count("\n") == 1
    args = [
        "train",
        "penneech",
        "--out",
        str(tmp_path),
        "--games",
        "4",
        "--target",
        "deal",
        "--teacher",
        "rollout",
    ]
    assert main(args) == 2
    assert "does not go with it" in capsys.readouterr().err


def _a_decision(name: str, seed: int = 21) -> tuple[State, int]:
    """A state of ``name`` with a choice to make, reached by the heuristic, and the seat to move."""
    game = load_game(name)
    state = game.new_initial_state(seed=seed)
    steps = 0
    while len(state.legal_actions()) < 3 or steps < 4:
        p = state.current_player()
        state.apply_action(make_agent("heuristic", game=game, seed=steps).step(View(state, p)))
        steps += 1
    return state, state.current_player()


def _evaluation(spec: str, game: Game, view: View) -> dict[str, Any]:
    agent = make_agent(spec, game=game)
    assert isinstance(agent, EvaluatingAgent)
    return agent.evaluate(view)


@pytest.mark.parametrize("name", ["penneech", "piquesept"])
def test_rollout_finished_by_the_network_reads_only_the_view(name: str) -> None:
    """``rollout:policy=learned``: the network plays the playouts (its values differ from the
    heuristic's playouts on the same worlds), every seat from its own view of the world, so a twin
    (the hidden cards dealt again) gets the same values, and the same seed the same move."""
    state, p = _a_decision(name)
    game = load_game(name)
    spec = "rollout:worlds=6,policy=learned,seed=3"
    a = _evaluation(spec, game, View(state, p))
    b = _evaluation(spec, game, View(twin(state, p, salt=1), p))
    assert a["values"] == b["values"] and a["action"] == b["action"]
    plain = _evaluation("rollout:worlds=6,seed=3", game, View(state, p))
    assert plain["values"].keys() == a["values"].keys()
    if name == "piquesept":  # Penneech's shipped network plays the heuristic's moves (its margin)
        assert plain["values"] != a["values"], "the playouts were not the network's"


def test_rollout_policy_is_checked() -> None:
    game = load_game("piquesept")
    with pytest.raises(AgentError, match="policy 'nets': choose from heuristic, learned"):
        make_agent("rollout:policy=nets", game=game)
    with pytest.raises(AgentError, match="model= goes with policy=learned"):
        make_agent("rollout:model=x.npz", game=game)
    with pytest.raises(AgentError, match="no such file"):
        make_agent("rollout:policy=learned,model=/nonexistent.npz", game=game)
