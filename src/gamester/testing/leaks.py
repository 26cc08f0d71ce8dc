"""Hidden information stays hidden (docs/hidden-information.md), checked on seeded random games.

- the spectator's view (``public_observation``) holds no hand and no card some seat does not know,
  and every seat's view is it plus that seat's own part;
- the events and moves a viewer is told name no card that viewer does not know;
- a seat's ``replay --json`` summary lists moves only on its turn;
- pairs of states a seat cannot tell apart (one of its worlds, replayed as a game of its own) show that
  seat the same view, tensor, events and narrated moves at every step, and give the same worlds;
- error messages name no hidden card, whatever is typed;
- a world's seed and generator state rebuild the hidden hands no better than the world itself does.

Cards are found as card codes (``"QH"``, ``"10S"``): a game whose hidden things are written otherwise
is checked only by the twin checks, which compare whole views.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import gamester
from gamester.core.errors import GameError
from gamester.core.kit import View
from gamester.core.protocol import State, field_names
from gamester.core.record import summary
from gamester.core.rng import below, choice, derive, make_rng, sample
from gamester.testing._common import GameLike, as_game, expect, random_positions

CARD = re.compile(r"^(10|[2-9TJQKA])[CDHS]$")
CARD_IN_TEXT = re.compile(r"(?<![0-9A-Za-z])(10|[2-9TJQKA])([CDHS])(?![0-9A-Za-z])")
MAX_IDS = 300
"""How many of the mover's action ids the twin walk reads through the other seat's View a step."""
PRIVATE_KEYS = {"hand", "opponent_hand_size", "seat", "player", "my_seats", "trade", "hands"}
"""Keys of a seat's view that may differ from the spectator's (the seat's own part)."""


def cards_in(x: Any) -> set[str]:
    """Every card code anywhere in a JSON-able value (strings that are exactly a card)."""
    out: set[str] = set()
    stack = [x]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if CARD.match(v):
                out.add(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return out


def codes_in_text(text: str) -> set[str]:
    return {r + s for r, s in CARD_IN_TEXT.findall(text)}


def _hand(state: State, seat: int) -> list[str]:
    hand = state.observation(seat).get("hand", [])
    return list(hand) if isinstance(hand, list) else []


def check_public_view(game: GameLike, seed: int = 3, every: int = 1) -> None:
    """The spectator's view has no hand and names only cards that every seat knows; each seat's view
    is the public one plus that seat's own part."""
    g = as_game(game)
    n = g.num_players
    for state in random_positions(g, seed, every):
        where = f"{g.spec()} after {len(state.history_strings())} actions"
        pub = state.public_observation()
        json.dumps(pub)
        expect("hand" not in pub, f"{where}: the spectator's view holds a hand")
        obs = [state.observation(p) for p in range(n)]
        known_to_all = set.intersection(*(cards_in(o) for o in obs))
        extra = cards_in(pub) - known_to_all
        expect(not extra, f"{where}: the spectator is shown {sorted(extra)}, which not every seat knows")
        for p, o in enumerate(obs):
            for k, v in pub.items():
                if k not in PRIVATE_KEYS:
                    expect(o.get(k) == v, f"{where}: seat {p}'s {k!r} differs from the spectator's")


def check_events_and_moves(game: GameLike, seed: int = 5, max_steps: int = 400) -> None:
    """What a viewer is told about a move, and about what it caused, names no card that still sits
    unseen in another hand. Steps that start a deal (an event ``deal`` or ``new_game``) are left to
    the twin check (the old deal's cards are in new hands)."""
    g = as_game(game)
    n = g.num_players
    rng = make_rng(seed)
    state = g.new_initial_state(seed=seed)
    steps = 0
    while not state.is_terminal() and steps < max_steps:
        legal = state.legal_actions()
        a = legal[below(rng, len(legal))]
        told = {v: state.action_event_seen_by(a, v) for v in [None, *range(n)]}
        state.apply_action(a)
        steps += 1
        if any(e.get("type") in ("deal", "new_game") for e in state.last_events()):
            continue
        hands = [set(_hand(state, q)) for q in range(n)]
        for v in [None, *range(n)]:
            view = state.public_observation() if v is None else state.observation(v)
            hidden = set().union(*(h for q, h in enumerate(hands) if q != v)) - cards_in(view)
            said = [told[v], *state.last_events_seen_by(v)]
            json.dumps(said)
            named = cards_in(said) & hidden
            expect(not named, f"{g.spec()} step {steps}: viewer {v} is told hidden {sorted(named)}: {said}")


def check_seat_summary(game: GameLike, seed: int = 8, every: int = 1) -> None:
    """A seat's summary (``replay --json --seat N``) lists legal actions only on that seat's turn (the
    moves of another player would name its hand); otherwise it is the full summary."""
    g = as_game(game)
    for state in random_positions(g, seed, every):
        full = summary(state)
        where = f"{g.spec()} after {len(state.history_strings())} actions"
        for p in range(g.num_players):
            mine = summary(state, p)
            if not state.is_terminal() and state.current_player() == p:
                expect(mine == full, f"{where}: seat {p}'s summary on its turn is not the full one")
            else:
                expect(mine["legal_actions"] == [], f"{where}: seat {p}'s summary lists another's moves")
                expect({**mine, "legal_actions": full["legal_actions"]} == full, f"{where}: seat {p} summary")


# -- pairs of states a seat cannot tell apart ------------------------------------------------------
def twin(state: State, seat: int, salt: int) -> State:
    """A real state ``seat`` cannot tell from ``state``: one of its worlds, replayed from its record
    as a game of its own (same public history, the hidden cards drawn again)."""
    w = state.determinize(seat, make_rng(salt))
    # A seed of its own (the chance list decides the cards), so that a world holding on to its
    # state's seed tells the two apart.
    return gamester.replay({**w.record(), "seed": derive(state.seed, "twin", salt)})


def world_fingerprint(w: State) -> Any:
    """Everything a world exposes: seed, record, raw chance log, generator state, every seat's view
    and every field the state keeps (a search may read them: worlds are its own to read)."""
    n = w.game.num_players
    return (
        w.seed,
        w.record(),
        w.chance.log,
        w.chance.rng.getstate(),
        [w.observation(q) for q in range(n)],
        w.public_observation(),
        w.legal_actions() if not w.is_terminal() else [],
        {k: getattr(w, k) for k in field_names(type(w)) if k not in ("game", "chance") and hasattr(w, k)},
    )


def seen_by(state: State, seat: int) -> Any:
    """Everything ``seat`` (and a spectator) is shown of ``state``."""
    return (
        state.observation(seat),
        state.observation_tensor(seat),
        state.public_observation(),
        state.last_events_seen_by(seat),
        state.last_events_seen_by(None),
        summary(state, seat),
    )


def walk_pair(a: State, b: State, seat: int) -> None:
    """Replay both games from their records in step: at every step ``seat`` (and a spectator) must
    be shown the same position, the same events and the same narration of the move."""
    ra, rb = a.record(), b.record()
    where = f"{a.game.spec()}, seat {seat}"
    expect(len(ra["actions"]) == len(rb["actions"]), f"{where}: twins of different lengths")
    x = a.game.new_initial_state(seed=0, chance=ra["chance"])
    y = b.game.new_initial_state(seed=0, chance=rb["chance"])
    expect(seen_by(x, seat) == seen_by(y, seat), f"{where}: twins look different at the start")
    for i, (ta, tb) in enumerate(zip(ra["actions"], rb["actions"], strict=True)):
        ia, ib = x.string_to_action(ta), y.string_to_action(tb)
        for v in (seat, None):
            expect(x.action_seen_by(ia, v) == y.action_seen_by(ib, v), f"{where}: move {i} told apart")
            expect(
                x.action_event_seen_by(ia, v) == y.action_event_seen_by(ib, v),
                f"{where}: move {i} told apart",
            )
        if x.current_player() != seat:
            # An agent's View off its turn can name any action id: the mover's ids must read the
            # same in both twins (a combination of hidden hand cards would tell them apart).
            ids = sorted(set(x.legal_actions()) | set(y.legal_actions()))[:MAX_IDS]
            vx, vy = View(x, seat), View(y, seat)
            for act in ids:
                ta, tb = vx.action_to_string(act), vy.action_to_string(act)
                expect(ta == tb, f"{where}: action {act} reads {ta!r} or {tb!r} to seat {seat} at move {i}")
        x.apply_action(ia)
        y.apply_action(ib)
        expect(seen_by(x, seat) == seen_by(y, seat), f"{where}: twins look different after move {i}")


def check_twin(state: State, other: State, seat: int) -> tuple[bool, State]:
    """Check that ``other``, a twin of ``state`` to ``seat``, looks the same at every step
    (:func:`walk_pair`) and gives the same worlds (same generator); returns whether some other seat
    sees the two differently, and the last world of ``state``."""
    n = state.game.num_players
    differs = any(other.observation(q) != state.observation(q) for q in range(n) if q != seat)
    walk_pair(state, other, seat)
    wa = state
    for k in range(2):
        wa = state.determinize(seat, make_rng(k))
        wb = other.determinize(seat, make_rng(k))
        expect(
            world_fingerprint(wa) == world_fingerprint(wb),
            f"{state.game.spec()}: two states seat {seat} cannot tell apart give different worlds",
        )
    return differs, wa


def pair_positions(game: GameLike, seed: int = 17) -> Iterator[tuple[State, int]]:
    """A few positions of a seeded random game with a seat to look from (the mover or another)."""
    g = as_game(game)
    rng = make_rng(seed)
    positions = [s.clone() for s in random_positions(g, seed)]
    last = len(positions) - 1
    # Early positions too: in some games hands are soon shown, and then nothing is hidden.
    for i in sorted({min(2, last), last // 12, last // 3, below(rng, max(last, 1)), last}):
        yield positions[i], below(rng, g.num_players)


def check_twins(game: GameLike, salts: int = 2, must_differ: bool | None = None) -> None:
    """Two states a seat cannot tell apart show that seat the same things at every step of their
    history, and their worlds (same generator) are identical in everything a world exposes: nothing
    in a world can tell which of the two is the real game. ``must_differ``: some pair must differ in
    a card another seat sees (else the twins test nothing); by default, when the game says it hides
    something from a seat (``Game.hides_information``)."""
    g = as_game(game)
    if must_differ is None:
        must_differ = g.hides_information()
    differed = 0
    for state, seat in pair_positions(g):
        for salt in range(salts):
            other = twin(state, seat, salt)
            differs, wa = check_twin(state, other, seat)
            differed += differs
            r = gamester.replay(wa.record())
            fa, fr = world_fingerprint(wa), world_fingerprint(r)
            expect(fr[1] == fa[1] and fr[4:7] == fa[4:7], f"{g.spec()}: a world's record replays otherwise")
    if must_differ:
        expect(differed, f"{g.spec()}: no pair differed in a hidden card: the twins test nothing")


def check_error_messages(
    game: GameLike, seed: int = 4, every: int = 3, typed: list[str] | None = None
) -> None:
    """Whatever is typed, an error names only cards that were typed or that are public. ``typed``:
    extra notation to try (the game's own moves with other cards are always tried)."""
    g = as_game(game)
    rng = make_rng(9)
    n = g.num_players
    for state in random_positions(g, seed, every):
        if state.is_terminal():
            continue
        hands = set().union(*(set(_hand(state, q)) for q in range(n)))
        hidden = hands - cards_in(state.public_observation())
        # The fixed examples of a notation help ('7D', '10S' ...) are no leak.
        examples: set[str] = set()
        for junk in ("?", "a b c d", "1 2"):
            try:
                state.string_to_action(junk)
            except GameError as e:
                examples |= codes_in_text(str(e))
        for text in [*_bad_inputs(state, rng), *(typed or [])]:
            try:
                state.string_to_action(text)
            except GameError as e:
                named = codes_in_text(str(e)) & hidden
                leaked = named - codes_in_text(text) - examples
                expect(
                    not leaked, f"{g.spec()}: typing {text!r} gets {str(e)!r}, naming hidden {sorted(leaked)}"
                )


def _bad_inputs(state: State, rng: random.Random) -> list[str]:
    """Notation a careless or curious player might type: legal moves with other cards after them,
    cards in nobody's hand or in someone else's."""
    legal = [state.action_to_string(a) for a in state.legal_actions()]
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]
    cards = [r + s for r in ranks for s in "CDHS"]
    out = []
    for text in sample(rng, legal, min(4, len(legal))):
        head = text.split()[:2]
        pay = "+".join(sample(rng, cards, choice(rng, (1, 2, 3))))
        out += [" ".join([*head, pay]), " ".join([*head, "=" + choice(rng, cards)])]
    out += sample(rng, cards, 4)
    return out


def _others_hands(state: State, seat: int) -> list[list[str]]:
    return [_hand(state, q) for q in range(state.game.num_players) if q != seat]


def _rebuild_from_seed(world: State, seed: int, history: list[str]) -> State | None:
    """The real game's history replayed on the cards a seed gives (what holding the seed would buy)."""
    try:
        x = world.game.new_initial_state(seed=seed)
        for text in history:
            x.apply_action(x.string_to_action(text))
    except (ValueError, RuntimeError):
        return None
    return x


def check_worlds_do_not_rebuild_the_deal(game: GameLike) -> list[int]:
    """A world's seed and generator state, replayed with the real history, guess the other hands no
    better than the world itself does (a fair draw from what the seat knows). Returns the counts
    ``[worlds, right by the world, right by its seed, right by its generator]``."""
    g = as_game(game)
    tried = by_world = by_seed = by_generator = 0
    for state, seat in pair_positions(g):
        truth = _others_hands(state, seat)
        history = state.history_strings()
        for k in range(4):
            w = state.determinize(seat, make_rng(100 + k))
            tried += 1
            by_world += _others_hands(w, seat) == truth
            x = _rebuild_from_seed(w, w.seed, history)
            by_seed += x is not None and _others_hands(x, seat) == truth
            gs = w.chance.rng.getstate()
            x = _rebuild_from_seed(w, gs[1], history) if isinstance(gs[1], int) else None
            by_generator += x is not None and _others_hands(x, seat) == truth
    expect(
        by_seed <= by_world + 2 and by_generator <= by_world + 2,
        f"{g.spec()}: a world's seed or generator rebuilds the hidden hands (worlds {tried}, right by "
        f"the world {by_world}, by its seed {by_seed}, by its generator {by_generator})",
    )
    return [tried, by_world, by_seed, by_generator]
