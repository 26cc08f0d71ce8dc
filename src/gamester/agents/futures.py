"""``futures``: rollouts to the end of the deal, scored by an exact race over simulated futures.

For games played as a race of deals to a target score, whose kit says so (``game.kit().race``, a
:class:`~gamester.core.kit.DealRace`: Penneech); without a race (Penneech with ``objective=deal``) it
plays as ``rollout``.

The same one-step lookahead as ``rollout`` (sampled worlds, every legal action played in every world,
then the heuristic in both seats, each from its own view; common random numbers; pruning), but the
deal's end is scored differently. ``rollout`` turns the scores into a chance of winning with a normal
approximation (about 14 points a deal, spread 12). Here the heuristic's play does not depend on the
scores, so the rest of a game after a deal is a sequence of (seat, points) events that does not depend on
the scores it starts from. A *bank* of such sequences (``bank`` games of heuristic self-play from a
fresh deal, one set per next dealer, drawn once with a fixed seed and shared by every instance) gives,
for any scores, the exact share of futures in which each seat reaches the target first: the dealer's
first turn-up, the lumpy honours (a turned-up 7D is 14) and the card bonus are all in it.

Where the deal ends the playout stops before the next deal's first turn-up (its points are taken back:
the bank's futures include their own). Reaching the target inside the deal is a win on the spot.

The worlds are also filtered by the opponent's plays: ``heuristic`` is deterministic, so a world is
kept only if the heuristic, replayed in it from the opponent's seat since the deal's first trick, makes
every play the opponent made (``infer=heuristic``, the default, once spelt ``infer=1``; see
``_sample``). ``infer=policy`` (``pool=N``) weighs the worlds by an opponent model instead
(``gamester.agents.belief``), and ``infer=none`` (once ``infer=0``) takes them as drawn. With
``objective=deal`` the agent plays as ``rollout`` (with ``infer=policy`` if asked, else none).
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import os
import random
import time
from bisect import bisect_left
from pathlib import Path
from typing import Any

from gamester.agents.base import EvaluatingAgent, View, float_param, int_param, seed_param
from gamester.agents.belief import infer_param, pool_param, with_inference, world_source
from gamester.agents.heuristic import heuristic_kit
from gamester.agents.rollout import Finish, RolloutAgent, rule_decision, search_actions
from gamester.core.errors import AgentError
from gamester.core.kit import DealRace, Kit
from gamester.core.protocol import Game, State
from gamester.core.rng import choice, make_rng

INFER = ("heuristic", "policy", "none")
_INFER_ALIASES = {"1": "heuristic", "0": "none"}
_BANK_SEED = 0x5EED_F00D
# (options, bank size) -> per next dealer, per simulated game: the running points of seat 0 and of
# seat 1 after each scoring event (non-decreasing, so the event that reaches a total is a bisection).
Bank = list[tuple[list[list[int]], list[list[int]]]]
_BANKS: dict[tuple[Any, ...], Bank] = {}


def _simulate(game: Game, rng: random.Random) -> list[tuple[int, int]]:
    """One heuristic self-play game from a fresh deal: its scoring events (seat, points) in order."""
    kit = game.kit()
    state = game.new_initial_state(seed=rng.getrandbits(48))
    events: list[tuple[int, int]] = []
    last = [0, 0]

    def record() -> None:
        s = state.scores()
        for seat in (0, 1):
            if s[seat] != last[seat]:
                events.append((seat, s[seat] - last[seat]))
                last[seat] = s[seat]

    record()
    tie = random.Random(0)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[0] if len(legal) == 1 else kit.playout(state, legal, tie))
        record()
    return events


def _build(game: Game, size: int, dealers: tuple[int, ...] = (0, 1)) -> Bank:
    """``size`` heuristic self-play games per next dealer, from the bank's fixed seed."""
    rng = random.Random(_BANK_SEED)
    out = []
    for dealer in dealers:
        g = type(game)(dataclasses.replace(game.options, first_dealer=dealer))
        runs0: list[list[int]] = []
        runs1: list[list[int]] = []
        for _ in range(size):
            tot = [0, 0]
            run0, run1 = [], []
            for seat, pts in _simulate(g, rng):
                tot[seat] += pts
                run0.append(tot[0])
                run1.append(tot[1])
            runs0.append(run0)
            runs1.append(run1)
        out.append((runs0, runs1))
    return out


