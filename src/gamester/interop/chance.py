"""Chance one card at a time: the engine's chance requests as a sequence of explicit chance steps.

Our games draw chance in whole entries (a shuffled pack, one drawn card) through ``state.chance``;
OpenSpiel wants a chance node per outcome, with its probabilities. :class:`Driver` sits between the
two. It gives the engine a :class:`ProbeChance`, whose ``pack``/``draw`` raise :class:`ChanceNeeded`
(saying which cards, and how many of the top positions the game will read) when the next entry is
not known yet. The driver then offers those positions one card at a time, each uniform over the
cards still unplaced — exactly the law of a uniform shuffle's top positions, or of a uniform draw —
and once the entry is complete it fills the unread rest of the pack in sorted order and retries the
move that needed it, now with that entry known. A rule that later reads deeper into a pack
(``full_pack``) gets the missing positions as chance steps too, so every card a rule ever reads is
real chance. Records are unchanged: the engine logs the completed entries as it always does.

The engine is never changed half-way: a move that stops on missing chance is replayed from the last
snapshot (taken each time chance was consumed) once the entry is known.

Nothing here imports OpenSpiel; ``gamester.interop.openspiel`` wraps a driver in ``pyspiel.State``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.registry import load_game
from gamester.core.rng import Chance, make_rng

CHANCE = -1
"""``current_player()`` at a chance step (OpenSpiel's ``PlayerId.CHANCE``)."""

_IDLE_RNG = make_rng(0)  # a probe with known entries never draws; this only fills the slot


def _same(x: Any) -> int:
    """Entries held by a driver are already card ids."""
    return int(x)


class ChanceNeeded(Exception):
    """The engine asked for chance outcome ``index``, which is not known yet.

    ``cards``: the cards the entry is made of (a pack's cards, a draw's candidates); ``count``: how
    many leading positions are chance (the rest does not matter, or is forced); ``prefix``: positions
    already fixed (a pack read deeper than first promised); ``draw``: a single card, not a pack.
    """

    def __init__(
        self, index: int, cards: Sequence[int], count: int, prefix: Sequence[int], draw: bool
    ) -> None:
        super().__init__(f"chance[{index}] is needed")
        self.index = index
        self.cards = tuple(cards)
        self.count = count
        self.prefix = tuple(prefix)
        self.draw = draw


class ProbeChance(Chance):
    """A :class:`Chance` whose known entries (card ids) come from the driver; asking past them, or
    deeper into a pack than was drawn, raises :class:`ChanceNeeded`. With ``given`` None (a world
    from ``determinize``) it draws from its generator like a plain ``Chance``."""

    __slots__ = ("exact",)

    def __init__(
        self, given: tuple[Any, ...] | None, exact: tuple[int, ...], rng: random.Random | None = None
    ) -> None:
        super().__init__(_IDLE_RNG if rng is None else rng, given)
        self.exact = exact  # per entry: how many leading positions are real chance

    def copy(self) -> ProbeChance:
        if self.given is None:  # a determinized world: it owns a generator, copy it
            old = self.rng
            r = type(old).__new__(type(old))
            r.setstate(old.getstate())
            c = ProbeChance(None, self.exact, r)
        else:
            c = ProbeChance(tuple(self.given), self.exact)
        c.log = list(self.log)
        return c

    def pack(self, cards: Sequence[int], parse: Callable[[Any], int], used: int | None = None) -> list[int]:
        given = self.given
        if given is None:
            return super().pack(cards, parse, used)
        i = len(self.log)
        if i >= len(given):
            n = len(cards)
            count = n - 1 if used is None or used >= n - 1 else used
            raise ChanceNeeded(i, sorted(cards), count, (), False)
        # An entry the driver built from this very request: its cards are right by construction.
        p = list(given[i])
        if len(p) != len(cards):
            return super().pack(cards, _same, used)  # (checks and names what is wrong)
        self.log.append(p)
        return p

    def draw(self, candidates: Sequence[int], parse: Callable[[Any], int]) -> int:
        given = self.given
        if given is None:
            return super().draw(candidates, parse)
        i = len(self.log)
        if i >= len(given):
            raise ChanceNeeded(i, sorted(candidates), 1, (), True)
        return super().draw(candidates, _same)

    def full_pack(self, index: int) -> list[int]:
        given = self.given
        if given is not None and index < len(self.exact):
            entry = given[index]
            if self.exact[index] < len(entry) - 1:
                raise ChanceNeeded(index, sorted(entry), len(entry) - 1, entry[: self.exact[index]], False)
        return super().full_pack(index)


def _overrides_seen_by(state: State) -> bool:
    return type(state).action_seen_by is not State.action_seen_by


class Driver:
    """One position of a game, with its pending chance as explicit steps (see the module docstring).

    ``state`` is the engine's position (None only before the first deal is known); while chance is
    pending it is the position before the move that needs it. ``seen`` (only for games where a move
    can read differently to different players) holds, per player, the moves as that player saw them.
    """

    __slots__ = (
        "game",
        "seed",
        "state",
        "snap",
        "since",
        "given",
        "exact",
        "need",
        "drawn",
        "left",
        "pending",
        "seen",
        "_hidden_moves",
    )

    def __init__(self, game: Game, seed: int = 0) -> None:
        self.game = game
        self.seed = seed
        self.state: State | None = None
        self.snap: State | None = None
        self.since: list[int] = []
        self.given: tuple[Any, ...] = ()
        self.exact: tuple[int, ...] = ()
        self.need: ChanceNeeded | None = None
        self.drawn: list[int] = []
        self.left: list[int] = []  # the pending entry's cards not placed yet
        self.pending: int | None = None
        self.seen: list[list[str]] | None = None
        self._hidden_moves = False
        self._resume()

    # -- construction from a full state ------------------------------------------------------
    @classmethod
    def from_state(cls, state: State) -> Driver:
        """A driver at ``state`` (a real game or a world from ``determinize``), future chance explicit.

        The position is rebuilt from its chance entries and moves, so that what each player saw of
        every move is recomputed for this world (``seen``).
        """
        d = cls.__new__(cls)
        d.game = state.game
        d.seed = state.seed
        entries = state.chance.entries()
        d.given = tuple(list(e) if isinstance(e, list) else e for e in entries)
        d.exact = tuple(len(e) if isinstance(e, list) else 1 for e in entries)
        d.need = None
        d.drawn = []
        d.left = []
        d.pending = None
        d.seen = None
        d._hidden_moves = _overrides_seen_by(state)
        if d._hidden_moves:
            d._replay(state.history_strings())
        else:
            s = state.clone()
            s.chance = _probe_like(d.given, d.exact)
            d.state = s
            d.snap = s.clone()
            d.since = []
        return d

    def _replay(self, moves: Sequence[str]) -> None:
        """Rebuild ``state`` from the known entries and ``moves`` (notation)."""
        self.state = self.snap = None
        self.since = []
        self.seen = None
        self.pending = None
        self.need = None
        self.drawn = []
        self.left = []
        self._resume()
        if moves and self.need is not None:
            raise GameError("chance: the entries do not reach the first move")
        for text in moves:
            assert self.state is not None
            self.apply(self.state.string_to_action(text))
            if self.need is not None:
                raise GameError("chance: a move needs chance the entries do not hold")

    def copy(self) -> Driver:
        d = Driver.__new__(Driver)
        d.game = self.game
        d.seed = self.seed
        d.state = None if self.state is None else self.state.clone()
        d.snap = self.snap  # never changed, only cloned
        d.since = list(self.since)
        d.given = self.given
        d.exact = self.exact
        d.need = self.need
        d.drawn = list(self.drawn)
        d.left = list(self.left)
        d.pending = self.pending
        d.seen = None if self.seen is None else [list(s) for s in self.seen]
        d._hidden_moves = self._hidden_moves
        return d

    def __deepcopy__(self, memo: dict[int, Any]) -> Driver:
        return self.copy()  # (OpenSpiel's clone deep-copies a Python state's fields)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_driver_from_json, (self.game.spec(), self.to_json()))  # (and serialize pickles them)

    # -- whose turn --------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.need is not None:
            return CHANCE
        assert self.state is not None
        return self.state.current_player()

    def is_terminal(self) -> bool:
        return self.need is None and self.state is not None and self.state.is_terminal()

    def returns(self) -> list[float]:
        if self.state is None:
            return [0.0] * self.game.num_players
        return self.state.returns()

    def legal_actions(self) -> list[int]:
        if self.need is not None or self.state is None:
            return []
        return self.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards the next chance step can give, each with its probability (uniform)."""
        need = self.need
        if need is None:
            return []
        p = 1.0 / len(self.left)
        return [(c, p) for c in self.left]

    def _wait(self, need: ChanceNeeded, drawn: Sequence[int] = ()) -> None:
        """Stop at chance: ``need`` is pending, ``drawn`` of its open positions already placed."""
        self.need = need
        self.drawn = list(drawn)
        placed = set(need.prefix)
        placed.update(drawn)
        self.left = [c for c in need.cards if c not in placed]

    # -- moves -------------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """A player's move (an engine action); may leave the driver at a chance step."""
        if self.need is not None:
            raise GameError(f"action {action}: chance is to move, not a player")
        s = self.state
        assert s is not None
        viewer_strings = self._seen_strings(s, action) if self._hidden_moves else None
        try:
            s.apply_action(action)
        except ChanceNeeded as need:
            self.state = self._restore()
            self.pending = action
            self._wait(need)
            return
        except BaseException:
            self.state = self._restore()
            raise
        self.since.append(action)
        if viewer_strings is not None:
            self._record_seen(viewer_strings)

    def apply_chance(self, card: int) -> None:
        """One chance step: ``card`` takes the next open position of the pending entry."""
        need = self.need
        if need is None:
            raise GameError(f"chance outcome {card}: a player is to move, not chance")
        if card not in self.left:
            raise GameError(f"chance outcome {card} is not possible here")
        self.left.remove(card)
        self.drawn.append(card)
        if len(need.prefix) + len(self.drawn) < need.count:
            return
        # The entry is complete: the read positions, then the rest in sorted order.
        top = list(need.prefix) + self.drawn
        if need.draw:
            entry: Any = top[0]
        else:
            taken = set(top)
            entry = top + [c for c in need.cards if c not in taken]
        deeper = need.index < len(self.given)
        if deeper:
            given = list(self.given)
            given[need.index] = entry
            exact = list(self.exact)
            exact[need.index] = need.count
            self.given, self.exact = tuple(given), tuple(exact)
        else:
            self.given += (entry,)
            self.exact += (need.count,)
        self.need = None
        self.drawn = []
        self.left = []
        if deeper and self.state is not None:
            # An entry already read was extended: rebuild every move on top of the longer entry.
            pending = self.pending
            self._replay(self.state.history_strings())
            self.pending = pending
        self._resume()

    def _resume(self) -> None:
        """Build the first position, or play the move that waited for chance, with what is known."""
        action = self.pending
        try:
            if self.state is None:
                s = self.game.new_state_with_chance(self.seed, ProbeChance(self.given, self.exact))
                self._hidden_moves = _overrides_seen_by(s)
                if self._hidden_moves:
                    self.seen = [[] for _ in range(self.game.num_players)]
            else:
                s = self.state
                _set_known(s.chance, self.given, self.exact)
            viewer_strings = None
            if action is not None:
                viewer_strings = self._seen_strings(s, action) if self._hidden_moves else None
                s.apply_action(action)
        except ChanceNeeded as need:
            self.state = None if self.state is None else self._restore()
            self._wait(need)
            return
        self.state = s
        self.snap = s.clone()
        self.since = []
        self.pending = None
        if viewer_strings is not None:
            self._record_seen(viewer_strings)

    def _restore(self) -> State:
        """The position before the move under way: the snapshot with the moves since replayed."""
        assert self.snap is not None
        s = self.snap.clone()
        _set_known(s.chance, self.given, self.exact)
        for a in self.since:
            s.apply_action(a)
        return s

    # -- what each player saw ----------------------------------------------------------------
    def _seen_strings(self, s: State, action: int) -> list[str]:
        return [s.action_seen_by(action, p) for p in range(self.game.num_players)]

    def _record_seen(self, strings: list[str]) -> None:
        assert self.seen is not None
        for p, text in enumerate(strings):
            self.seen[p].append(text)

    def moves_seen_by(self, player: int) -> list[str]:
        """Every move so far as ``player`` saw it (a pending move is not made yet)."""
        if self.seen is not None:
            return list(self.seen[player])
        if self.state is None:
            return []
        return self.state.history_strings()

    def information_state_string(self, player: int) -> str:
        """What ``player`` knows now and every move as it saw them (perfect recall)."""
        moves = " ".join(self.moves_seen_by(player))
        return f"{self.observation_string(player)}\nmoves: {moves}"

    def observation_string(self, player: int) -> str:
        if self.state is None:
            return f"dealing (card {len(self.drawn) + 1})"
        text = json.dumps(self.state.observation(player), sort_keys=True, separators=(",", ":"))
        if self.need is not None:  # who holds a card being dealt is not public
            text += f"\ndealing (card {len(self.need.prefix) + len(self.drawn) + 1})"
        return text

    def observation_tensor(self, player: int) -> list[float]:
        if self.state is None:
            return [0.0] * self.game.observation_tensor_size
        return self.state.observation_tensor(player)

    # -- serialization -----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Everything needed to rebuild this driver: known entries, moves, the pending chance."""
        moves = [] if self.state is None else self.state.history_strings()
        need = None
        if self.need is not None:
            need = {"drawn": list(self.drawn), "pending": self.pending}
        return {
            "game": self.game.spec(),
            "seed": self.seed,
            "given": list(self.given),
            "exact": list(self.exact),
            "moves": moves,
            "need": need,
        }

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any]) -> Driver:
        """The driver :meth:`to_json` described: rebuilt by replaying its moves on its entries."""
        d = cls.__new__(cls)
        d.game = game
        d.seed = int(data["seed"])
        d.given = tuple(list(e) if isinstance(e, list) else int(e) for e in data["given"])
        d.exact = tuple(int(x) for x in data["exact"])
        d._hidden_moves = False
        d._replay(data["moves"])
        need = data.get("need")
        if need is not None:
            if need["pending"] is not None:
                d.apply(int(need["pending"]))
            if d.need is None:
                raise GameError("chance: the serialized state waits for chance its moves do not need")
            d._wait(d.need, [int(c) for c in need["drawn"]])
        return d


def _driver_from_json(spec: str, data: dict[str, Any]) -> Driver:
    return Driver.from_json(load_game(spec), data)


def _set_known(chance: Chance, given: tuple[Any, ...], exact: tuple[int, ...]) -> None:
    assert isinstance(chance, ProbeChance)
    chance.given = given
    chance.exact = exact


def _probe_like(given: tuple[Any, ...], exact: tuple[int, ...]) -> ProbeChance:
    """A probe holding ``given`` as entries already consumed (a world wrapped as it stands)."""
    p = ProbeChance(given, exact)
    p.log = [list(e) if isinstance(e, list) else e for e in given]  # (its own lists)
    return p
