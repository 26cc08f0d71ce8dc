"""Self-play for training: many games at once, one batched numpy forward pass per step.

A job is a plain picklable :class:`SelfPlayJob` (its own seed, the weights as arrays), so it runs the
same in this process, in a worker process or on a Ray node (``gamester.sim.backend.run_jobs``), and the
same job always gives the same samples. Each seat of each game is either the learner (the network,
epsilon-greedy) or ``heuristic``; every decision with a choice becomes a sample (the seat's observation,
the action's inputs, and at the end its label), whoever made it: deep Monte Carlo regresses the
label of the actions taken. The label is the seat's final return (``target="game"``) or, in a game
played as a race of deals (``game.kit().race``), the game's own estimate of that return from the scores
at the end of the sample's deal (``target="deal"``): one deal's cards instead of every later deal's.

With a *teacher* (a search agent's spec, ``rollout:worlds=8``), the labels come from search instead (one
step of expert iteration): at a sampled share of the decisions with a choice, the teacher evaluates the
seat's view, and each legal action it gives a value becomes a sample labelled by that value. The
teacher gets the same :class:`View` as any agent, so it reads only what the seat knows. The play is the
same as without it (the teacher has generators of its own); only which samples there are and their
labels change.

With afterstate features (``meta["features"]`` ``"afterstate"`` or ``"afterstate-turned"``,
``gamester.agents.learned``) a sample's observation is the seat's view of the position its action led
to, and only the heuristic's input is an action input.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gamester.agents.base import Agent, View, agent_seed, make_agent
from gamester.agents.learned import Model, action_tokens, afterstate_tensors, heuristic_move
from gamester.core.errors import AgentError, GameError
from gamester.core.kit import DealRace
from gamester.core.protocol import Game, State
from gamester.core.registry import load_game
from gamester.core.rng import below, derive, make_rng, unit

MAX_TOKENS = 48  # action inputs kept per sample (a notation has far fewer)
TARGETS = ("game", "deal")  # what a sample's label is (the module's docstring, docs/learning.md)


def check_target(game: Game, target: str) -> None:
    """One clear line (GameError) if ``target`` cannot label ``game``'s samples."""
    if target not in TARGETS:
        raise GameError(f"unknown target {target!r}: choose from {', '.join(TARGETS)}")
    if target == "deal" and game.kit().race is None:
        raise GameError(f"target 'deal' needs a game played as a race of deals, and {game.spec()!r} is not")


def deal_labels(game: Game, race: DealRace, state: State) -> list[float]:
    """Each seat's estimated return right after a deal ended: its chance to win from the scores as
    the deal ended (the race's own estimate), mapped onto the game's range of returns."""
    lo, hi, _ = game.bounds()
    scores = race.scores_before_next_deal(state)
    return [lo + (hi - lo) * race.chance(scores, p) for p in range(game.num_players)]


@dataclass(frozen=True)
class SelfPlayJob:
    game: str  # the game's spec
    meta: dict[str, Any]
    arrays: dict[str, Any] | None  # None: the learner plays uniformly at random
    seed: int
    games: int
    epsilon: float
    heuristic_share: float
    target: str = "game"  # TARGETS
    teacher: str | None = None  # an agent spec whose evaluations label the samples (expert iteration)
    teach_share: float = 1.0  # the share of decisions with a choice the teacher labels


@dataclass
class Samples:
    obs: Any  # float16 (N, obs_size)
    acts: Any  # int32 (N, MAX_TOKENS), -1 padded
    returns: Any  # float32 (N,): the labels (final returns, or with target 'deal' the deals' ends)
    games: int = 0
    decisions: int = 0  # every move played, forced ones included
    times: dict[str, float] = field(default_factory=dict)
    taught: int = 0  # decisions the teacher evaluated (its samples are every action it valued there)


