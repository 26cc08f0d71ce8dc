"""Our games inside OpenSpiel: ``register()`` makes ``pyspiel.load_game("gamester_penneech(...)")`` work.

Each game is registered as a Python game, ``gamester_<name>``, every option a game parameter (plus
``ruleset``), with the type and info OpenSpiel expects: sequential, explicit stochastic chance,
imperfect information, zero-sum, terminal rewards, the utility bounds and the longest game.

- **Chance** is a chance node per card, with exact probabilities (``gamester.interop.chance``): the
  deal one card at a time, the Piquesept draw, the Pentyrch layout and hands. Chance actions are the
  card ids 0–51 (``max_chance_outcomes`` 52); player actions are the game's dense action ids.
- **Observers** (``make_py_observer``): the information-state string is a player's observation
  (JSON) plus every move as that player saw it (perfect recall); the observation string is the
  observation alone; both tensors are the game's observation tensor (our observations already hold
  the deal's history, earlier deals only as scores). A public observer (no private information)
  gives the spectator's view as a string and an empty tensor.
- ``resample_from_infostate`` deals a world with the game's ``determinize``; ``clone`` copies the
  engine state; ``serialize`` stores the known chance and the moves, and replays them on load.
- ``state.engine()`` is the gamester state inside (its ``record()`` replays in gamester as usual).

OpenSpiel and numpy are imported here only: ``pip install 'gamester[openspiel]'``.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found, unused-ignore]  # no stubs: the openspiel extra

from gamester.core.cards import card_code
from gamester.core.errors import GameError, OptionError
from gamester.core.protocol import Game, State
from gamester.core.registry import game_class, game_names, load_game
from gamester.interop.chance import CHANCE, Driver

PREFIX = "gamester_"
MAX_CHANCE_OUTCOMES = 52  # chance actions are card ids
_REGISTERED: dict[str, type[pyspiel.Game]] = {}


def _word_codes(game: str, option: str) -> dict[str, int] | None:
    """Options whose choices mix words and numbers get one OpenSpiel type, an int: the words are coded
    -1, -2, … in the order of the choices (Penneech's first dealer is a seat, 0 or 1, or the draw: -1;
    OpenSpiel reads "first_dealer=0" as an int)."""
    if not game:
        return None
    fields = {f.name: f for f in dataclasses.fields(game_class(game).options_class)}
    f = fields.get(option)
    choices = f.metadata.get("choices") if f is not None else None
    if not choices or not any(isinstance(c, int) for c in choices):
        return None
    words = [c for c in choices if isinstance(c, str)]
    return {w: -(i + 1) for i, w in enumerate(words)} or None


def _param_value(value: Any, game: str = "", option: str = "") -> Any:
    """An option's JSON value as an OpenSpiel parameter (lists become space-separated text)."""
    codes = _word_codes(game, option)
    if codes is not None:
        return codes[value] if value in codes else int(value)
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return value


def _option_value(value: Any, game: str, option: str) -> Any:
    """An OpenSpiel parameter back as an option value (the inverse of :func:`_param_value`)."""
    codes = _word_codes(game, option)
    if codes is not None:
        for word, code in codes.items():
            if value == code:
                return word
    return value


def _engine_params(engine: Game) -> dict[str, Any]:
    """A game's options in force as OpenSpiel parameters."""
    return {k: _param_value(v, engine.name, k) for k, v in engine.options_json().items()}


def _defaults(name: str) -> dict[str, Any]:
    cls = game_class(name)
    params: dict[str, Any] = {"ruleset": "standard" if "standard" in cls.rulesets else ""}
    params.update(_engine_params(load_game(name)))
    return params


def engine_game(name: str, params: Mapping[str, Any]) -> Game:
    """Our game for OpenSpiel parameters: the rule set, then every option that differs from its plain
    default (OpenSpiel fills in every parameter, so a default cannot be told from an omitted one)."""
    defaults = _defaults(name)
    raw: dict[str, Any] = {}
    ruleset = params.get("ruleset", defaults["ruleset"])
    if ruleset:
        raw["ruleset"] = ruleset
    for k, v in params.items():
        if k == "ruleset":
            continue
        if k not in defaults:
            raise OptionError(f"{PREFIX}{name}: unknown parameter {k!r}; valid: {', '.join(defaults)}")
        if v != defaults[k]:
            raw[k] = _option_value(v, name, k)
    return load_game(name, **raw)


def _game_type(name: str) -> pyspiel.GameType:
    cls = game_class(name)
    counts = cls.player_counts()
    lo, hi = min(counts), max(counts)
    return pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"gamester {cls.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=_defaults(name),
    )


def game_info(engine: Game) -> pyspiel.GameInfo:
    lo, hi, length = engine.bounds()
    return pyspiel.GameInfo(
        num_distinct_actions=engine.num_distinct_actions,
        max_chance_outcomes=MAX_CHANCE_OUTCOMES,
        num_players=engine.num_players,
        min_utility=lo,
        max_utility=hi,
        utility_sum=0.0,
        max_game_length=length,
    )


class GamesterGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type information
    """One of our games as an OpenSpiel game (a subclass per game, made by :func:`register`)."""

    gamester_name = ""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        full = _defaults(self.gamester_name)
        full.update(params or {})
        try:
            engine = engine_game(self.gamester_name, full)
        except (OptionError, ValueError) as e:
            raise ValueError(f"{PREFIX}{self.gamester_name}: {e}") from None
        # Report the options in force (a rule set's included), so the game's string reloads the same.
        effective = _engine_params(engine)
        effective["ruleset"] = full["ruleset"]
        super().__init__(_game_type(self.gamester_name), game_info(engine), effective)
        self.engine = engine

    def new_initial_state(self) -> GamesterState:
        return GamesterState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self.engine, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)

    def state_at(self, engine_state: State) -> GamesterState:
        """An OpenSpiel state at a gamester position (e.g. a world from ``determinize``); its future
        chance is explicit. Its OpenSpiel ``history()`` starts empty."""
        return GamesterState(self, Driver.from_state(engine_state))


class GamesterState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state around a :class:`~gamester.interop.chance.Driver`."""

    def __init__(self, game: GamesterGame, driver: Driver | None = None) -> None:
        super().__init__(game)
        self._d = Driver(game.engine) if driver is None else driver

    # -- the gamester side -------------------------------------------------------------------
    @property
    def driver(self) -> Driver:
        return self._d

    def engine(self) -> State | None:
        """The gamester state inside (None while the first deal is being dealt)."""
        return self._d.state

    # -- OpenSpiel's API ---------------------------------------------------------------------
    def current_player(self) -> int:
        return self._d.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        if player != self._d.current_player():
            return []
        return self._d.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._d.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        a = int(action)
        if self._d.need is not None:
            self._d.apply_chance(a)
        else:
            self._d.apply(a)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return f"deal {card_code(int(action))}" if 0 <= action < 52 else f"chance {action}"
        s = self._d.state
        if s is None:
            return str(action)
        try:
            return s.action_to_string(int(action))
        except GameError:
            return str(action)

    def is_terminal(self) -> bool:
        return self._d.is_terminal()

    def returns(self) -> list[float]:
        return self._d.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> GamesterState:
        """A world consistent with what ``player_id`` knows, dealt by the game's ``determinize``
        (its generator seeded from OpenSpiel's sampler)."""
        s = self._d.state
        if s is None:
            return GamesterState(self.get_game())  # nothing dealt yet: nothing known
        seed = int(probability_sampler() * 2.0**53) if callable(probability_sampler) else None
        return resample(self.get_game(), self._d, int(player_id), random.Random(seed))

    def __str__(self) -> str:
        d = self._d
        if d.state is None:
            return d.observation_string(0)
        head = {"spec": d.game.spec(), "chance_entries": len(d.given), "moves": d.state.history_strings()}
        text = json.dumps(head, separators=(",", ":"))
        if d.need is not None:
            text += f"\ndealing chance[{d.need.index}], card {len(d.need.prefix) + len(d.drawn) + 1}"
        return text


def resample(game: GamesterGame, driver: Driver, player: int, rng: random.Random) -> GamesterState:
    """A world for ``player`` from ``driver``'s position (before any move waiting for chance)."""
    assert driver.state is not None
    world = driver.state.determinize(player, rng)
    d = Driver.from_state(world)
    if driver.pending is not None:  # the move that waits for chance: its cards are dealt afresh
        d.apply(driver.pending)
    return GamesterState(game, d)


class Observer:
    """OpenSpiel's PyObserver for our games (see the module docstring)."""

    def __init__(self, engine: Game, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("an observer of every player's private information is not supported")
        self.public_only = private == pyspiel.PrivateInfoType.NONE
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = 0 if self.public_only else engine.observation_tensor_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GamesterState, player: int) -> None:
        if self.public_only:
            return
        self.tensor[:] = state.driver.observation_tensor(player)

    def string_from(self, state: GamesterState, player: int) -> str:
        d = state.driver
        if self.public_only:
            view = {} if d.state is None else d.state.public_observation()
            text = json.dumps(view, sort_keys=True, separators=(",", ":"))
            if self.perfect_recall and d.seen is None and d.state is not None:
                text += "\nmoves: " + " ".join(d.state.history_strings())
            return text
        if self.perfect_recall:
            return d.information_state_string(player)
        return d.observation_string(player)


def _states_bounds(name: str) -> bool:
    try:
        load_game(name).bounds()
    except GameError:
        return False
    return True


def register() -> list[str]:
    """Register every gamester game with OpenSpiel (idempotent); returns the registered names."""
    names = []
    for name in game_names():
        if name not in _REGISTERED and not _states_bounds(name):
            continue  # OpenSpiel needs a game's bounds before its first state (Game.bounds)
        if name not in _REGISTERED:
            cls = type(f"Gamester{name.title()}Game", (GamesterGame,), {"gamester_name": name})
            pyspiel.register_game(_game_type(name), cls)
            _REGISTERED[name] = cls
        names.append(PREFIX + name)
    return names


def for_engine(engine: Game) -> GamesterGame:
    """The OpenSpiel game for one of our games with its options (registering first)."""
    register()
    cls = _REGISTERED.get(engine.name)
    if cls is None:
        raise OptionError(f"{engine.name}: not a game the OpenSpiel adapter knows")
    game = cls(_engine_params(engine))
    assert isinstance(game, GamesterGame) and game.engine == engine
    return game


def load(spec: str) -> GamesterGame:
    """``pyspiel.load_game`` for one of ours, registering first (``load("gamester_penneech()")``)."""
    register()
    game = pyspiel.load_game(spec)
    if not isinstance(game, GamesterGame):
        raise ValueError(f"{spec!r} is not a gamester game")
    return game
