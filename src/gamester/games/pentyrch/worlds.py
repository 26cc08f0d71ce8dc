"""Pentyrch worlds: drawing a full state a player cannot tell from the real one (``determinize``), and
:class:`PentyrchWorld`, the fast read-only view of a world that search reads.

Hidden: the dealt cards the other hands still hold unseen, and the set-aside card (docs/rules/pentyrch.md,
What each player knows). They are shuffled among those same places, keeping what the play revealed: a
hand that paid with a combination under combine=when_needed held no card worth the pile's value
(``caps``); a hand that passed without showing could pay for none of the piles in reach (``passcons``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gamester.core.cards import cards_of
from gamester.core.rng import make_rng, shuffle
from gamester.games.pentyrch.cards import BIT, HAND_CARDS, VALUE, cards_of_mask, mask_value

if TYPE_CHECKING:
    from gamester.games.pentyrch.state import PentyrchState

# How often determinize found no redraw meeting what play revealed and used an unconstrained draw
# (watched by the tests; the real deal always qualifies, so this should stay 0).
FALLBACKS = [0]
_TRIES = 2000
_NO_BOUND = 1 << 30

PassCons = list[tuple[int, int, int, int]]


class PentyrchWorld:
    """A read-only view of a Pentyrch state's board and the hand to move, for search over worlds it
    drew itself (``determinize``). The sequences are the state's own (no copy): read them, never
    change them, and take a new view after the state moves.

    * ``piles[cell]``: card ids, top last; ``stacks[cell]``: court card indices ``k``, top last;
    * ``cpos[k]``: the cell of court card ``k`` (``k = seat * 3 + 0 Jack, 1 Queen, 2 King``), -1 not
      yet entered, ``SAFE`` (25) in safety, -2 out of play;
    * ``owner[seat]``: the player of each seat (-1 unused); ``unit[seat]``: what finishes together
      (a seat, a player's two seats, a team), -1 unused;
    * ``seat``: the seat to move (-1 when over), ``players``, and ``hand``: the mask of the cards of
      the player to move (0 when over).
    """

    __slots__ = ("piles", "stacks", "cpos", "owner", "unit", "seat", "players", "hand")

    def __init__(self, state: PentyrchState) -> None:
        self.piles: Sequence[Sequence[int]] = state._piles
        self.stacks: Sequence[Sequence[int]] = state._stacks
        self.cpos: Sequence[int] = state._cpos
        self.owner: Sequence[int] = state._owner
        self.unit: Sequence[int] = state._unit
        self.players: int = state._n
        over = state._over
        self.seat: int = -1 if over else state._seat
        self.hand: int = 0 if over else state._hands[state._owner[state._seat]]


def rehide(passcons: PassCons, hidden: list[int], new: list[int]) -> PassCons:
    """A world's record of unseen passes: each passing hand as it would have been with the world's
    hidden cards ``new`` in place of the real ones ``hidden`` (the cards hidden then and seen
    since stay; the inference, a bound on the hand's sum, is unchanged)."""
    return [
        (q, low, (hand & ~hidden[q]) | new[q], (then & ~hidden[q]) | new[q])
        for q, low, hand, then in passcons
    ]


def determinize(state: PentyrchState, player: int, rng: random.Random) -> PentyrchState:
    """A full state drawn uniformly from those ``player`` cannot tell apart from ``state``.

    Draws breaking what the play revealed are redrawn (the real deal always qualifies, so this ends at
    once in practice; should 2,000 draws all be refused, the last one is used anyway: a world that
    ignores an inference is a weaker sample, whereas falling back on the real deal would show the
    hidden cards to a search).

    The world keeps nothing of the real game that ``player`` has not seen: its seed and generator come
    from ``rng``, and every hand pack of its chance log (earlier games of a match too) is rebuilt from
    the cards as drawn, each hand's cards in card order (the order they were dealt in is never seen);
    the layout packs are public (the board).
    """
    n = state._n
    s = state.clone()
    s.seed = rng.getrandbits(63)
    s.chance.rng = make_rng(s.seed)
    s.chance.given = None
    log = s.chance.log
    past = []
    # The hand packs of the games in the chance log (none of those before a position a state was
    # read from: its world is then a position of its own, below).
    logged = state.chance.origin is None
    for g, (owner, dealt, hidden, caps, passcons, setaside) in enumerate(state._past_games):
        new, aside = draw_hidden(n, player, hidden, caps, passcons, setaside, rng)
        dealt = [(d & ~h) | m for d, h, m in zip(dealt, hidden, new, strict=True)]
        if logged:
            log[2 * g + 1] = hand_pack(n, owner, dealt, aside)
        past.append((owner, dealt, new, caps, rehide(passcons, hidden, new), aside))
    s._past_games = tuple(past)
    origin = state.chance.origin
    new, aside = draw_hidden(n, player, state._hidden, state._caps, state._passcons, state._setaside, rng)
    s._passcons = rehide(state._passcons, state._hidden, new)
    for q in range(n):
        old = state._hidden[q]
        s._hands[q] = (state._hands[q] & ~old) | new[q]
        s._hidden[q] = new[q]
        s._dealt[q] = (state._dealt[q] & ~old) | new[q]
    s._setaside = aside
    s._legal = None
    s._combos = None
    s._counts = [0] * len(s._counts)  # counted for the real hands (it names them): forgotten
    if origin is not None:
        # The world of a position is a position of its own (docs/positions.md): its record starts
        # at the world's board, never at the real one's text.
        del log[:]
        from gamester.games.pentyrch import position

        return position.read(state.game, position.write(s), None)
    log[2 * state._g + 1] = hand_pack(n, state._owner, s._dealt, aside)
    return s


def draw_hidden(
    n: int,
    player: int,
    hidden: list[int],
    caps: list[int],
    passcons: PassCons,
    setaside: int,
    rng: random.Random,
) -> tuple[list[int], int]:
    """New hidden cards for every hand but ``player``'s (and a new set-aside card) drawn from the
    cards ``player`` has not seen, under the inferences of ``caps`` and ``passcons``."""
    others = [q for q in range(n) if q != player and hidden[q]]
    pool = 0
    for q in others:
        pool |= hidden[q]
    if setaside >= 0:
        pool |= BIT[setaside]
    cards = cards_of(pool)  # card order, as the shuffle expects
    sizes = [hidden[q].bit_count() for q in others]
    limits = []
    for q in others:
        bounds = []
        for pq, low, hand_t, _hidden_t in passcons:
            if pq == q:
                # hand sum then = fixed part + what is hidden now; it stayed below `low`.
                bounds.append(low - mask_value(hand_t) + mask_value(hidden[q]))
        limits.append((caps[q], min(bounds) if bounds else _NO_BOUND))
    deck = cards
    parts: list[int] = []
    for _ in range(_TRIES):
        deck = cards[:]
        shuffle(rng, deck)
        parts = []
        i = 0
        ok = True
        for j, size in enumerate(sizes):
            m = 0
            top = 0
            for c in deck[i : i + size]:
                m |= BIT[c]
                if VALUE[c] > top:
                    top = VALUE[c]
            i += size
            cap, bound = limits[j]
            if top >= cap or (bound < _NO_BOUND and mask_value(m) >= bound):
                ok = False
                break
            parts.append(m)
        if ok:
            break
    else:
        FALLBACKS[0] += 1
        parts, i = [], 0
        for size in sizes:
            parts.append(sum(BIT[c] for c in deck[i : i + size]))
            i += size
    new = hidden[:]
    for q, m in zip(others, parts, strict=True):
        new[q] = m
    return new, (deck[-1] if setaside >= 0 else -1)


def hand_pack(n: int, owner: list[int], dealt: list[int], setaside: int) -> list[int]:
    """The hand pack that deals ``dealt`` (and ``setaside``): each player's cards in card order at
    that player's places in the deal (docs/rules/pentyrch.md, Seats, court cards and hands)."""
    mine = [cards_of_mask(m) for m in dealt]
    pack = []
    for i in range(len(HAND_CARDS)):
        if n == 3 and i == 15:
            pack.append(setaside)
        else:
            pack.append(mine[owner[i % n]].pop())
    return pack