def teacher_values(view: View, legal: list[int], evaluation: dict[str, Any] | None) -> dict[int, float]:
    """Each legal action's value in a search agent's evaluation (``evaluate``), in units of return.

    ``rollout`` and ``futures`` give ``values`` by the action's notation (``learned`` by its id);
    ``lookahead`` gives its candidates' ``mean_return`` by notation. Actions the search left out
    (lookahead's other candidates, a decision the heuristic makes by rule) get none.
    """
    if not evaluation:
        return {}
    by_text = {view.action_to_string(a): a for a in legal}
    out: dict[int, float] = {}
    values = evaluation.get("values")
    if isinstance(values, dict):
        for key, v in values.items():
            a = by_text.get(key) if isinstance(key, str) else key if key in legal else None
            if a is not None and v is not None:
                out[a] = float(v)
    candidates = evaluation.get("candidates")
    if isinstance(candidates, dict):
        for key, c in candidates.items():
            a = by_text.get(key)
            if a is not None and isinstance(c, dict) and c.get("mean_return") is not None:
                out[a] = float(c["mean_return"])
    return out


def check_teacher(game: Game, spec: str, target: str, share: float) -> None:
    """One clear line (GameError) if ``spec`` cannot teach ``game``: an agent that gives values, a share
    in (0, 1], and the teacher's labels are not mixed with ``target="deal"``."""
    if not 0.0 < share <= 1.0:
        raise GameError(f"the teacher's share must be above 0 and at most 1, not {share}")
    if target != "game":
        raise GameError(f"a teacher labels the samples itself: target {target!r} does not go with it")
    try:
        make_teacher(game, spec, 0)
    except AgentError as e:
        raise GameError(f"teacher {spec!r}: {e}") from None


def make_teacher(game: Game, spec: str, seed: int) -> Agent:
    """The teacher for a job: the agent ``spec`` names, seeded; one clear line if it has no values."""
    agent = make_agent(spec, game=game, seed=seed)
    if type(agent).evaluate is Agent.evaluate:
        raise GameError(f"teacher {spec!r} gives no evaluation to learn from: choose a search agent")
    return agent


_ROWS: dict[str, list[int]] = {}  # notation -> action inputs, for the vocabulary of _ROWS_VOCAB
_ROWS_VOCAB: list[dict[str, int] | None] = [None]


def action_row(model_vocab: dict[str, int] | None, view: View, action: int) -> list[int]:
    if model_vocab is None:
        return [action]
    if _ROWS_VOCAB[0] is not model_vocab:
        _ROWS.clear()
        _ROWS_VOCAB[0] = model_vocab
    text = view.action_to_string(action)
    row = _ROWS.get(text)
    if row is None:
        if len(_ROWS) > 200_000:
            _ROWS.clear()
        row = _ROWS[text] = [model_vocab[t] for t in action_tokens(text) if t in model_vocab][:MAX_TOKENS]
    return row


_VOCABS: dict[tuple[str, ...], dict[str, int]] = {}


def _vocab(meta: dict[str, Any]) -> dict[str, int] | None:
    if meta.get("vocab") is None:
        return None
    key = tuple(meta["vocab"])
    v = _VOCABS.get(key)
    if v is None:
        _VOCABS.clear()
        v = _VOCABS[key] = {t: i for i, t in enumerate(key)}
    return v


class _Seen:
    """The observation a decision's samples read: the seat's own, or with afterstate features the
    one after each action (worked out once, when first needed)."""

    def __init__(self, view: View, legal: list[int], obs: Any, afterstate: bool, turned: bool) -> None:
        self.view, self.legal, self.obs, self.afterstate, self.turned = view, legal, obs, afterstate, turned
        self._after: Any = None

    def rows(self) -> Any:
        if self._after is None:
            self._after = afterstate_tensors(self.view, self.legal, self.turned)
        return self._after

    def row(self, action: int) -> Any:
        return self.rows()[self.legal.index(action)] if self.afterstate else self.obs


