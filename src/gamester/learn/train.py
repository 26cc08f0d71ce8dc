"""``gamester train``: deep Monte Carlo from self-play (docs/learning.md).

Rounds of: self-play jobs with the current weights (numpy, batched; any backend), their samples into
a replay buffer, Adam steps on the squared error between the network's estimate and the seat's final
return. Every few rounds the learner plays fixed deals against ``heuristic`` for the curve. Everything
is seeded and the network trains on one thread, so the same seed and the same budget in games give the
same weights on the same machine. With a teacher (``TrainConfig.teacher``, a search agent's spec) the
labels are the teacher's values of every legal action at the decisions it evaluates, one step of
expert iteration, instead of final returns. A budget in hours stops after the round that crosses it,
so how many games that is depends on the machine (the log says, and ``--games`` replays it).
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from gamester.agents.learned import DENSE_LIMIT, FEATURES, Model
from gamester.core.errors import GameError
from gamester.core.protocol import Game
from gamester.core.registry import load_game
from gamester.core.rng import derive
from gamester.learn.selfplay import (
    MAX_TOKENS,
    SelfPlayJob,
    build_vocab,
    check_target,
    check_teacher,
    evaluate,
    play_job,
)
from gamester.sim.backend import check_backend, ray_session, run_jobs
from gamester.sim.stats import mean_ci


@dataclass
class TrainConfig:
    game: str
    out: str
    hours: float | None = None
    games: int | None = None
    seed: int = 0
    backend: str = "local"
    workers: int = 1
    ray_address: str | None = None
    hidden: int = 256
    games_per_job: int = 16
    jobs_per_round: int = 4
    epsilon: float = 0.1
    heuristic_share: float = 0.75  # most seats play heuristic: the returns then value its continuation
    buffer: int = 150_000  # samples, and at most about 200 MB of observations
    batch: int = 256
    reuse: float = 4.0  # gradient samples per new sample
    lr: float = 3e-4
    eval_every: int = 10  # rounds
    eval_deals: int = 200
    vocab_games: int = 200  # seeded games whose notation tokens make the vocabulary (many actions)
    margin_deals: int = 400  # deals per margin tried at the end
    heuristic_input: bool = True  # an action input on for the heuristic's move (docs/learning.md)
    target: str = "game"  # the label: "game" (final return) or "deal" (selfplay.TARGETS, docs/learning.md)
    teacher: str | None = None  # a search agent's spec: its values are the labels (expert iteration)
    teach_share: float = 1.0  # the share of decisions with a choice the teacher evaluates
    features: str = "action"  # how the network reads an action: learned.FEATURES
    progress: bool = True


class Net(nn.Module):
    def __init__(self, inputs: int, hidden: int) -> None:
        super().__init__()
        self.l1 = nn.Linear(inputs, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.l3 = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))
        return y.squeeze(-1)


def to_model(net: Net, meta: dict[str, Any]) -> Model:
    with torch.no_grad():
        arrays = {
            "w1": net.l1.weight.detach().numpy().T.copy(),
            "b1": net.l1.bias.detach().numpy().copy(),
            "w2": net.l2.weight.detach().numpy().T.copy(),
            "b2": net.l2.bias.detach().numpy().copy(),
            "w3": net.l3.weight.detach().numpy().reshape(-1).copy(),
            "b3": net.l3.bias.detach().numpy().copy(),
        }
    return Model(arrays, meta)


class Buffer:
    """The newest ``capacity`` samples (a ring), sampled uniformly by a seeded generator."""

    def __init__(self, capacity: int, obs_size: int) -> None:
        self.obs = np.zeros((capacity, obs_size), dtype=np.float16)
        self.acts = np.full((capacity, MAX_TOKENS), -1, dtype=np.int32)
        self.ret = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0

    def add(self, obs: Any, acts: Any, ret: Any) -> None:
        cap = len(self.ret)
        for i in range(len(ret)):
            j = self.next
            self.obs[j], self.acts[j], self.ret[j] = obs[i], acts[i], ret[i]
            self.next = (j + 1) % cap
        self.size = min(cap, self.size + len(ret))


def batch_inputs(buf: Buffer, idx: Any, action_width: int) -> torch.Tensor:
    obs = torch.from_numpy(buf.obs[idx].astype(np.float32))
    hot = torch.zeros((len(idx), action_width + 1))
    acts = torch.from_numpy(buf.acts[idx].astype(np.int64))
    acts = torch.where(acts < 0, torch.full_like(acts, action_width), acts)  # padding -> a dropped column
    hot.scatter_(1, acts, 1.0)
    return torch.cat([obs, hot[:, :action_width]], dim=1)


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Train, write ``model.npz``, ``train.jsonl`` and ``curve.png`` in ``cfg.out``; the final log
    line as a dict."""
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    game = load_game(cfg.game)
    check_target(game, cfg.target)
    if cfg.features not in FEATURES:
        raise GameError(f"unknown features {cfg.features!r}: choose from {', '.join(FEATURES)}")
    afterstate = cfg.features != "action"
    if cfg.features == "afterstate-turned" and not game.kit().has_observation_turn:
        raise GameError(
            f"{game.name} offers no turned observation: --features afterstate-turned is for games "
            "whose board looks the same from every seat"
        )
    if cfg.teacher is not None:
        check_teacher(game, cfg.teacher, cfg.target, cfg.teach_share)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    lo, hi, _ = game.bounds()
    scale = max(abs(lo), abs(hi)) or 1.0
    vocab = (
        None
        if afterstate or game.num_distinct_actions <= DENSE_LIMIT
        else build_vocab(game, cfg.seed, cfg.vocab_games)
    )
    heuristic_input = cfg.heuristic_input and game.kit().has_heuristic
    width = (0 if afterstate else game.num_distinct_actions if vocab is None else len(vocab)) + (
        1 if heuristic_input else 0
    )
    meta: dict[str, Any] = {
        "game": game.name,
        "spec": game.spec(),
        "obs_size": game.observation_tensor_size,
        "num_actions": game.num_distinct_actions,
        "vocab": vocab,
        "features": cfg.features,
        "heuristic_input": heuristic_input,
        "scale": scale,
        "hidden": cfg.hidden,
        "seed": cfg.seed,
        "method": (
            f"expert iteration (one step): regression on {cfg.teacher}'s values of every legal action"
            if cfg.teacher is not None
            else "deep Monte Carlo: "
            + ("final-return" if cfg.target == "game" else "deal-end race estimate")
            + " regression"
        )
        + ", epsilon-greedy self-play with heuristic seats",
        "target": cfg.target if cfg.teacher is None else "teacher",
        "teacher": cfg.teacher,
        "teach_share": cfg.teach_share if cfg.teacher is not None else None,
    }
    net = Net(game.observation_tensor_size + width, cfg.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    buf = Buffer(min(cfg.buffer, 100_000_000 // game.observation_tensor_size), game.observation_tensor_size)
    gen = np.random.default_rng(cfg.seed)
    log_path = out / "train.jsonl"
    log = log_path.open("w")
    start = time.monotonic()
    games = decisions = taught = labels = 0
    totals = {"engine": 0.0, "features": 0.0, "forward": 0.0, "learn": 0.0, "eval": 0.0}
    if cfg.teacher is not None:
        totals["teacher"] = 0.0
    model: Model | None = None
    last: dict[str, Any] = {}
    bar = _bar(cfg)
    rnd = 0
    check_backend(cfg.backend, cfg.ray_address)
    session = contextlib.ExitStack()  # with --backend ray, one Ray for the run (run_jobs leaves it running)
    if cfg.backend == "ray":
        session.enter_context(ray_session(cfg.ray_address, cfg.workers))
    try:
        while True:
            jobs = [
                SelfPlayJob(
                    game.spec(),
                    meta,
                    None if model is None else model.arrays(),
                    seed=derive(cfg.seed, "selfplay", rnd, j),
                    games=cfg.games_per_job,
                    epsilon=cfg.epsilon,
                    heuristic_share=cfg.heuristic_share,
                    target=cfg.target,
                    teacher=cfg.teacher,
                    teach_share=cfg.teach_share,
                )
                for j in range(cfg.jobs_per_round)
            ]
            t_play = time.monotonic()
            new = 0
            for s in run_jobs(
                play_job,
                jobs,
                backend=cfg.backend,
                workers=cfg.workers,
                ray_address=cfg.ray_address,
                progress=False,
            ):
                buf.add(s.obs, s.acts, s.returns / scale)
                new += len(s.returns)
                games += s.games
                decisions += s.decisions
                taught += s.taught
                for k, v in s.times.items():
                    totals[k] += v
            play_seconds = time.monotonic() - t_play
            t_learn = time.monotonic()
            steps = max(1, math.ceil(new * cfg.reuse / cfg.batch))
            losses = []
            for _ in range(steps):
                idx = gen.integers(0, buf.size, size=cfg.batch)
                x = batch_inputs(buf, idx, width)
                y = torch.from_numpy(buf.ret[idx])
                loss = ((net(x) - y) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(float(loss.detach()))
            totals["learn"] += time.monotonic() - t_learn
            model = to_model(net, meta)
            labels += new
            rnd += 1
            elapsed = time.monotonic() - start
            done = (cfg.games is not None and games >= cfg.games) or (
                cfg.hours is not None and elapsed >= cfg.hours * 3600
            )
            last = {
                "round": rnd,
                "games": games,
                "samples": new,
                "decisions": decisions,
                "loss": sum(losses) / len(losses),
                "seconds": round(elapsed, 2),
                "selfplay_decisions_per_second": round(
                    decisions
                    / max(
                        1e-9,
                        sum(totals[k] for k in ("engine", "features", "forward", "teacher") if k in totals),
                    ),
                    1,
                ),
                "round_play_seconds": round(play_seconds, 3),
                "times": {k: round(v, 3) for k, v in totals.items()},
            }
            if cfg.teacher is not None:  # the teacher's own speed: what bounds self-play with one
                last["taught"] = taught
                last["labels"] = labels
                last["teacher_decisions_per_second"] = round(taught / max(1e-9, totals["teacher"]), 2)
                last["teacher_labels_per_second"] = round(labels / max(1e-9, totals["teacher"]), 2)
            if rnd % cfg.eval_every == 0 or done:
                t_eval = time.monotonic()
                rets = evaluate(game, model, cfg.eval_deals, seed=derive(cfg.seed, "evaluate"))
                totals["eval"] += time.monotonic() - t_eval
                m, ci_lo, ci_hi = mean_ci(rets)
                last["vs_heuristic"] = {"mean": m, "ci": [ci_lo, ci_hi], "deals": len(rets)}
                last["times"]["eval"] = round(totals["eval"], 3)
                model.save(out / "checkpoint.npz")  # the newest weights, should the run be cut off
            log.write(json.dumps(last) + "\n")
            log.flush()
            if bar is not None:
                bar.update(games - bar.n)
                if "vs_heuristic" in last:
                    bar.set_postfix(
                        vs_heuristic=f"{last['vs_heuristic']['mean']:+.3f}", loss=f"{last['loss']:.3f}"
                    )
            if done:
                break
    finally:
        log.close()
        if bar is not None:
            bar.close()
        session.close()
    assert model is not None
    model.meta = {**meta, "games": games, "rounds": rnd}
    if heuristic_input:
        t_margin = time.monotonic()
        scores = choose_margin(game, model, cfg.margin_deals, seed=derive(cfg.seed, "margin"))
        best = max(scores, key=lambda m: (scores[m], -m))
        model.meta["margin"] = best
        with log_path.open("a") as f:
            f.write(
                json.dumps(
                    {
                        "margins": scores,
                        "margin": best,
                        "deals": cfg.margin_deals,
                        "seconds": round(time.monotonic() - t_margin, 2),
                    }
                )
                + "\n"
            )
    model.save(out / "model.npz")
    plot_curve(log_path, out / "curve.png", game.spec())
    return last


MARGINS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.4)  # in units of the largest return


def choose_margin(game: Game, model: Model, deals: int, seed: int) -> dict[float, float]:
    """Mean return against ``heuristic`` on the same ``deals`` for each margin (times the model's
    scale): the margin the agent plays with is the best of these (deals apart from the curve's)."""
    return {
        round(m * model.scale, 4): sum(rets) / len(rets)
        for m in MARGINS
        for rets in [evaluate(game, model, deals, seed=seed, margin=m * model.scale)]
    }


def _bar(cfg: TrainConfig) -> Any:
    if not cfg.progress:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return None
    return tqdm(total=cfg.games, desc=f"train {cfg.game}", unit="game")


def plot_curve(log_path: Path, png: Path, name: str) -> bool:
    """Strength against ``heuristic`` (mean return, 95% interval) against games trained; False
    without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    xs, ms, los, his = [], [], [], []
    for line in log_path.read_text().splitlines():
        row = json.loads(line)
        if "vs_heuristic" in row:
            xs.append(row["games"])
            ms.append(row["vs_heuristic"]["mean"])
            los.append(row["vs_heuristic"]["ci"][0])
            his.append(row["vs_heuristic"]["ci"][1])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.fill_between(xs, los, his, alpha=0.25)
    ax.plot(xs, ms, marker="o")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("self-play games trained")
    ax.set_ylabel("mean return vs heuristic")
    ax.set_title(f"{name}: learned against heuristic (fixed deals)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return True
