"""Piquesept determinization: whole deals a seat cannot tell apart from the real one.

What a seat can infer (docs/rules/piquesept.md, What each player knows, and the play rules):

- Later tricks: a defender who did not follow the led suit holds none of it from then on; one who
  neither followed nor played a spade holds no spade either (hands only shrink after the trade).
- The forced first trick: a defender who played a spade held no higher spade; one who played another
  card held no spade and no card ranked above it (``first_trick_allowed``). This bounds his *dealt*
  hand, so for the drawer it bounds every card except the one he drew.
- The trade: the drawer and the soloist know the drawn card ``x`` and the given card ``y`` (everyone
  does with ``trade_visible``). Another seat only knows that ``x`` came from the soloist and ``y`` from
  the drawer's hand after the draw, so every (x, y) that fits the play is tried.

Each deal is rebuilt independently (past deals of a match too, since their trade may be hidden): for a
candidate trade, located cards are placed, every other unseen card gets the set of seats allowed to hold
it, and cards are dealt one by one at random, a card going to a seat only while Hall's condition still
holds for the rest (so dealing never gets stuck). The candidate trades are tried in random order until
one admits a deal; the real trade always does. The give is an action, so a seat that did not see the
trade gets worlds whose history gives their own ``y``. Finally the whole history is replayed on the new
packs, which checks every rule again; the world is that replayed state, with a seed and generator
drawn from the caller's ``rng`` (nothing of the real game's seed, packs or generator survives).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from gamester.core.cards import CODES
from gamester.core.errors import GameError
from gamester.core.rng import make_rng, shuffle, weighted
from gamester.games.piquesept.deal import A2ID, ID2A, mask_to_actions
from gamester.games.piquesept.rules import (
    ALL_CARDS,
    SEVEN_S,
    drawer_of,
    first_trick_allowed,
    shown_void,
)

if TYPE_CHECKING:
    from gamester.games.piquesept.game import PiqueseptState


class PiqueseptWorld(NamedTuple):
    """A read-only snapshot of a position with every hand in the open, for search over a world the
    agent sampled itself (``determinize``): what the solver and the heuristic's playout read instead of
    the state's fields. Built by :meth:`PiqueseptState.world_view` (``kit.world_view(world)``). Never
    build one of the true game for a seat: it holds every hand. Cards are dense actions, hands and
    masks 32-bit masks of them."""

    players: int
    phase: int
    """A ``game.Phase`` value (first trick, play, give, over)."""
    deal: int
    """Deals started before this one (0 for the first)."""
    current: int
    """The seat to act (``TERMINAL`` once the game is over)."""
    hands: tuple[int, ...]
    soloist: int
    drawer: int
    leader: int
    """Who led the trick in progress (or leads the next one)."""
    trick: tuple[int, ...]
    """The trick so far, in playing order from ``leader``."""
    led: int
    """The suit led to the trick in progress, -1 before its first card."""
    best: int
    """``rules.VAL[led][card]`` of the card winning the trick so far (-1 before its first card)."""
    winner: int
    """The seat winning the trick so far."""
    tricks_played: int
    drawn: int
    """The card drawn from the soloist in the trade (-1 not yet)."""
    given: int
    """The card the drawer gave back (-1 not yet)."""
    taken: tuple[int, ...]
    """Card points each seat has won in this deal's tricks."""
    last_deal_points: int
    """The soloist's side's card points in the last finished deal (-1 before the first ends)."""


FALLBACKS = [0]
"""How often no world could be rebuilt (a bug if ever non-zero; ``determinize`` then raises)."""


def _feasible(counts: dict[int, int], caps: list[int]) -> bool:
    """Hall's condition: for every set T of seats, the cards that only T may hold fit in T."""
    k = len(caps)
    if counts.get(0, 0):
        return False
    total = sum(counts.values())
    if total != sum(caps):
        return False
    for t in range(1, 1 << k):
        need = 0
        for sig, cnt in counts.items():
            if cnt and not sig & ~t:
                need += cnt
        if need > sum(caps[i] for i in range(k) if t >> i & 1):
            return False
    return True


