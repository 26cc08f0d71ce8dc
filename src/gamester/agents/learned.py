"""``learned``: a small network trained by self-play, played with numpy only (docs/learning.md).

The network scores each legal action from what the seat knows: the seat's observation tensor (the
game's one view function, ``View.observation_tensor``) and features of the action. It estimates the
seat's final return after taking the action (deep Monte Carlo, as DouZero), and the agent takes the
action it scores highest. Nothing else is read: no determinization, no other hand, no chance.

Action features: the dense action id (one-hot) when a game has few distinct actions; otherwise the
tokens of the action's notation (``View.action_to_string``, e.g. ``JH b4-c3 7D+3C`` gives the moved
card, the cells and the payment cards), each an index into a vocabulary stored with the weights. A game
with thousands of actions whose meaning depends on the position (Pentyrch's combination payments) is
read as a player reads it.

Afterstate features (``features="afterstate"`` in the weights' metadata) read each action by what it
leads to instead: the seat's own observation tensor of the position right after the action, taken in
one world drawn from the seat's view with a fixed seed (``View.determinize``), so the network scores
positions (a state value, as TD-Gammon) rather than notation. Only what the seat could know goes in:
the world is drawn from its view, and the observation is the seat's own. This is for games where an
action's meaning is its effect on the board (Pentyrch), not its name. With ``"afterstate-turned"``
each of those rows is first turned so that the seat to move sits at the first seat, for games whose
board looks the same from every seat (``Kit.observation_turn``, Pentyrch's cross): the network then
learns one seat's geometry instead of four.

Where the network reads the heuristic's move as an input, ``margin`` (default: the one chosen at the end
of training) is how much better another action must look before it replaces the heuristic's.

``learned`` loads the weights shipped for the game (``gamester/agents/weights/<game>.npz``, or
``<game>-<what>.npz`` where one file cannot play every option, written by ``gamester train``): the
first whose metadata fits the game; ``learned:model=PATH`` loads another file. The agent is
deterministic: the same view gives the same move, whatever the seed.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from gamester.agents.base import Agent, View, float_param
from gamester.core.errors import AgentError
from gamester.core.protocol import Game
from gamester.core.rng import make_rng

# Games with at most this many distinct actions read the action as its dense id.
DENSE_LIMIT = 1024
FEATURES = ("action", "afterstate", "afterstate-turned")  # how an action is read (the module's docstring)
_AFTER_SEED = 0xAF7E  # the one world afterstate features are taken in
_SPLIT = re.compile(r"([-+@=])")


def action_tokens(text: str) -> list[str]:
    """The features of an action's notation: each whitespace field's pieces tagged by field number and
    the separator before them, plus each piece without its last character (a card's rank without its
    suit) and the field's piece count.

    >>> action_tokens("JH b4-c3 7D+3C")
    ['0 JH', '0 J', '0#1', '1 b4', '1 b', '1-c3', '1-c', '1#2', '2 7D', '2 7', '2+3C', '2+3', '2#2']
    """
    out: list[str] = []
    for i, field in enumerate(text.split()):
        sep = " "
        n = 0
        for piece in _SPLIT.split(field):
            if not piece:
                continue
            if _SPLIT.fullmatch(piece):
                sep = piece
                continue
            out.append(f"{i}{sep}{piece}")
            if len(piece) > 1:
                out.append(f"{i}{sep}{piece[:-1]}")
            n += 1
        out.append(f"{i}#{n}")
    return out


def heuristic_move(view: View, legal: list[int]) -> int | None:
    """The game's heuristic's move from the seat's view, its ties broken by a fixed seed (so the same
    view gives the same move); None if the game has no heuristic."""
    kit = view.game.kit()
    if not kit.has_heuristic:
        return None
    return kit.heuristic(view, view.observation(), legal, make_rng(0))


def afterstate_tensors(view: View, legal: list[int], turned: bool = False) -> Any:
    """The seat's observation tensor after each legal action (float32, one row per action), every
    action taken in the same world drawn from the seat's view with a fixed seed: what the seat would
    see next, and nothing it could not know now. ``turned``: each row seen as though the seat to move
    now sat at the first seat (``Kit.observation_turn``)."""
    world = view.determinize(make_rng(_AFTER_SEED))
    order = view.game.kit().observation_turn(world) if turned else None
    if turned and order is None:
        raise AgentError(f"{view.game.name} offers no turned observation")
    out = np.empty((len(legal), view.game.observation_tensor_size), dtype=np.float32)
    for i, a in enumerate(legal):
        s = world.clone()
        s.apply_action(a)
        out[i] = s.observation_tensor(view.player)
    return out if order is None else out[:, np.asarray(order, dtype=np.intp)]


def mismatch(meta: dict[str, Any], game: Game) -> str | None:
    """Why a model with this metadata (what it was trained on) cannot play ``game`` (a game with its
    options), or None if it can: the observation it reads and, for dense ids, the actions it knows must
    be the game's."""
    trained = f"the learned model was trained on {meta.get('spec', meta.get('game'))!r}"
    obs = int(meta["obs_size"])
    if game.observation_tensor_size != obs:
        return (
            f"{trained} and cannot play {game.spec()!r}: it reads {obs} observation numbers, "
            f"that game has {game.observation_tensor_size}"
        )
    if meta.get("heuristic_input") and not game.kit().has_heuristic:
        return f"{trained} and reads the heuristic's choice, and {game.name!r} offers none"
    if meta.get("features") == "afterstate-turned" and not game.kit().has_observation_turn:
        return f"{trained} and reads the board turned to the seat to move, and {game.name!r} offers no turn"
    if (
        meta.get("features", "action") == "action"
        and meta.get("vocab") is None
        and game.num_distinct_actions != int(meta["num_actions"])
    ):
        return (
            f"{trained} and cannot play {game.spec()!r}: it knows {meta['num_actions']} actions, "
            f"that game has {game.num_distinct_actions}"
        )
    return None