# The cold start (issue 12): building the default bank takes about two seconds, longer on a busy
# machine, and ``gamester play penneech`` opens with this agent. So a bank is read from a file when one
# is there: shipped with the package for the default options (``agents/banks/``, written by
# ``python -m gamester.agents.futures``), else from the user's cache (``$GAMESTER_CACHE_DIR``, else
# ``$XDG_CACHE_HOME/gamester``, else ``~/.cache/gamester``), where a freshly built bank is also stored.
# A file is trusted only if its first ``_CHECK`` games are exactly what the code plays today, so a change
# to the heuristic or the rules makes the file stale and it is rebuilt, never used.
_CHECK = 6
_SHIPPED = Path(__file__).with_name("banks")
_FILE_VERSION = 1


def _bank_name(game: Game, size: int) -> str:
    opts = dataclasses.asdict(game.options)
    text = json.dumps([_FILE_VERSION, size, _BANK_SEED, sorted(opts.items())], default=str)
    return f"futures-bank-{hashlib.blake2b(text.encode(), digest_size=10).hexdigest()}.json.gz"


def _cache_dir() -> Path:
    env = os.environ.get("GAMESTER_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gamester"


def _load(path: Path, game: Game, size: int) -> Bank | None:
    """The bank stored at ``path`` if it is well-formed and still what the code would build."""
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
        bank: Bank = [(d[0], d[1]) for d in data]
        ok = len(bank) == 2 and all(len(r0) == size == len(r1) for r0, r1 in bank)
    except (OSError, ValueError, TypeError, KeyError, IndexError, EOFError, RecursionError):
        return None
    if not ok:
        return None
    check = _build(game, _CHECK, (0,))[0]
    if (check[0], check[1]) != (bank[0][0][:_CHECK], bank[0][1][:_CHECK]):
        return None
    return bank


def _save(path: Path, bank: Bank) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(gzip.compress(json.dumps(bank, separators=(",", ":")).encode(), 6, mtime=0))
        os.replace(tmp, path)  # atomic: a reader never sees half a file
    except OSError:
        pass  # no writable cache: build again next time


def _bank(game: Game, size: int) -> Bank:
    opts = dataclasses.asdict(game.options)
    key = (tuple(sorted(opts.items())), size)
    if key in _BANKS:
        return _BANKS[key]
    name = _bank_name(game, size)
    bank = _load(_SHIPPED / name, game, size)
    if bank is None:
        bank = _load(_cache_dir() / name, game, size)
    if bank is None:
        bank = _build(game, size)
        _save(_cache_dir() / name, bank)
    _BANKS[key] = bank
    return bank


class _RaceIndex:
    """A bank indexed for the race (``FuturesAgent._race``): for a next dealer, a seat and the
    points that seat still needs, ``at[i]`` is the set of the bank's games (bit ``g`` for game ``g``)
    in which the seat gets them at event ``i`` (``i`` = the game's number of events if never), and
    ``above[i]`` the set in which it gets them later than event ``i``. Seat 0 wins game ``g`` when
    its event comes first, and half of it when both come at the same event (or never), so its share
    is a few dozen intersections of such sets instead of two bisections in every game of the bank."""

    __slots__ = ("bank", "games", "_sets")

    def __init__(self, bank: Bank) -> None:
        self.bank = bank
        self.games = len(bank[0][0])
        self._sets: dict[tuple[int, int, int], tuple[list[int], list[int]]] = {}

    def sets(self, dealer: int, seat: int, need: int) -> tuple[list[int], list[int]]:
        """``(at, above)`` for ``seat`` needing ``need`` points, ``dealer`` dealing next."""
        key = (dealer, seat, need)
        found = self._sets.get(key)
        if found is not None:
            return found
        at: list[int] = []
        bit = 1
        for run in self.bank[dealer][seat]:
            # The first event at which the seat's running total reaches ``need`` (the run's
            # length if never): the totals never decrease.
            i = bisect_left(run, need)
            while len(at) <= i:
                at.append(0)
            at[i] |= bit
            bit <<= 1
        above = [0] * len(at)
        later = 0
        for i in range(len(at) - 1, -1, -1):
            above[i] = later
            later |= at[i]
        found = self._sets[key] = (at, above)
        return found

    def share(self, dealer: int, need0: int, need1: int) -> float:
        """Seat 0's share of the games: those where it reaches ``need0`` before seat 1 reaches
        ``need1``, and half of those where both do at the same event (or neither ever does)."""
        at0 = self.sets(dealer, 0, need0)[0]
        at1, above1 = self.sets(dealer, 1, need1)
        first = tie = 0
        for i in range(min(len(at0), len(at1))):
            games = at0[i]
            if games:
                first += (games & above1[i]).bit_count()
                tie += (games & at1[i]).bit_count()
        # The same float as adding 1.0 per game won and 0.5 per tie in turn: every partial sum is
        # a multiple of 0.5, held exactly.
        return (first + 0.5 * tie) / self.games


# id(bank) -> its index (which holds the bank, so the id is not reused while the entry lives).
_INDEXES: dict[int, _RaceIndex] = {}


def _race_index(bank: Bank) -> _RaceIndex:
    index = _INDEXES.get(id(bank))
    if index is None or index.bank is not bank:
        index = _INDEXES[id(bank)] = _RaceIndex(bank)
    return index


def _mismatches(kit: Kit, race: DealRace, world: State, opp: int, limit: int, tie: random.Random) -> int:
    """How many of ``opp``'s choices in this deal (more than one legal card) the heuristic would have
    made otherwise, were ``world`` the true deal; counting stops at ``limit``. The deal is replayed
    from its first trick (``race.deal_replay``): the world holds the dealt hands and the turn-ups; the
    plays are public."""
    s, plays = race.deal_replay(world)
    miss = 0
    for a in plays:
        if s.current_player() == opp:
            legal = s.legal_actions()
            if len(legal) > 1 and kit.playout(s, legal, tie) != a:
                miss += 1
                if miss >= limit:
                    return miss
        s.apply_action(a)
    return miss


class FuturesAgent(EvaluatingAgent):
    """``futures:worlds=300``: heuristic rollouts to the deal's end, scored over a bank of futures."""

    name = "futures"

    def __init__(
        self,
        game: Game | None = None,
        worlds: Any = 300,
        seconds: Any = None,
        prune: Any = 1,
        bank: Any = 2000,
        infer: Any = "heuristic",
        tries: Any = 8,
        seed: Any = None,
        pool: Any = 16,  # belief.POOL, spelt out: a compiled signature shows only literal defaults
    ) -> None:
        # infer=1 and infer=0, the spellings before policy inference, still mean what they meant.
        self.infer = infer_param(self.name, _INFER_ALIASES.get(str(infer).strip(), infer), INFER)
        self.pool = pool_param(pool)
        self.tries = int_param("tries", tries, 1)
        self.worlds = int_param("worlds", worlds, 1)
        self.prune = int_param("prune", prune) > 0
        self.bank_size = int_param("bank", bank, 10)
        self.seconds = float_param("seconds", seconds) if seconds is not None else None
        self.rng = make_rng(seed_param(seed))
        # The heuristic's tie-breaks in replays and playouts (Penneech's card plays break none by
        # chance); one generator per agent, not a new one per call.
        self._tie = random.Random(0)
        self._cache: dict[tuple[int, int, int], float] = {}
        self._cache_key: Any = None
        self._index: _RaceIndex | None = None  # the bank of the options of ``_cache_key``, indexed
        self._deal_agent: RolloutAgent | None = None
        if game is not None and heuristic_kit(self.name, game).race is not None:
            _bank(game, self.bank_size)  # built once per process, before the first decision

    def _race(self, game: Game, target: int, s0: int, s1: int, dealer: int) -> float:
        """Seat 0's share of the bank's futures in which it reaches ``target`` first, from scores
        ``s0``, ``s1`` with ``dealer`` dealing the next deal."""
        key = (s0, s1, dealer)
        v = self._cache.get(key)
        if v is None:
            index = self._index
            if index is None:
                index = self._index = _race_index(_bank(game, self.bank_size))
            v = index.share(dealer, target - s0, target - s1)
            self._cache[key] = v
        return v

    def _finish(self, kit: Kit, race: DealRace, state: State, me: int) -> float:
        """Play on with the heuristic in both seats to the deal's end; ``me``'s estimated return."""
        deal = race.deal_number(state)
        tie = self._tie
        while not state.is_terminal():
            if race.deal_number(state) != deal:
                # The next deal's first turn-up is taken back: the bank's futures hold their own.
                s = race.scores_before_next_deal(state)
                p0 = self._race(state.game, race.target, s[0], s[1], race.next_dealer(state))
                return 2.0 * (p0 if me == 0 else 1.0 - p0) - 1.0
            legal = state.legal_actions()
            state.apply_action(legal[0] if len(legal) == 1 else kit.playout(state, legal, tie))
        return float(state.returns()[me])

    def _sample(
        self,
        kit: Kit,
        race: DealRace,
        view: View,
        me: int,
        pool: list[State],
        budget: list[int],
        deadline: float | None = None,
    ) -> tuple[State, int]:
        """A world in which the opponent, playing like ``heuristic``, would have made every play it
        made in this deal: rejection sampling while the decision's budget of draws (and, under
        ``seconds=``, its time) lasts (consistent worlds go to ``pool``); after it, a pooled world
        with the stock shuffled afresh; with an empty pool, the draw with the fewest differing
        plays. Returns the world and that number."""
        if self.infer == "none":
            return view.determinize(self.rng), 0
        best: State | None = None
        best_miss = 1 << 30
        while best is None or (budget[0] > 0 and (deadline is None or time.perf_counter() < deadline)):
            budget[0] -= 1
            world = view.determinize(self.rng)
            miss = _mismatches(kit, race, world, 1 - me, best_miss, self._tie)
            if miss == 0:
                pool.append(world)
                return world, 0
            if miss < best_miss:
                best, best_miss = world, miss
        if pool:
            return race.restock(choice(self.rng, pool), self.rng), 0
        return best, best_miss

    def evaluate(self, view: View) -> dict[str, Any]:
        game = view.game
        kit = heuristic_kit(self.name, game)
        legal = view.legal_actions()
        if not legal:
            raise AgentError("agent 'futures': it is not this seat's turn")
        me = view.player
        ruled = rule_decision(kit, view, legal)
        if ruled is not None:
            return ruled
        race = kit.race
        if race is None:
            # One deal, no race: plain ``rollout`` with the same budget.
            if self._deal_agent is None:
                self._deal_agent = RolloutAgent(
                    game,
                    self.worlds,
                    self.seconds,
                    int(self.prune),
                    self.rng.getrandbits(32),
                    infer="policy" if self.infer == "policy" else "none",
                    pool=self.pool,
                )
            return self._deal_agent.evaluate(view)
        key = dataclasses.astuple(game.options)
        if key != self._cache_key:
            self._cache = {}
            self._cache_key = key
            self._index = None
        pool: list[State] = []
        budget = [self.tries * self.worlds]
        # Under seconds=, drawing consistent worlds counts against the time too: rejection sampling
        # alone used to take more than a second a move at seconds=0.1.
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds

        inferred = world_source(view, self.rng, self.infer, self.pool) if self.infer == "policy" else None

        def sample() -> tuple[State, Finish, int]:
            if inferred is not None:
                world, miss = inferred.draw(), 0
            else:
                world, miss = self._sample(kit, race, view, me, pool, budget, deadline)
            return world, lambda w: self._finish(kit, race, w, me), miss

        out, misses = search_actions(view, legal, sample, self.worlds, self.seconds, self.prune)
        out["inconsistent_worlds"] = misses
        return out if inferred is None else with_inference(out, inferred)


if __name__ == "__main__":  # python -m gamester.agents.futures: (re)write the shipped default bank
    from gamester.core.registry import load_game

    _g = load_game("penneech")
    _n = 2000
    _SHIPPED.mkdir(exist_ok=True)
    _save(_SHIPPED / _bank_name(_g, _n), _build(_g, _n))
    print(f"wrote {_SHIPPED / _bank_name(_g, _n)}")