def _deal_hidden(free: int, allowed: list[int], caps: list[int], rng: random.Random) -> list[int] | None:
    """Deal the cards of ``free`` to seats (``allowed`` masks, ``caps`` counts), or None if impossible."""
    k = len(caps)
    sig_of: dict[int, int] = {}
    counts: dict[int, int] = {}
    for c in mask_to_actions(free):
        sig = 0
        for i in range(k):
            if allowed[i] >> c & 1:
                sig |= 1 << i
        sig_of[c] = sig
        counts[sig] = counts.get(sig, 0) + 1
    caps = caps[:]
    if not _feasible(counts, caps):
        return None
    cards = list(sig_of)
    shuffle(rng, cards)
    out = [0] * k
    for c in cards:
        sig = sig_of[c]
        counts[sig] -= 1
        options = [i for i in range(k) if sig >> i & 1 and caps[i] > 0]
        while True:
            # Weighted by room left, as a random deal would be.
            pick = weighted(rng, options, [caps[i] for i in options])
            caps[pick] -= 1
            if _feasible(counts, caps):
                out[pick] |= 1 << c
                break
            caps[pick] += 1
            options.remove(pick)
    return out


def _world_deal(
    st: PiqueseptState,
    p: int,
    dealer: int,
    soloist: int,
    tricks: list[tuple[int, list[int]]],
    sizes: list[int],
    own: int,
    x_true: int,
    y_true: int,
    knows: bool,
    rng: random.Random,
) -> tuple[list[int], int, int] | None:
    """New dealt hands for one deal as seen by ``p``: the pack (card ids), the drawn card (an id, or -1)
    and the given card (an action, or -1)."""
    game = st.game
    n = game.num_players
    order = game.first_order
    s, r = soloist, drawer_of(soloist, n)
    played = [0] * n
    later = [0] * n
    lv = [ALL_CARDS] * n  # later-trick voids, as allowed masks
    t1 = [ALL_CARDS] * n
    for i, (leader, cards) in enumerate(tricks):
        seat = leader
        ls = cards[0] >> 3
        for j, c in enumerate(cards):
            played[seat] |= 1 << c
            if i == 0:
                if seat != s:
                    t1[seat] = first_trick_allowed(c, order)
            else:
                later[seat] |= 1 << c
                if j and seat != s:
                    lv[seat] &= ~shown_void(c, ls)
            seat = (seat + 1) % n
    all_played = 0
    for m in played:
        all_played |= m
    unseen = game.pack_mask & ~own & ~all_played
    stage = 0 if x_true < 0 else (1 if y_true < 0 else 2)

    candidates: list[tuple[int, int]]
    if stage == 0:
        candidates = [(-1, -1)]
    elif knows:
        candidates = [(x_true, y_true)]
    elif stage == 1:
        candidates = [(c, -1) for c in mask_to_actions(unseen & lv[r])]
    else:
        ys = mask_to_actions(unseen | later[s])
        xs = mask_to_actions(unseen | later[r])
        candidates = [(y, y) for y in ys]
        candidates += [(x, y) for y in ys if t1[r] >> y & 1 for x in xs if x != y]
    shuffle(rng, candidates)

    others = [q for q in range(n) if q != p]
    for x, y in candidates:
        loc = [0] * n
        if stage == 0:
            if not played[s] >> SEVEN_S & 1:
                loc[s] |= 1 << SEVEN_S
        else:
            # The drawer's later cards, and the given card, were in his dealt hand, unless drawn.
            if stage == 2:
                if x != y and not t1[r] >> y & 1:
                    continue
                if later[r] & t1[r] != later[r] and later[r] & ~t1[r] != (1 << x if x != y else 0):
                    continue
            if stage == 2 and x == y:
                if not played[s] >> x & 1:
                    loc[s] |= 1 << x
            elif not played[r] >> x & 1:
                if r != p and not lv[r] >> x & 1:
                    continue
                loc[r] |= 1 << x
            if stage == 2 and x != y and not played[s] >> y & 1:
                loc[s] |= 1 << y
        bad = False
        located = 0
        for q in range(n):
            if q == p:
                if loc[q] & ~own:
                    bad = True
                loc[q] = 0
            elif loc[q] & ~unseen:
                bad = True
            located |= loc[q]
        if bad:
            continue
        allowed = []
        caps = []
        for q in others:
            a = ALL_CARDS if q == s else lv[q] & t1[q]
            if loc[q] & ~a & ~(1 << x if x >= 0 and q == r else 0):
                bad = True
            allowed.append(a)
            caps.append(sizes[q] - loc[q].bit_count())
        if bad or min(caps, default=0) < 0:
            continue
        dealt = _deal_hidden(unseen & ~located, allowed, caps, rng)
        if dealt is None:
            continue
        hands = [0] * n
        hands[p] = own
        for i, q in enumerate(others):
            hands[q] = loc[q] | dealt[i]
        start = [h | pl for h, pl in zip(hands, played, strict=True)]
        if stage >= 1:
            start[s] = (start[s] & ~(1 << y if y >= 0 else 0)) | 1 << x
            # Add the given card before removing the drawn one: when x == y it never was the drawer's.
            start[r] = (start[r] | (1 << y if y >= 0 else 0)) & ~(1 << x)
        pack = [0] * (game.hand_size * n)
        for q in range(n):
            j = (q - dealer - 1) % n
            ids = [A2ID[a] for a in mask_to_actions(start[q])]
            shuffle(rng, ids)
            pack[j::n] = ids
        return pack, (A2ID[x] if x >= 0 else -1), y
    return None