class Model:
    """The weights and the numpy forward pass shared by the agent and by training's self-play.

    Layers: ``relu(obs @ w1o + act @ w1a + b1)``, ``relu(. @ w2 + b2)``, ``. @ w3 + b3``, times
    ``scale`` (the games' largest return, so the network regresses numbers near [-1, 1]).
    """

    def __init__(self, arrays: dict[str, Any], meta: dict[str, Any]) -> None:
        self.meta = meta
        self.obs_size = int(meta["obs_size"])
        self.vocab: dict[str, int] | None = (
            None if meta.get("vocab") is None else {t: i for i, t in enumerate(meta["vocab"])}
        )
        self.num_actions = int(meta["num_actions"])
        self.features = str(meta.get("features", "action"))
        if self.features not in FEATURES:
            raise AgentError(f"learned model: unknown features {self.features!r}")
        self._rows: dict[str, list[int]] = {}  # notation -> action inputs
        w1 = np.asarray(arrays["w1"], dtype=np.float32)
        self.w1o = np.ascontiguousarray(w1[: self.obs_size])
        self.w1a = np.ascontiguousarray(w1[self.obs_size :])
        self._zero = self.w1a.shape[0]
        self.w1a_ext = np.vstack([self.w1a, np.zeros((1, self.w1a.shape[1]), dtype=np.float32)])
        self.b1 = np.asarray(arrays["b1"], dtype=np.float32)
        self.w2 = np.asarray(arrays["w2"], dtype=np.float32)
        self.b2 = np.asarray(arrays["b2"], dtype=np.float32)
        self.w3 = np.asarray(arrays["w3"], dtype=np.float32).reshape(-1)
        self.b3 = float(np.asarray(arrays["b3"]).reshape(-1)[0])
        self.scale = float(meta["scale"])
        width = 0 if self.afterstate else self.num_actions if self.vocab is None else len(self.vocab)
        # One more action input, on for the action the game's heuristic would play from this view.
        self.heuristic_input: int | None = width if meta.get("heuristic_input") else None
        if self.heuristic_input is not None:
            width += 1
        if self.w1a.shape[0] != width:
            raise AgentError(f"learned model: {self.w1a.shape[0]} action inputs, expected {width}")

    @property
    def action_width(self) -> int:
        return int(self.w1a.shape[0])

    @property
    def afterstate(self) -> bool:
        return self.features != "action"

    @property
    def turned(self) -> bool:
        return self.features == "afterstate-turned"

    def action_indices(self, view: View, action: int) -> list[int]:
        """The active action inputs of ``action`` (one for a dense id, a few notation tokens, none
        with afterstate features)."""
        if self.afterstate:
            return []
        if self.vocab is None:
            return [action]
        text = view.action_to_string(action)
        row = self._rows.get(text)
        if row is None:
            if len(self._rows) > 100_000:
                self._rows.clear()
            vocab = self.vocab
            row = self._rows[text] = [vocab[t] for t in action_tokens(text) if t in vocab]
        return row

    def heuristic_choice(self, view: View, legal: list[int]) -> int | None:
        """The heuristic's move from the seat's view (its ties broken by a fixed seed, so the same
        view gives the same move), or None if the model does not read it."""
        if self.heuristic_input is None:
            return None
        return heuristic_move(view, legal)

    def rows(self, view: View, legal: list[int]) -> tuple[list[list[int]], int | None]:
        """Every legal action's inputs, and the heuristic's choice."""
        h = self.heuristic_choice(view, legal)
        rows = [self.action_indices(view, a) for a in legal]
        col = self.heuristic_input
        if h is not None and col is not None:
            i = legal.index(h)
            rows[i] = [*rows[i], col]
        return rows, h

    def check(self, game: Game) -> None:
        why = mismatch(self.meta, game)
        if why is not None:
            raise AgentError(why)

    def values(self, obs: Any, owner: Any, acts: list[list[int]]) -> Any:
        """Estimated returns (float32 array, one per row): row ``r`` is action ``acts[r]`` taken in
        observation ``obs[owner[r]]`` (``obs`` a 2-d array, one observation per row)."""
        h = (obs @ self.w1o + self.b1)[owner]
        # Every row's action inputs summed at once: the inputs laid end to end, a sum per row's run
        # (an empty row points at the zero row past the end).
        flat: list[int] = []
        starts: list[int] = []
        for idx in acts:
            starts.append(len(flat))
            flat.extend(idx if idx else (self._zero,))
        if len(flat) == len(acts):
            h += self.w1a_ext[flat]
        else:
            h += np.add.reduceat(self.w1a_ext[flat], starts, axis=0)
        np.maximum(h, 0.0, out=h)
        h2 = h @ self.w2 + self.b2
        np.maximum(h2, 0.0, out=h2)
        return (h2 @ self.w3 + self.b3) * self.scale

    def observations(self, view: View, legal: list[int]) -> tuple[Any, Any]:
        """The observation rows the network reads for ``legal`` and which row each action reads: the
        seat's one observation, or with afterstate features one row per action."""
        if self.afterstate:
            return afterstate_tensors(view, legal, self.turned), np.arange(len(legal), dtype=np.intp)
        obs = np.asarray(view.observation_tensor(), dtype=np.float32)[None, :]
        return obs, np.zeros(len(legal), dtype=np.intp)

    def choose(self, view: View, legal: list[int], margin: float = 0.0) -> tuple[int, Any]:
        """The action scored highest, except that the heuristic's move stands unless another beats
        it by more than ``margin`` (in units of return): estimates from noisy returns overrate
        some rarely tried action, and the heuristic's move is the one the network knows best."""
        obs, owner = self.observations(view, legal)
        acts, h = self.rows(view, legal)
        q = self.values(obs, owner, acts)
        best = int(np.argmax(q))
        if h is not None:
            i = legal.index(h)
            if q[best] <= q[i] + margin:
                best = i
        return legal[best], q

    def arrays(self) -> dict[str, Any]:
        return {
            "w1": np.concatenate([self.w1o, self.w1a]),
            "b1": self.b1,
            "w2": self.w2,
            "b2": self.b2,
            "w3": self.w3,
            "b3": np.array([self.b3], dtype=np.float32),
        }

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, meta=np.array(json.dumps(self.meta, sort_keys=True)), **self.arrays())