def play_job(job: SelfPlayJob) -> Samples:
    game = load_game(job.game)
    check_target(game, job.target)
    race = game.kit().race if job.target == "deal" else None
    rng = make_rng(job.seed)
    teach_rng = make_rng(derive(job.seed, "teacher"))  # the teacher's draws, apart from the play's
    teacher = None if job.teacher is None else make_teacher(game, job.teacher, teach_rng.getrandbits(32))
    model = None if job.arrays is None else Model(job.arrays, job.meta)
    vocab = _vocab(job.meta)
    features = job.meta.get("features", "action")
    afterstate, turned = features != "action", features == "afterstate-turned"
    n = game.num_players
    width = 0 if afterstate else game.num_distinct_actions if vocab is None else len(vocab)
    hcol: int | None = width if job.meta.get("heuristic_input") else None
    states: list[State] = []
    roles: list[list[bool]] = []  # True: the seat plays heuristic; False: the learner
    for _ in range(job.games):
        states.append(game.new_initial_state(seed=rng.getrandbits(62)))
        row = [unit(rng) < job.heuristic_share for _ in range(n)]
        if all(row):  # at least one learner seat per game
            row[below(rng, n)] = False
        roles.append(row)
    obs_rows: list[Any] = []
    act_rows: list[list[int]] = []
    owners: list[tuple[int, int, int]] = []  # (game, player, deals ended before it) of each sample
    taught_obs: list[Any] = []  # the teacher's samples and their labels
    taught_acts: list[list[int]] = []
    taught_values: list[float] = []
    taught = 0
    t_teacher = 0.0
    finals: dict[int, list[float]] = {}  # game -> its returns
    ends: list[list[list[float]]] = [[] for _ in states]  # game -> the labels at each deal's end
    deal_no = [0 if race is None else race.deal_number(st) for st in states]
    t_engine = t_features = t_forward = 0.0
    learn_returns = teacher is None  # with a teacher, its values are the only labels
    decisions = 0
    active = list(range(job.games))

    def inputs(view: View, a: int, h: int | None) -> list[int]:
        r = [] if afterstate else action_row(vocab, view, a)
        return [*r, hcol] if hcol is not None and a == h else r

    while active:
        pending: list[tuple[int, int, View, list[int], Any, list[list[int]]]] = []
        t0 = time.perf_counter()
        still: list[int] = []
        for g in active:
            st = states[g]
            if st.is_terminal():
                finals[g] = st.returns()
                continue
            if race is not None and race.deal_number(st) != deal_no[g]:  # a deal ended last move
                ends[g].append(deal_labels(game, race, st))
                deal_no[g] = race.deal_number(st)
            still.append(g)
            p = st.current_player()
            legal = st.legal_actions()
            decisions += 1
            if len(legal) == 1:
                st.apply_action(legal[0])
                continue
            view = View(st, p)
            t1 = time.perf_counter()
            obs = view.observation_tensor()
            seen = _Seen(view, legal, obs, afterstate, turned)
            heuristic_seat = roles[g][p]
            h = heuristic_move(view, legal) if heuristic_seat or hcol is not None else None
            if teacher is not None and unit(teach_rng) < job.teach_share:
                t2 = time.perf_counter()
                values = teacher_values(view, legal, teacher.evaluate(view))
                t_teacher += time.perf_counter() - t2
                taught += 1
                for a in legal:
                    if a in values:
                        taught_obs.append(seen.row(a))
                        taught_acts.append(inputs(view, a, h))
                        taught_values.append(values[a])
            if heuristic_seat or model is None or unit(rng) < job.epsilon:
                a = h if heuristic_seat and h is not None else legal[below(rng, len(legal))]
                if learn_returns:
                    obs_rows.append(seen.row(a))
                    act_rows.append(inputs(view, a, h))
                    owners.append((g, p, len(ends[g])))
                t_features += time.perf_counter() - t1
                st.apply_action(a)
                continue
            rows = [inputs(view, a, h) for a in legal]
            t_features += time.perf_counter() - t1
            pending.append((g, p, view, legal, seen.rows() if afterstate else obs, rows))
        active = still
        if pending and model is not None:
            t1 = time.perf_counter()
            if afterstate:  # one observation row per legal action
                obs_m = np.concatenate([x[4] for x in pending])
                owner = np.arange(len(obs_m), dtype=np.intp)
            else:
                obs_m = np.asarray([x[4] for x in pending], dtype=np.float32)
                owner = np.asarray([i for i, x in enumerate(pending) for _ in x[3]], dtype=np.intp)
            q = model.values(obs_m, owner, [r for x in pending for r in x[5]])
            t_forward += time.perf_counter() - t1
            k = 0
            for g, p, _view, legal, obs, rows in pending:
                best = k + int(np.argmax(q[k : k + len(legal)]))
                i = best - k
                k += len(legal)
                if learn_returns:
                    obs_rows.append(obs[i] if afterstate else obs)
                    act_rows.append(rows[i])
                    owners.append((g, p, len(ends[g])))
                states[g].apply_action(legal[i])
        t_engine += time.perf_counter() - t0
    labels = [ends[g][k][p] if k < len(ends[g]) else finals[g][p] for g, p, k in owners]
    if not learn_returns:
        obs_rows, act_rows, labels = taught_obs, taught_acts, taught_values
    size = game.observation_tensor_size
    obs_arr = np.asarray(obs_rows, dtype=np.float16).reshape(len(obs_rows), size)
    acts = np.full((len(act_rows), MAX_TOKENS), -1, dtype=np.int32)
    for i, arow in enumerate(act_rows):
        acts[i, : len(arow)] = arow
    engine = t_engine - t_features - t_forward  # t_features holds the teacher's time too
    times = {"engine": engine, "features": t_features - t_teacher, "forward": t_forward}
    if teacher is not None:
        times["teacher"] = t_teacher
    return Samples(
        obs_arr,
        acts,
        np.asarray(labels, dtype=np.float32),
        games=job.games,
        decisions=decisions,
        times=times,
        taught=taught,
    )


