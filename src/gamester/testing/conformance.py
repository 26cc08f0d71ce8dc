"""Conformance: a game obeys the protocol (``gamester.core.protocol``), on seeded random games.

Legal actions sorted, in range and non-empty until the end; notation round-trips; illegal actions
refused without changing anything; records round-trip at every stop and replay from the seed alone;
clones independent; observations JSON-able, of fixed tensor size, consistent with ``determinize``;
determinism under disturbed global generators; a result at the end. A game's own invariant (cards
conserved …) is passed in as ``invariant(state)``, called after every action, raising
``AssertionError`` when broken.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable

import gamester
from gamester.core.errors import IllegalActionError
from gamester.core.protocol import TERMINAL, State
from gamester.core.rng import below, make_rng
from gamester.testing._common import GameLike, as_game, expect

Invariant = Callable[[State], None]


def check_sides(state: State, where: str) -> None:
    """The roles and teams the game declares: no role, or one word per player; the teams a
    partition of the players, each sorted, in the order of their first player."""
    n = state.game.num_players
    roles = state.roles()
    expect(
        roles == [] or (len(roles) == n and all(isinstance(r, str) and r for r in roles)),
        f"{where}: roles() must be empty or name one role per player, not {roles!r}",
    )
    teams = state.teams()
    flat = [p for t in teams for p in t]
    expect(
        sorted(flat) == list(range(n))
        and all(t == sorted(t) and t for t in teams)
        and teams == sorted(teams),
        f"{where}: teams() must split the players 0-{n - 1} into sorted teams, not {teams!r}",
    )


def check_position(state: State, rng: random.Random) -> None:
    """One position: legal actions, notation, an illegal action refused harmlessly, the views, the
    sides."""
    game = state.game
    where = f"{game.spec()} after {len(state.history_strings())} actions"
    check_sides(state, where)
    legal = state.legal_actions()
    if state.is_terminal():
        expect(legal == [], f"{where}: legal actions after the end")
        expect(state.current_player() == TERMINAL, f"{where}: current_player() is not TERMINAL at the end")
        return
    expect(legal, f"{where}: no legal action before the end")
    expect(legal == sorted(set(legal)), f"{where}: legal actions not sorted and distinct: {legal}")
    expect(all(0 <= a < game.num_distinct_actions for a in legal), f"{where}: a legal action out of range")
    mask = state.legal_actions_mask()
    expect([i for i, m in enumerate(mask) if m] == legal, f"{where}: the mask disagrees with legal_actions")
    for a in legal:
        text = state.action_to_string(a)
        expect(state.string_to_action(text) == a, f"{where}: {text!r} does not parse back to action {a}")
    legal_set = set(legal)
    if len(legal_set) < game.num_distinct_actions:
        action = below(rng, game.num_distinct_actions)
        while action in legal_set:
            action = below(rng, game.num_distinct_actions)
        before = state.record()
        try:
            state.apply_action(action)
        except IllegalActionError:
            pass
        else:
            expect(False, f"{where}: illegal action {action} was applied")
        expect(state.record() == before, f"{where}: a refused action changed the state")
    public = state.public_observation()
    json.dumps(public)
    expect("hand" not in public, f"{where}: the spectator's view holds a hand")
    for p in range(game.num_players):
        json.dumps(state.observation(p))
        expect(
            len(state.observation_tensor(p)) == game.observation_tensor_size,
            f"{where}: seat {p}'s tensor is not observation_tensor_size long",
        )


def check_random_game(game: GameLike, seed: int, invariant: Invariant | None = None) -> None:
    """A seeded random game to the end, every third position checked, and its result."""
    g = as_game(game)
    rng = make_rng(seed)
    state = g.new_initial_state(seed=seed)
    steps = 0
    while True:
        if invariant is not None:
            invariant(state)
        if steps % 3 == 0 or state.is_terminal():
            check_position(state, rng)
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[below(rng, len(legal))])
        steps += 1
        expect(steps < 20_000, f"{g.spec()} seed {seed}: no end after 20,000 actions")
    # One finite return per player; the winners are exactly the players with the highest return,
    # none when every return is equal (a draw).
    returns = state.returns()
    expect(len(returns) == g.num_players, f"{g.spec()}: {len(returns)} returns for {g.num_players} players")
    expect(all(math.isfinite(r) for r in returns), f"{g.spec()}: a return is not finite: {returns}")
    summary = gamester.summary(state)
    expect(summary["is_terminal"] is True and summary["current_player"] is None, f"{g.spec()}: summary")
    expect(summary["returns"] == returns, f"{g.spec()}: the summary's returns differ")
    best = max(returns)
    expected = [] if min(returns) == best else [p for p, r in enumerate(returns) if r == best]
    expect(summary["winners"] == expected, f"{g.spec()}: winners {summary['winners']} for {returns}")


def check_records_round_trip(game: GameLike, seed: int = 11) -> None:
    """At every few actions, the record survives JSON and replays to the same record and summary."""
    g = as_game(game)
    rng = make_rng(seed)
    state = g.new_initial_state(seed=seed)
    stops = 0
    while True:
        rec = json.loads(json.dumps(state.record()))
        again = gamester.replay(rec)
        where = f"{g.spec()} after {len(rec['actions'])} actions"
        expect(again.record() == rec, f"{where}: the replayed record differs")
        expect(gamester.summary(again) == gamester.summary(state), f"{where}: the replayed summary differs")
        if state.is_terminal() or stops > 60:
            break
        for _ in range(1 + below(rng, 5)):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[below(rng, len(legal))])
        stops += 1


def check_seed_alone_replays(game: GameLike, seed: int = 5) -> None:
    """A record with a seed and no chance replays identically (chance comes from the seed)."""
    g = as_game(game)
    state = g.new_initial_state(seed=seed)
    rng = make_rng(seed)
    for _ in range(30):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[below(rng, len(legal))])
    rec = state.record()
    del rec["chance"]
    expect(gamester.replay(rec).record() == state.record(), f"{g.spec()}: the seed alone replays otherwise")


def check_clones_independent(game: GameLike, seed: int = 3) -> None:
    """Playing a clone on leaves the original as it was; two clones given the same actions agree."""
    g = as_game(game)
    rng = make_rng(seed)
    state = g.new_initial_state(seed=seed)
    for _ in range(5):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[below(rng, len(legal))])
    before = state.record()
    obs_before = [state.observation(p) for p in range(g.num_players)]
    twin = state.clone()
    expect(twin.record() == before, f"{g.spec()}: a clone's record differs")
    while not twin.is_terminal():
        legal = twin.legal_actions()
        twin.apply_action(legal[below(rng, len(legal))])
    expect(state.record() == before, f"{g.spec()}: playing a clone changed the original's record")
    expect(
        [state.observation(p) for p in range(g.num_players)] == obs_before,
        f"{g.spec()}: playing a clone changed the original's views",
    )
    a, b = state.clone(), state.clone()
    r1, r2 = make_rng(8), make_rng(8)
    while not a.is_terminal():
        la, lb = a.legal_actions(), b.legal_actions()
        expect(la == lb, f"{g.spec()}: two clones offer different moves")
        a.apply_action(la[below(r1, len(la))])
        b.apply_action(lb[below(r2, len(lb))])
    expect(a.record() == b.record(), f"{g.spec()}: two clones given the same actions end differently")


def check_determinize(game: GameLike, seed: int = 21) -> None:
    """Worlds look to their seat exactly like the real state, and are complete replayable games."""
    g = as_game(game)
    rng = make_rng(seed)
    state = g.new_initial_state(seed=seed)
    checked = 0
    while not state.is_terminal() and checked < 40:
        seat = state.current_player()
        where = f"{g.spec()} after {len(state.history_strings())} actions"
        for p in {seat, below(rng, g.num_players)}:
            obs = state.observation(p)
            for k in range(3):
                w = state.determinize(p, make_rng(k))
                expect(w.observation(p) == obs, f"{where}: seat {p}'s world shows it another view")
                expect(
                    w.observation_tensor(p) == state.observation_tensor(p),
                    f"{where}: seat {p}'s world shows it another tensor",
                )
                if p == seat:
                    expect(w.legal_actions() == state.legal_actions(), f"{where}: a world offers other moves")
                expect(
                    gamester.replay(w.record()).record() == w.record(), f"{where}: a world does not replay"
                )
            checked += 1
        legal = state.legal_actions()
        state.apply_action(legal[below(rng, len(legal))])


def check_determinism(game: GameLike, seed: int = 99) -> None:
    """The same seed and actions give the same game whatever the global generators hold."""
    g = as_game(game)

    def run() -> dict[str, object]:
        state = g.new_initial_state(seed=seed)
        rng = make_rng(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[below(rng, len(legal))])
        return state.record()

    saved = random.getstate()
    try:
        random.seed(1)
        first = run()
        random.seed(2)
        random.random()
        try:
            import numpy as np

            np.random.seed(3)
        except ImportError:
            pass
        expect(run() == first, f"{g.spec()}: the global generator changed the game")
    finally:
        random.setstate(saved)