def load_model(path: str | Path) -> Model:
    """A model from an ``.npz`` file written by :meth:`Model.save`; one clear error if it is not one."""
    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        meta = json.loads(str(arrays.pop("meta")))
        return Model(arrays, meta)
    except AgentError:
        raise
    except FileNotFoundError:
        raise AgentError(f"learned model {str(path)!r}: no such file") from None
    except Exception as e:  # a file that is not a model: numpy, zip and json each raise their own
        raise AgentError(f"learned model {str(path)!r} cannot be read ({type(e).__name__})") from None


def shipped_model_path(game_name: str) -> Path:
    """The game's main shipped weights: ``weights/<game>.npz``."""
    return Path(str(resources.files("gamester.agents") / "weights" / f"{game_name}.npz"))


def shipped_model_paths(game_name: str) -> list[Path]:
    """Every file of weights shipped for the game: the main one first, then the others
    (``weights/<game>-<what>.npz``, e.g. ``piquesept-3p.npz`` for the three-hand game) by name."""
    main = shipped_model_path(game_name)
    others = sorted(main.parent.glob(f"{game_name}-*.npz"))
    return ([main] if main.exists() else []) + others


_META: dict[str, dict[str, Any]] = {}  # path -> metadata: the web checks seats against it


def model_meta(path: str | Path) -> dict[str, Any]:
    """What a model file says it was trained on (``game``, ``spec``, ``obs_size``, ...), read without
    its weights (only that member of the archive is read); one clear error if it is not a model."""
    key = str(path)
    meta = _META.get(key)
    if meta is None:
        try:
            with np.load(path, allow_pickle=False) as f:
                meta = json.loads(str(f["meta"]))
        except FileNotFoundError:
            raise AgentError(f"learned model {key!r}: no such file") from None
        except Exception as e:  # a file that is not a model: numpy, zip and json each raise their own
            raise AgentError(f"learned model {key!r} cannot be read ({type(e).__name__})") from None
        if not isinstance(meta, dict):
            raise AgentError(f"learned model {key!r} cannot be read (no metadata)")
        _META[key] = meta
    return meta