def build_vocab(game: Game, seed: int, games: int = 200) -> list[str]:
    """The notation tokens of every legal action met in ``games`` games (heuristic and random
    players, seeded), sorted: the action inputs of a game with too many actions for a dense id."""
    rng = make_rng(seed)
    seen: set[str] = set()
    for g in range(games):
        st = game.new_initial_state(seed=rng.getrandbits(62))
        agents = [
            make_agent("heuristic" if (g + p) % 2 else "random", game=game, seed=derive(seed, g, p))
            for p in range(game.num_players)
        ]
        while not st.is_terminal():
            p = st.current_player()
            view = View(st, p)
            for a in st.legal_actions():
                seen.update(action_tokens(view.action_to_string(a)))
            st.apply_action(agents[p].step(view))
    return sorted(seen)


def evaluate(game: Game, model: Model, deals: int, seed: int, margin: float = 0.0) -> list[float]:
    """The learner's return in seat ``d % players`` of deal ``d`` against ``heuristic`` everywhere else:
    one number per deal. With returns summing to zero, a heuristic in that seat averages zero."""
    from gamester.agents.learned import LearnedAgent

    n = game.num_players
    out: list[float] = []
    learner = LearnedAgent(game=None, margin=margin)
    learner.model, learner._game = model, game
    for d in range(deals):
        st = game.new_initial_state(seed=seed + d)
        me = d % n
        agents: list[Agent] = [
            learner if p == me else make_agent("heuristic", game=game, seed=agent_seed(seed + d, p))
            for p in range(n)
        ]
        while not st.is_terminal():
            p = st.current_player()
            st.apply_action(agents[p].step(View(st, p)))
        out.append(float(st.returns()[me]))
    return out
