"""What search needs from a game, offered by the game itself: its *kit*.

OpenSpiel's games supply the resampler imperfect-information search needs; here each game also
supplies its playing knowledge, so the agents are written once, over this interface, and never read a
game's private fields or test its name. ``game.kit()`` returns the game's :class:`Kit`; a game that
offers nothing beyond the protocol gets the base class, and the generic agents (``random``,
``ismcts`` with random rollouts) still play it.

What a kit may offer (each part is optional; ``None`` or ``has_heuristic = False`` when absent):

* ``heuristic(view, obs, legal, rng)``: a good player's rules of thumb, reading only the seat's
  :class:`View` (its observation, legal actions and notation); ties broken by ``rng``.
* ``playout(world, legal, rng)``: the same choice for the seat to move in a *world* (a full state the
  agent drew itself through ``determinize``), computed as fast as the game can from what that seat
  knows; it must give every action the score ``heuristic`` gives it from that seat's view (Penneech
  and Piquesept choose identically, generator included; Pentyrch's playout draws for ties only).
* ``world_view(world)``: a typed, read-only snapshot of a sampled world for agents of one's own
  and the game's own search (each game's ``<Game>World``: ``PenneechWorld``, ``PiqueseptWorld``,
  ``PentyrchWorld``; the state's ``world_view()`` makes it). Its type is the game's own.
* ``rule_choice(view, legal)``: a decision the heuristic makes by rule, with its estimated chance of
  winning (no search needed).
* ``rollout_model``: where a playout may stop, how to score it there and a cheap playout policy.
* ``solver``: the exact value of every legal action in a world (the rest of a deal, for ``pimc``).
* ``scored_actions(world, legal)`` and ``static_value(world)`` (``has_move_scores``): the heuristic's
  score and board effect of every legal action, and an evaluation of a position (for ``lookahead``).
* ``race``: a race of deals to a target score (:class:`DealRace`), for agents that score the end of a
  deal by the futures that follow it.
* ``recommended_agent``: the strongest agent spec for the game at about a second a move;
  ``skill_ladder``: the agent whose growing budget ``analyse`` uses to measure how much skill pays.
* ``deal_history(world)``: a sampled world as it stood when its deal began, and the actions since;
  what policy inference replays (``gamester.agents.belief``). Every game has it (the base class
  replays the record); a game may offer a cheaper one.
* ``redraw_unseen(state, rng)``: a state with only the chance still to come drawn afresh: more
  worlds from one that inference weighed (``gamester.agents.belief``), and, from the true state, the
  worlds of the research-only ``oracle`` (``gamester.sim.oracle``), never a player's.

Everything that reads a world reads a state the agent sampled itself, so it sees no true hidden card;
what a seat may not know (the other hands of its own sampled world) is used only where the docstring
says so (solvers and rollout models, which play perfect-information playouts by design).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from gamester.core._mypyc import mypyc_attr
from gamester.core.errors import GameError
from gamester.core.rng import make_rng

if TYPE_CHECKING:
    from gamester.core.protocol import Game, State


# Compiled (docs/compiled.md), View and Kit stay open to subclasses written in plain Python: an
# analysis's clairvoyant view, a test's counting view, the kit of a game from another package.
@mypyc_attr(allow_interpreted_subclasses=True)
class View:
    """One player's window on a state: its observation, its legal actions (on its turn), notation
    and ``determinize``. An agent holding a View cannot read the other hands even by accident, and two
    states that look the same to the seat lead a seeded agent to the same choice."""

    __slots__ = ("_state", "player")

    def __init__(self, state: State, player: int) -> None:
        self._state = state
        self.player = player

    @property
    def game(self) -> Game:
        return self._state.game

    def observation(self) -> dict[str, Any]:
        return self._state.observation(self.player)

    def observation_tensor(self) -> list[float]:
        return self._state.observation_tensor(self.player)

    def is_my_turn(self) -> bool:
        return self._state.current_player() == self.player

    def legal_actions(self) -> list[int]:
        if not self.is_my_turn():
            return []
        return self._state.legal_actions()

    def action_to_string(self, action: int) -> str:
        """The notation of ``action``; off this player's turn, only what it may know of an action
        of the mover's (``State.action_named_for``)."""
        if self.is_my_turn():
            return self._state.action_to_string(action)
        return self._state.action_named_for(action, self.player)

    def string_to_action(self, text: str) -> int:
        return self._state.string_to_action(text)

    def determinize(self, rng: random.Random) -> State:
        """A full state, drawn with ``rng``, consistent with everything this player knows."""
        return self._state.determinize(self.player, rng)


@dataclass(frozen=True)
class RolloutModel:
    """How a playout from a sampled world may be cut short and scored."""

    start: Callable[[State], Any]
    """A marker taken when the rollout begins (e.g. the deal number)."""
    stop: Callable[[State, Any, int], bool]
    """Whether to stop: (state, marker, actions so far)."""
    value: Callable[[State], list[float]]
    """Estimated returns of a non-terminal state where the rollout stopped."""
    policy: Callable[[State, list[int], random.Random], int] | None = None
    """The playout policy (None: uniformly random)."""


class Solver(Protocol):
    """Exact values of the actions of a sampled world (the rest of the deal, both sides perfect)."""

    def fixed_choice(self, view: View, legal: list[int], rng: random.Random) -> int | None:
        """A decision the solver does not search (taken by rule), or None."""

    def solve_actions(self, world: State, me: int) -> dict[int, float]:
        """The value for ``me`` of every legal action of ``world``."""

    def as_probability(self, value: float, view: View) -> float | None:
        """An averaged value as a chance of winning, or None where it is no such thing."""