_CACHE: dict[str, Model] = {}  # path -> model: simulate makes an agent per seat per game


def cached_model(path: str | Path) -> Model:
    key = str(path)
    m = _CACHE.get(key)
    if m is None:
        m = _CACHE[key] = load_model(path)
    return m


def weights_for(game: Game, model: str | None) -> str:
    """The file ``learned`` plays ``game`` from: ``model``, or else the first of the weights shipped
    for the game whose metadata fits it (its options included: the three-hand Piquesept reads a
    smaller observation than the four-hand one), or the main one, which then says why it cannot."""
    if model is not None:
        return model
    found = shipped_model_paths(game.name)
    if not found:
        raise AgentError(f"agent 'learned' has no weights for {game.name!r}; train some")
    for path in found:
        if mismatch(model_meta(path), game) is None:
            return str(path)
    return str(found[0])


class LearnedAgent(Agent):
    """Plays the action the network scores highest for the seat (docs/learning.md)."""

    name = "learned"

    def __init__(
        self, game: Game | None = None, model: Any = None, margin: Any = None, seed: Any = None
    ) -> None:
        del seed  # deterministic: the same view gives the same move
        self.model_path: str | None = None if model is None else str(model)
        # None: the margin chosen in training (stored with the weights)
        self.margin: float | None = None if margin is None else float_param("margin", margin)
        self.model: Model | None = None
        self._game: Game | None = None
        if game is not None:
            self._load(game)

    @staticmethod
    def refuses(game: Game, params: dict[str, str]) -> str | None:
        """Why ``learned`` with these spec parameters cannot play ``game`` (its options included), or
        None: read from the model's metadata, without making the agent or loading its weights (the
        web checks a seat with this; docs/agents.md, "What an agent can play")."""
        try:
            meta = model_meta(weights_for(game, params.get("model")))
        except AgentError as e:
            return str(e)
        return mismatch(meta, game)

    def _load(self, game: Game) -> Model:
        if self.model is None or self._game != game:
            model = cached_model(weights_for(game, self.model_path))
            model.check(game)
            self.model, self._game = model, game
        return self.model

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        model = self._load(view.game)
        return model.choose(view, legal, self._margin(model))[0]

    def _margin(self, model: Model) -> float:
        return float(model.meta.get("margin", 0.0)) if self.margin is None else self.margin

    def evaluate(self, view: View) -> dict[str, Any] | None:
        legal = view.legal_actions()
        if not legal:
            return None
        model = self._load(view.game)
        action, q = model.choose(view, legal, self._margin(model))
        return {"action": action, "values": {legal[i]: float(q[i]) for i in range(len(legal))}}
