"""The game protocol: what every game's ``Game`` and ``State`` provide.

A ``Game`` is a rule set made concrete (its options fixed); it creates states. A ``State`` is one
position with its history, its own random generator and the chance it has consumed. Actions are dense
ints (``0 … num_distinct_actions - 1``) for search and learning, with notation strings for people and
records. Chance is never an action: it comes from the record's ``chance`` list or the state's seed.

Games subclass :class:`Game` and :class:`State` and fill in the abstract parts; records, replay and
summaries (``gamester.core.record``) only use what is declared here.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any, ClassVar, Generic

from gamester.core._mypyc import GameT, OptionsT, mypyc_attr
from gamester.core.errors import GameError, PositionError, quote
from gamester.core.kit import Kit
from gamester.core.options import OpenValue, RuleSet, build_options, describe_options, options_to_json
from gamester.core.rng import BitStream, Chance, make_rng, new_seed

# The core's floors (tests/test_layering.py checks that no import loops among them): errors and
# cards, then options, rng and kit (kit names Game and State only for the type checker), then this
# protocol, then the registry, then records' reading side (``gamester.core.record``: replay, summary).
# Writing a record needs only what a state has, so it lives here, below the registry replay uses.

TERMINAL = -4
"""``current_player()`` once the game is over (OpenSpiel's marker)."""

RECORD_FORMAT = "gamester-record"
RECORD_VERSION = 1
"""The record's ``format`` and ``version`` (docs/records.md); ``gamester.core.record`` reads them."""


# Compiled (docs/compiled.md), the protocol's classes stay open to subclasses written in plain Python:
# a game from another package or a test, an adapter's Chance.
@mypyc_attr(allow_interpreted_subclasses=True)
class Game(ABC, Generic[OptionsT]):
    """A game with its options fixed (an ``OptionsT``, the game's options dataclass: a game declares
    ``class MyGame(Game[MyOptions])``). Subclasses set the class attributes below."""

    name: ClassVar[str]
    title: ClassVar[str]
    rules_version: ClassVar[int] = 1
    blurb: ClassVar[str] = ""
    """One or two sentences for a lobby: who plays, with what, and for what."""
    options_class: ClassVar[type]
    rulesets: ClassVar[Mapping[str, RuleSet]]
    open_space: ClassVar[Mapping[str, tuple[OpenValue, ...]]] = {}
    """The options whose value a source, a variant or a ruling leaves in doubt, each value with its
    source (``gamester explore`` measures every combination); empty: nothing declared open."""
    clone_shares: ClassVar[Mapping[str, str]] = {}
    """The fields of this game's states that ``clone()`` may share with the original instead of
    copying, each with the reason that is safe (``"MyState._pack"``: the whole field; ``"MyState._done[]"``:
    the list is copied, its entries shared; ``"[][]"``: two levels copied …). The protocol's own
    (``State.game``, the ``Chance``) are allowed already; anything else a clone must copy down to its
    last mutable part. ``gamester.testing.check_game`` checks exactly this (docs/new-game.md)."""

    options: OptionsT

    def __init__(self, options: OptionsT) -> None:
        self.options = options

    # -- description -------------------------------------------------------------------------
    @property
    @abstractmethod
    def num_players(self) -> int: ...

    @property
    @abstractmethod
    def num_distinct_actions(self) -> int: ...

    @property
    @abstractmethod
    def observation_tensor_size(self) -> int: ...

    def options_json(self) -> dict[str, Any]:
        return options_to_json(self.options)

    def spec(self) -> str:
        """A string ``load_game`` accepts, naming every option that differs from its default."""
        default = options_to_json(self.options_class())
        now = self.options_json()
        diff = [f"{k}={_spec_value(v)}" for k, v in now.items() if default.get(k) != v]
        return f"{self.name}({','.join(diff)})" if diff else self.name

    def __repr__(self) -> str:
        return f"load_game({self.spec()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.name == other.name and self.options == other.options

    def __hash__(self) -> int:
        return hash((self.name, self.options))

    def __reduce__(self) -> tuple[Any, ...]:
        # A game is its class and its options' JSON. Said explicitly so that a compiled game pickles
        # too (mypyc's classes, its frozen option dataclasses included, cannot be rebuilt field by field).
        return (_rebuild_game, (type(self), self.options_json()))

    # -- states ------------------------------------------------------------------------------
    def new_initial_state(self, seed: int | None = None, chance: Sequence[Any] | None = None) -> State:
        """The start of a game. ``chance`` (a record's list) wins over ``seed`` when both are given."""
        if seed is None:
            seed = new_seed()
        return self._new_state(seed, Chance(BitStream(seed), None if chance is None else list(chance)))

    def new_state_with_chance(self, seed: int, chance: Chance) -> State:
        """The start of a game drawing its chance through ``chance`` (a :class:`Chance` or a subclass).

        For adapters that must see each chance request as the game makes it (OpenSpiel's chance
        nodes override ``Chance.pack``/``draw``); everyone else uses :meth:`new_initial_state`.
        """
        return self._new_state(seed, chance)

    @abstractmethod
    def _new_state(self, seed: int, chance: Chance) -> State: ...

    def read_position(self, text: str, chance: Sequence[Any] | None = None) -> State:
        """The state a position's text describes (the game's position notation, docs/positions.md:
        what ``State.position()`` writes). ``chance``: the outcomes after the position (a record
        that starts there), instead of its ``rng``/``next``. Its record starts at the position.
        Bad text raises :class:`~gamester.core.errors.PositionError` (a ``ValueError``) in one line
        naming the field. A game without a notation refuses every text."""
        raise PositionError(f"position: {self.name} has no position notation")

    @classmethod
    def player_counts(cls) -> list[int]:
        """The numbers of players the game can be set for: its ``players`` option's choices, else the
        player count of its default options."""
        for f in dataclasses.fields(cls.options_class):
            if f.name == "players" and f.metadata.get("choices"):
                return sorted(int(c) for c in f.metadata["choices"])
        return [cls(cls.options_class()).num_players]

    @classmethod
    def seat_labels(cls, players: int) -> list[str]:
        """What a lobby calls each seat of a ``players``-player game (games with named seats say so)."""
        return [f"Seat {i + 1}" for i in range(players)]

    @classmethod
    def rules_text(cls) -> str:
        """The game's rules as Markdown, in the project's words, then every option and rule set.

        The prose is ``rules.md`` in the game's own package (package data beside its module; a game
        without one gets its title and its package's docstring); the option list and the rule sets
        are generated from the options dataclass and ``rulesets``, so they cannot drift from the code.
        ``gamester rules`` prints it rewrapped for a terminal, the web's rules page as it is."""
        # getattr: compiled (mypyc), a class object's __module__ is not read as an attribute.
        module: str = getattr(cls, "__module__")  # noqa: B009
        package = sys.modules[module].__package__ or module
        try:
            prose = resources.files(package).joinpath("rules.md").read_text(encoding="utf-8")
        except (FileNotFoundError, OSError):
            prose = f"# {cls.title}\n\n{sys.modules[package].__doc__ or ''}"
        lines = [prose.rstrip(), "", "## Options (generated from the code)", ""]
        for opt, default, values, doc in describe_options(cls.options_class):
            lines.append(f"- {opt} (default {default!r}; {values}): {doc}")
        lines += ["", "## Rule sets", ""]
        for rs in cls.rulesets.values():
            settings = ", ".join(f"{k}={v}" for k, v in rs.options.items()) or "all defaults"
            lines.append(f"- {rs.name}: {settings}. {rs.reading}. Source: {rs.source}.")
        lines += [
            "",
            f'Choose one with load_game("{cls.name}(ruleset=NAME)") or --option ruleset=NAME; '
            "explicit options override the rule set.",
        ]
        return "\n".join(lines)

    @classmethod
    def drawing(cls) -> dict[str, Any]:
        """The fixed facts a drawing of the game needs and must not restate (points to win, the order
        of the cards, the board's cells…), JSON-able: the game's entry in ``GET /api/games`` carries
        them as ``drawing`` (docs/web.md). A state's changing facts belong in its views instead."""
        return {}

    def action_parts(self, action: str) -> dict[str, Any] | None:
        """What the notation ``action`` says, as JSON-able fields (a move's piece, its cells, the
        cards it pays…), so that a drawing never reads the notation itself: the server sends them
        beside each legal move and the hint (docs/web.md, The WebSocket). Read from the text alone,
        never from a state, so they can hold nothing the text does not show. None (the default)
        when the game has no such fields or ``action`` is not a move it can split."""
        return None

    def bounds(self) -> tuple[float, float, int]:
        """(lowest return, highest return, most player actions a game can take): what a search or
        an adapter (OpenSpiel's ``GameInfo``) must know in advance. Games override it."""
        raise GameError(f"{self.name}: the game states no bounds on its returns and length")

    def seats_alike(self) -> bool:
        """Whether every seat's chances are the same by construction: the rules hand out each seat's
        role by chance (who deals first is drawn; whoever is dealt a card plays alone), so a gap
        between the seats' win rates over some games is that sample's luck, never the rules' doing.
        ``gamester explore`` then leaves seat balance out of its score (docs/analysis.md). False
        unless a game says so."""
        return False

    def hides_information(self) -> bool:
        """Whether some seat can be unsure of a card (or anything else) another seat knows: OpenSpiel's
        imperfect information. The leak checks then require look-alike states they build to differ
        somewhere hidden (else they would test nothing). True unless a game says otherwise (two-player
        Pentyrch: the two hands are the whole hand pack, so each knows the other's)."""
        return True

    def kit(self) -> Kit:
        """What this game offers search (``gamester.core.kit``): heuristic, solver, rollout model….
        One kit is made per game and options (kept out of pickles), by :meth:`_make_kit`."""
        kit = _KITS.get(self)
        if kit is None:
            kit = _KITS[self] = self._make_kit()
        return kit

    def _make_kit(self) -> Kit:
        """The kit of the game's folder: the class named ``KIT`` in the ``kit`` module beside the
        game's own module (``games/<game>/kit.py``), else an empty :class:`Kit`. Found by name, so the
        game's engine never imports its kit (which imports the engine). A game may override this."""
        package = type(self).__module__.rpartition(".")[0]
        if not package:  # a game written as one top-level module has no folder to look in
            return Kit(self)
        name = package + ".kit"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise  # the kit exists but imports something missing: a real error
            return Kit(self)
        made = getattr(module, "KIT", Kit)(self)
        if not isinstance(made, Kit):
            raise GameError(f"{self.name}: {name}.KIT makes {type(made).__name__}, not a Kit")
        return made

    @abstractmethod
    def parse_chance(self, entry: Any) -> int:
        """Decode one card (or other outcome) of a record's ``chance`` into its id."""

    @abstractmethod
    def format_chance(self, entry: Any) -> Any:
        """Encode one logged chance outcome for a record (codes)."""


_KITS: dict[Game, Kit] = {}


def _rebuild_game(cls: type[Game], options: dict[str, Any]) -> Game:
    """Unpickle a game (``Game.__reduce__``): its options from their JSON, through the usual checks."""
    return cls(build_options(cls.options_class, cls.rulesets, options, cls.name))


def _spec_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    return str(v)


@mypyc_attr(allow_interpreted_subclasses=True)
class State(ABC, Generic[GameT]):
    """One position. Subclasses keep their own fields; this base holds the bookkeeping."""

    # Slots all the way down (abc.ABC declares empty ones): a state has no __dict__, so assigning a
    # mistyped field raises AttributeError. Subclasses list only their own fields.
    __slots__ = ("game", "seed", "chance")

    game: GameT  # a game declares class MyState(State[MyGame]); a bare State is a State[Game]
    seed: int
    chance: Chance

    # -- whose turn, what is legal -----------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The player to act, or :data:`TERMINAL`."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal actions, sorted ascending; empty once the game is over."""

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Play ``action`` for the current player; raises ``IllegalActionError`` if not legal."""

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def returns(self) -> list[float]:
        """Each player's result: zero until the game is over."""

    @abstractmethod
    def scores(self) -> list[int]:
        """Each player's score in the game's own terms (points so far)."""

    @abstractmethod
    def clone(self) -> State: ...

    # -- notation ----------------------------------------------------------------------------
    @abstractmethod
    def action_to_string(self, action: int) -> str: ...

    @abstractmethod
    def string_to_action(self, text: str) -> int:
        """Parse notation into an action; ``InvalidActionError`` when it is not one."""

    def legal_action_strings(self) -> list[str]:
        """The notation of every legal action, in action order (what ``replay --json`` lists).

        A game whose positions can have very many actions (Pentyrch with overpay) lists them in
        one pass instead of one ``action_to_string`` at a time.
        """
        return [self.action_to_string(a) for a in self.legal_actions()]

    def action_seen_by(self, action: Any, viewer: int | None) -> str:
        """How ``action``, about to be taken by the current player, reads to ``viewer`` (a player, or
        None for a spectator, who knows only what is public).

        The notation by default; a game whose actions can be hidden from some seats (a card handed
        over in secret) says less. Interfaces narrate other players' moves through this, never
        through ``action_to_string``.
        """
        # ``action`` is Any (not object) so that a game may override this with ``int`` or ``object``.
        # It goes through the instance's attribute (a Python-level call), so that the game's own
        # action_to_string checks whatever ``action`` is, in the compiled build too (a direct call
        # would first convert it to that signature's int, failing with mypyc's TypeError).
        to_string: Callable[[object], str] = getattr(self, "action_to_string")  # noqa: B009
        return to_string(action)

    def action_named_for(self, action: Any, viewer: int) -> str:
        """How an action id reads to ``viewer`` when it is not ``viewer``'s turn (an agent's
        :class:`~gamester.core.kit.View` asks for it): :meth:`action_seen_by` by default. A game
        whose action ids are decoded against the mover's hidden cards (a combination of hand cards
        numbered in the mover's hand) overrides this to name them without those cards."""
        return self.action_seen_by(action, viewer)

    @abstractmethod
    def history_strings(self) -> list[str]:
        """Every player action so far, in notation (what a record's ``actions`` holds); for a state
        read from a position, the actions the position holds and those after it."""

    def position(self) -> str:
        """This position in the game's position notation (docs/positions.md): one line holding
        everything the state is, hidden cards, what each seat has seen and the chance still to come
        included, that ``game.read_position`` reads back to a state that plays on exactly like this
        one. It names every hidden card: never show it to a seat."""
        raise GameError(f"{self.game.name} has no position notation")

    # -- the sides --------------------------------------------------------------------------------
    def roles(self) -> list[str]:
        """Each player's part in the current deal, when the rules give the players different parts
        (Piquesept: ``"soloist"`` and ``"defender"``), one per player; empty when every player plays
        the same part. Public knowledge (a spectator knows it too). Tournaments and analyses report
        results per role from it, never from a view's keys."""
        return []

    def teams(self) -> list[list[int]]:
        """The players who win or lose together (a partnership, a side against a soloist), each team
        sorted and the teams in the order of their first player; every player alone by default.
        Public knowledge, like :meth:`roles`: estimates add a team's shares, tournaments tell sides
        apart from it."""
        return [[p] for p in range(self.game.num_players)]

    # -- what a seat knows -------------------------------------------------------------------
    def check_player(self, player: object) -> int:
        """``player`` as a player index of this game, or a ``GameError`` naming it (a string, a bool,
        a negative or too large number would otherwise index some other seat's hand)."""
        n = self.game.num_players
        if type(player) is not int or not 0 <= player < n:
            raise GameError(f"player {quote(player)} is not a player of this game (0 to {n - 1})")
        return player

    @abstractmethod
    def observation(self, player: int) -> dict[str, Any]:
        """A JSON-able view holding exactly what ``player`` knows."""

    @abstractmethod
    def public_observation(self) -> dict[str, Any]:
        """A JSON-able view of what a spectator knows: everything public, no hand at all.

        Games build it with the same view function as :meth:`observation` (a seat's view is this
        plus that seat's own cards), so the two cannot disagree about what is public.
        """

    @abstractmethod
    def observation_tensor(self, player: int) -> list[float]:
        """A fixed-size numeric encoding of ``observation(player)``."""

    def legal_actions_mask(self) -> list[int]:
        mask = [0] * self.game.num_distinct_actions
        for a in self.legal_actions():
            mask[a] = 1
        return mask

    @abstractmethod
    def determinize(self, player: int, rng: random.Random) -> State:
        """A full state, drawn at random, consistent with everything ``player`` knows."""

    def last_events(self) -> list[dict[str, Any]]:
        """The public events caused by the last action (tricks won, points scored …), for narration.

        Each event is a dict with a ``type``; an event meant for some seats only carries
        ``"seats": [...]``.
        """
        return []

    def last_events_seen_by(self, viewer: int | None) -> list[dict[str, Any]]:
        """The events of the last action as ``viewer`` (a player, or None for a spectator) may see them.

        :meth:`last_events` filtered: an event carrying ``"seats"`` goes to those players only, so a
        spectator gets just the events without it. A game whose hidden events come in two versions
        (the card for the seats who saw it, a blank for the others) overrides this to give
        spectators the blank one.
        """
        out = []
        for e in self.last_events():
            seats = e.get("seats")
            if seats is None or (viewer is not None and viewer in seats):
                out.append(e)
        return out

    def action_event_seen_by(self, action: Any, viewer: int | None) -> dict[str, Any]:
        """``{"type": "action", "player": p, "action": text}``: ``action``, about to be taken by the
        current player ``p``, as ``viewer`` (None: a spectator) may read it (:meth:`action_seen_by`).

        An interface narrating a move builds this before ``apply_action`` and sends it followed by
        :meth:`last_events_seen_by` after it; nothing else about the move needs to be sent.
        """
        return {
            "type": "action",
            "player": self.current_player(),
            "action": self.action_seen_by(action, viewer),
        }

    def summary_extra(self) -> dict[str, Any]:
        """Game-specific fields of ``gamester replay --json``."""
        return {}

    def record(self) -> dict[str, Any]:
        """This state's record: the game, its options, the seed, the chance consumed so far (as
        codes) and the actions taken; for a state read from a position, the position and what came
        after it. ``gamester.core.record.replay`` reads it back."""
        g = self.game
        origin = self.chance.origin
        chance = self.chance.entries()
        actions = self.history_strings()
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "game": g.name,
            "rules_version": g.rules_version,
            "options": g.options_json(),
            "seed": self.seed,
        }
        if origin is not None:
            # Read from a position: the record starts there (docs/positions.md).
            record["position"] = origin.position
            chance = chance[origin.entries :]
            actions = actions[origin.actions :]
        record["chance"] = [g.format_chance(e) for e in chance]
        record["actions"] = actions
        return record

    def __str__(self) -> str:
        return f"<{self.game.spec()} after {len(self.history_strings())} actions>"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and deep-copy a state as its class, its game and its fields (every field that is
        set, found by :func:`field_names`), rebuilt by :func:`_rebuild_state`.

        Said explicitly for the compiled build: there a game's state cannot be made without running
        its ``__init__`` (mypyc's ``__new__`` calls it), which Python's default way needs, and its
        class lists no ``__slots__`` for ``copyreg`` to find. Both builds take this one path.
        """
        missing = object()  # a field not set (yet) stays unset in the copy
        values = {name: getattr(self, name, missing) for name in field_names(type(self))}
        values = {name: v for name, v in values.items() if v is not missing}
        return (_rebuild_state, (type(self), self.game, values))


def field_names(cls: type) -> list[str]:
    """The instance fields of a class (a state), base classes' first: its ``__slots__`` all the way
    up, or, for a class compiled by mypyc (which keeps no ``__slots__``), its ``__mypyc_attrs__``."""
    names: list[str] = []
    for k in reversed(cls.__mro__):
        declared = k.__dict__.get("__mypyc_attrs__") or k.__dict__.get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return names


def _rebuild_state(cls: type[State], game: Game, values: dict[str, Any]) -> State:
    """Unpickle a state (``State.__reduce__``): a state of ``game`` made through the protocol (its
    own fresh deal, thrown away), then every field set to the saved value."""
    state: State = game.new_state_with_chance(0, Chance(make_rng(0)))
    if type(state) is not cls:  # a subclass the game does not make (a test's, an adapter's)
        state = cls.__new__(cls)
    for name in field_names(cls):
        if name in values:
            setattr(state, name, values[name])
        elif hasattr(state, name):
            delattr(state, name)
    return state