class DealRace(Protocol):
    """A game played as a race of deals to a target score (Penneech)."""

    target: int

    def deal_number(self, world: State) -> int:
        """How many deals have been started (changes the moment a deal ends)."""

    def next_dealer(self, world: State) -> int:
        """Who deals the deal after the one that has just ended."""

    def scores_before_next_deal(self, world: State) -> list[int]:
        """The scores at the end of the deal just finished, before anything of the next one."""

    def deal_replay(self, world: State) -> tuple[State, list[int]]:
        """The world as it stood at the first play of its current deal, with the target out of
        reach, and the plays made since (for checking a world against the opponent's plays)."""

    def restock(self, world: State, rng: random.Random) -> State:
        """A copy of ``world`` with everything no seat has seen yet (the stock, later deals) drawn
        afresh from ``rng``."""

    def race_now(self, view: View) -> float:
        """The seat's chance to win from the present scores, at a deal's start."""

    def chance(self, scores: list[int], seat: int) -> float:
        """``seat``'s chance to win from ``scores`` at a deal's end (the game's own estimate)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Kit:
    """What a game offers search; the base class offers nothing beyond the protocol."""

    has_heuristic: ClassVar[bool] = False
    has_move_scores: ClassVar[bool] = False
    """Whether :meth:`scored_actions` and :meth:`static_value` are offered."""
    has_observation_turn: ClassVar[bool] = False
    """Whether :meth:`observation_turn` is offered."""
    recommended_agent: ClassVar[str] = "ismcts:seconds=1"
    skill_ladder: ClassVar[str] = "ismcts:iterations={}"
    """The agent ``analyse`` measures skill with, ``{}`` standing for its budget (docs/analysis.md)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        # Set here, not as class defaults: a compiled (mypyc) class has no class-level instance defaults.
        self.rollout_model: RolloutModel | None = None
        self.solver: Solver | None = None
        self.race: DealRace | None = None

    def heuristic(self, view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
        """The heuristic's choice among ``legal`` for ``view``'s player (``obs``: its observation)."""
        raise GameError(f"{self.game.name} offers no heuristic")

    def playout(self, world: State, legal: list[int], rng: random.Random) -> int:
        """The heuristic's choice for the seat to move in a sampled ``world``, from that seat's view."""
        p = world.current_player()
        return self.heuristic(View(world, p), world.observation(p), legal, rng)

    def world_view(self, world: State) -> object:
        """A read-only snapshot of a sampled ``world`` with every card in the open, of the game's own
        type (``<Game>World``); the base offers none."""
        raise GameError(f"{self.game.name} offers no world view")

    def rule_choice(self, view: View, legal: list[int]) -> tuple[int, float] | None:
        """A decision made by rule, with the seat's estimated chance of winning; None: search it."""
        return None

    def scored_actions(self, world: State, legal: list[int]) -> list[tuple[float, int, Hashable]] | None:
        """(heuristic score, action, board effect) of every legal action; None if not offered."""
        return None

    def static_value(self, world: State) -> list[float] | None:
        """Estimated returns of a position without playing on; None if not offered."""
        return None

    def observation_turn(self, world: State) -> tuple[int, ...] | None:
        """For a game whose board and rules look the same from every seat: the index order that shows
        an observation tensor taken in ``world`` as though its seat to move sat at the first seat
        (``tensor[order]``), so that a network learns one seat's geometry, not every seat's; None
        if not offered."""
        return None

    def deal_history(self, world: State) -> tuple[State, list[int]]:
        """``world`` (a state the agent drew itself) as it stood when its current deal began, before
        any player's choice in it, and the actions taken since, in order: applied to the first, they
        give ``world`` again. Policy inference (``gamester.agents.belief``) replays them to ask how
        likely each player's moves were had this world been the true one. The base class replays the
        world's record from where it starts (:meth:`record_start`), the whole game counting as one
        deal."""
        start, skip = self.record_start(world)
        s = start.clone()
        actions: list[int] = []
        for text in world.history_strings()[skip:]:
            a = s.string_to_action(text)
            actions.append(a)
            s.apply_action(a)
        return start, actions

    def record_start(self, world: State) -> tuple[State, int]:
        """The state ``world``'s record starts from, rebuilt by the game from the chance ``world``
        consumed: the game's first (a fresh ``new_initial_state``), or for a state read from a
        position (every world of one is a position of its own) that position read again; and how many
        of ``world``'s actions (``history_strings()``) come before it. What a ``deal_history`` replays
        ``world``'s actions from, so that a replay goes through the game's own rules."""
        game = world.game
        chance = [game.format_chance(e) for e in world.chance.entries()]
        origin = world.chance.origin
        if origin is None:
            return game.new_initial_state(seed=world.seed, chance=chance), 0
        return game.read_position(origin.position, chance[origin.entries :]), origin.actions

    def redraw_unseen(self, state: State, rng: random.Random) -> State:
        """A copy of ``state`` with every card any seat holds where it is, and only the chance still
        to come (what no seat has seen yet) drawn afresh from ``rng``. On a world the agent drew, more
        worlds with the same hands (policy inference keeps a weighed world more than once; no
        player's moves say anything about cards no one has seen). On the true state, the world of an
        oracle that sees every hand but not the future: for research only (``gamester.sim.oracle``
        hands it to agents that declare themselves oracles), never given to a player. The base class
        keeps the whole position and gives the copy a fresh generator."""
        s = state.clone()
        s.chance.given = None
        s.chance.rng = make_rng(rng.getrandbits(63))
        return s