def _deal_tricks(done: Any, leader: int, trick: list[int]) -> list[tuple[int, list[int]]]:
    out = [(t[0], list(t[1])) for t in done]
    if trick:
        out.append((leader, list(trick)))
    return out


def determinize(st: PiqueseptState, p: int, rng: random.Random) -> PiqueseptState:
    if st.chance.origin is not None:
        return _world_of_position(st, p, rng)
    game = st.game
    n = game.num_players
    chance: list[Any] = []
    deals: list[tuple[int, int, list[tuple[int, list[int]]], list[int], int, int, int]] = []
    for dealer, soloist, _dealt, x, y, done, _sp, _delta in st._past:
        deals.append((dealer, soloist, _deal_tricks(done, 0, []), [0] * n, 0, x, y))
    if not st.is_terminal():
        deals.append(
            (
                st._dealer,
                st._soloist,
                _deal_tricks(st._done, st._leader, st._trick),
                [h.bit_count() for h in st._hands],
                st._hands[p],
                st._x,
                st._y,
            )
        )
    # A deal's actions: the first trick, the give, the other tricks; the give is hidden like the trade.
    per_deal = n * game.hand_size + 1
    for _attempt in range(3):
        chance = []
        history = st._actions()
        for k, (dealer, soloist, tricks, sizes, own, x, y) in enumerate(deals):
            knows = game.options.trade_visible or p == soloist or p == drawer_of(soloist, n)
            got = _world_deal(st, p, dealer, soloist, tricks, sizes, own, x, y, knows, rng)
            if got is None:
                break
            pack, drawn, given = got
            chance.append([CODES[c] for c in pack])
            if drawn >= 0:
                chance.append(CODES[drawn])
            if given >= 0:
                history[k * per_deal + n] = given
        else:
            # The world's seed and generator come from ``rng`` alone, never from the real game.
            seed = rng.getrandbits(63)
            try:
                w = game.new_initial_state(seed=seed, chance=chance)
                for a in history:
                    w.apply_action(a)
            except GameError:
                continue
            assert isinstance(w, type(st))
            w.chance.given = None
            w.chance.rng = make_rng(seed)
            return w
    _no_world(st, p)


def _no_world(st: PiqueseptState, p: int) -> NoReturn:
    # Unreachable while the inferences above are right. Handing out the real deals instead would
    # show every hidden card to a search, so this is an error (and counted for the tests).
    FALLBACKS[0] += 1
    raise RuntimeError(
        f"piquesept determinize found no world for seat {p} after {st!s}: a bug in "
        f"the inferences of gamester.games.piquesept.worlds"
    )


def _world_of_position(st: PiqueseptState, p: int, rng: random.Random) -> PiqueseptState:
    """A world of a state read from a position (docs/positions.md) is a position of its own: its
    deal (the last one, once the match is over) dealt again as ``p`` may see it, its plays with the
    world's give, the match before it as public as ever, and a generator from ``rng``; its record
    starts there, so nothing of the real deal's text reaches it."""
    from gamester.games.piquesept import position

    game = st.game
    n = game.num_players
    dealer, _deal, _dealt, x, plays = position.deal_parts(st)
    if st.is_terminal():
        _d, soloist, _h, x, y, done, _sp, _delta = st._past[-1]
        tricks, sizes, own = _deal_tricks(done, 0, []), [0] * n, 0
    else:
        soloist, y = st._soloist, st._y
        tricks = _deal_tricks(st._done, st._leader, st._trick)
        sizes, own = [h.bit_count() for h in st._hands], st._hands[p]
    knows = game.options.trade_visible or p == soloist or p == drawer_of(soloist, n)
    for _attempt in range(3):
        got = _world_deal(st, p, dealer, soloist, tricks, sizes, own, x, y, knows, rng)
        if got is None:
            continue
        pack, drawn, given = got
        dealt = [0] * n
        for i, c in enumerate(pack):
            dealt[(dealer + 1 + i) % n] |= 1 << ID2A[c]
        world_plays = list(plays)
        if given >= 0:
            world_plays[n] = given  # the first trick's n cards, then the give
        text = position.write(
            st, tuple(dealt), ID2A[drawn] if drawn >= 0 else -1, world_plays, rng.getrandbits(63)
        )
        try:
            return position.read(game, text, None)
        except GameError:
            continue
    _no_world(st, p)
