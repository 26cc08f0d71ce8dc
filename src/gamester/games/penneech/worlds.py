"""The worlds a Penneech search draws, and the typed records search reads (docs/hidden-information.md).

``determinize`` draws a full state consistent with everything one seat knows, earlier deals
included; ``SeatKnowledge`` is what the seat to play a card knows, and ``PenneechWorld`` a read-only
snapshot of a sampled world with every card in the open.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Final, NamedTuple, cast

from gamester.core.cards import SUITS, cards_of, mask_of, parse_card
from gamester.core.rng import make_rng, sample, shuffle
from gamester.games.penneech.deal import DEAL_READS, DRAW_RANK, HAND_SIZE, KEEP, REDEAL
from gamester.games.penneech.rules import SUIT_MASKS, TRICKS, redeal_eligible

if TYPE_CHECKING:
    from gamester.games.penneech.game import PenneechGame, PenneechState


def _cards(entry: Any) -> list[int]:
    """The pack of a chance-log entry (a partial pack's top is enough for what reads it here)."""
    return cast(list[int], entry[0] if entry.__class__ is tuple else entry)


def _with_fresh_rest(top: list[int], used: int, rng: random.Random) -> tuple[list[int], int, int]:
    """A partial pack (``rng.Chance``'s log form): ``top`` as given, every other card of the pack
    after it in card order, to be shuffled from a seed drawn from ``rng`` when a record needs it
    (cached by ``top``: a search asks for the same first-dealer draw in every world)."""
    key = tuple(top)
    pack = _TOPS.get(key)
    if pack is None:
        if len(_TOPS) > 4096:
            _TOPS.clear()
        m = mask_of(top)
        pack = _TOPS[key] = top + [c for c in range(52) if not m >> c & 1]
    return pack, used, rng.getrandbits(64)


# The packs worlds hold for earlier deals, by what was seen of them: _TOPS by the seen top as the
# world lays it out, _PLAYED_OUT by a played-out deal's first 22 cards as dealt (both hands, the
# turn-ups). Worlds share these lists and never change them.
_TOPS: Final[dict[tuple[int, ...], list[int]]] = {}
_PLAYED_OUT: Final[dict[tuple[int, ...], list[int]]] = {}


def _played_out(prefix: tuple[int, ...], rng: random.Random) -> tuple[list[int], int, int]:
    """A world's copy of a deal that was played out: hands in card order, turn-ups where they were,
    the unseen stock to be shuffled afresh (cached: searches ask for the same deals again and again).
    """
    top = _PLAYED_OUT.get(prefix)
    if top is None:
        if len(_PLAYED_OUT) > 4096:
            _PLAYED_OUT.clear()
        top = [0] * DEAL_READS
        top[0:14:2] = sorted(prefix[0:14:2])
        top[1:14:2] = sorted(prefix[1:14:2])
        top[14:] = prefix[14:]
        m = mask_of(top)
        top += [c for c in range(52) if not m >> c & 1]
        _PLAYED_OUT[prefix] = top
    return top, DEAL_READS, rng.getrandbits(64)


class SeatKnowledge(NamedTuple):
    """What the seat to play a card knows that a player's judgement reads: a small record built
    from its observation (:func:`seat_knowledge_from_observation`) or, as fast, from a world for the
    seat to move (:meth:`PenneechState.seat_knowledge`); both give the same record (tested).
    docs/rules/penneech.md, What each player knows."""

    seat: int
    hand: int
    """The seat's cards (mask)."""
    seen: int
    """Every card it has seen this deal: its hand, the cards played (the led one too), the turn-ups."""
    trump: int
    led: int
    """The card led to this trick, or -1 when the seat leads."""
    opp_voids: int
    """The suits (bit per suit) the opponent has shown it lacks."""
    opp_hand_size: int
    tricks_won: int
    """The seat's tricks this deal."""
    trump_only: bool
    """``trick_honours=trump``."""
    follow_suit: bool
    """``follow=suit``."""


def seat_knowledge_from_observation(obs: dict[str, Any], game: PenneechGame) -> SeatKnowledge:
    """The :class:`SeatKnowledge` of a seat's ``observation`` (its turn to play a card)."""
    me = obs["seat"]
    hand = mask_of(parse_card(c) for c in obs["hand"])
    seen = hand
    for pile in obs["played"]:
        seen |= mask_of(parse_card(c) for c in pile)
    seen |= mask_of(parse_card(c) for c in obs["earlier_turn_ups"])
    if obs["turn_up"]:
        seen |= 1 << parse_card(obs["turn_up"])
    led = parse_card(obs["trick"][0]) if obs["trick"] else -1
    if led >= 0:
        seen |= 1 << led
    voids = 0
    for suit in obs["known_voids"][1 - me]:
        voids |= 1 << SUITS.index(suit)
    return SeatKnowledge(
        me,
        hand,
        seen,
        SUITS.index(obs["trump"]),
        led,
        voids,
        obs["opponent_hand_size"],
        obs["tricks_won"][me],
        game.trump_only,
        game.follow_suit,
    )


class PenneechWorld(NamedTuple):
    """A read-only snapshot of a position with every card in the open, for search over a world the
    agent sampled itself (``determinize``): what a solver or a researcher's own agent reads. Built by
    :meth:`PenneechState.world_view` (``kit.world_view(world)``). Never build one of the true game
    for a seat: it holds the other hand and the stock order."""

    phase: int
    """``Phase`` value: REDEAL 0, PLAY 1, OVER 2."""
    current: int
    """The seat to act (``TERMINAL`` when over)."""
    dealer: int
    deal: int
    """Deals started so far less one (redeals included): changes the moment a deal ends."""
    hands: tuple[int, int]
    """Each seat's cards (masks)."""
    dealt: tuple[int, int]
    """Each seat's hand as dealt this deal."""
    turned: tuple[int, ...]
    """This deal's turn-ups so far, in order; the last one's suit is trump."""
    stock: tuple[int, ...]
    """The cards left in the stock, in order: ``stock[0]`` is the next turn-up."""
    trump: int
    """-1 before the first turn-up."""
    leader: int
    led: int
    """The card led to the trick in progress, or -1."""
    tricks: tuple[int, int]
    scores: tuple[int, int]
    voids: tuple[int, int]
    """The suits (bit per suit) each seat has shown it lacks."""
    target: int


def determinize(state: PenneechState, player: int, rng: random.Random) -> PenneechState:
    """A full state drawn uniformly from those ``player`` cannot tell apart from this one.

    Hidden: the opponent's hand and the order of the stock. Constraints: suits the opponent is
    known to lack (a card not followed), and what the redeal choices revealed (being asked means
    holding no blocking card; not being asked means holding one).

    The world keeps nothing of the real game that ``player`` has not seen: its seed and generator
    come from ``rng``, and every pack of its chance log is rebuilt from what the seat saw (earlier
    deals too: a thrown-in deal's unshown hand is drawn again, every unseen stock card is
    reshuffled), so ``world.record()`` replays to the world and says nothing more.
    """
    s = state.clone()
    s.seed = rng.getrandbits(63)
    s.chance.rng = make_rng(s.seed)
    s.chance.given = None
    log = s.chance.log
    origin = state.chance.origin
    # A state read from a position has no earlier deal to redraw: its world starts at the deal.
    log[:-1] = past_packs(state, player, rng) if origin is None else []
    opp = 1 - player
    seen = state._hands[player] | state._played(0) | state._played(1) | mask_of(state._turned())
    unknown = cards_of(((1 << 52) - 1) & ~seen)
    avoid = 0
    for suit in range(4):
        if state._voids[opp] >> suit & 1:
            avoid |= SUIT_MASKS[suit]
    if state._eligible[opp] is True:
        avoid |= state._blockers
    allowed = [c for c in unknown if not avoid >> c & 1]
    k = state._hands[opp].bit_count()
    need_blocker = state._eligible[opp] is False and not state._played(opp) & state._blockers
    while True:
        hidden = sample(rng, allowed, k)
        hmask = mask_of(hidden)
        if not need_blocker or hmask & state._blockers:
            break
    rest = [c for c in unknown if not hmask >> c & 1]
    shuffle(rng, rest)
    s._hands[opp] = hmask
    s._hl[opp] = cards_of(hmask)
    # Rebuild this deal's pack so the world is a complete, replayable deal.
    d = state._dealer
    dealt = [0, 0]
    dealt[player] = state._hands[player] | state._played(player)
    dealt[opp] = hmask | state._played(opp)
    pack = [0] * 52
    for seat, start in ((1 - d, 0), (d, 1)):
        pack[start:14:2] = cards_of(dealt[seat])
    pack[14 : state._pos] = state._pack[14 : state._pos]
    pack[state._pos :] = rest
    s._pack = pack
    s._dealt = (dealt[0], dealt[1])
    log[-1] = pack
    if origin is not None:
        # The world of a position is a position of its own (docs/positions.md): its record starts
        # at the world's deal, never at the real one's text.
        from gamester.games.penneech import position

        return position.read(state.game, position.write(s), None)
    return s


def past_packs(state: PenneechState, player: int, rng: random.Random) -> list[Any]:
    """World versions of every pack before this deal's, holding only what ``player`` saw.

    Seen: the cards the first-dealer draw turned; in a deal played out, both hands (every card
    was played) and its eight turn-ups; in a deal thrown in, the seat's own hand, the hand shown
    for the redeal, and what being asked (or not) said about the other. The rest of each pack is
    drawn afresh; hands sit in the pack in card order, since the order a hand was dealt in is
    never seen.
    """
    log = state.chance.log
    out: list[Any] = []
    i = 0
    dealer = state.game.consts[6]
    if dealer < 0:  # docs/rules/penneech.md, Dealing: the draw, pack after pack while all tie
        while True:
            pack = _cards(log[i])
            i += 1
            known = 0
            for j in range(0, 52, 2):
                a, b = DRAW_RANK[pack[j]], DRAW_RANK[pack[j + 1]]
                known = j + 2
                if a != b:
                    dealer = 0 if a < b else 1
                    break
            out.append(_with_fresh_rest(pack[:known], known, rng))
            if known < 52 or dealer >= 0:
                break
    blockers = state._blockers
    hist = state._history
    h = 0
    for entry in log[i:-1]:
        pack = _cards(entry)
        nd = 1 - dealer
        hn, hd = mask_of(pack[0:14:2]), mask_of(pack[1:14:2])
        hand = [0, 0]
        hand[nd], hand[dealer] = hn, hd
        # docs/rules/penneech.md, Dealing: who was asked, in order (the non-dealer first).
        asked = [s for s in (nd, dealer) if redeal_eligible(hand[s], blockers)]
        knew: list[bool | None] = [None, None]
        if blockers:
            knew = [redeal_eligible(hand[0], blockers), redeal_eligible(hand[1], blockers)]
        thrower = -1
        for seat in asked:
            if h >= len(hist) or hist[h] not in (KEEP, REDEAL):
                break
            h += 1
            if hist[h - 1] == REDEAL:
                thrower = seat
                break
        if thrower < 0:  # played out: both hands and the eight turn-ups are public
            h += 2 * TRICKS
            out.append(_played_out(tuple(pack[:DEAL_READS]), rng))
            dealer = nd
            continue
        other = 1 - thrower
        if thrower == player:
            # The other hand is unseen; what the asking said about it still holds: asked and
            # kept (it was asked before the thrower) means no blocker; passed over before the
            # thrower was asked (the thrower dealt) means a blocker; otherwise nothing.
            rule = knew[other] if other == nd else None
            pool = [c for c in range(52) if not hand[player] >> c & 1]
            while True:
                hmask = mask_of(sample(rng, pool, HAND_SIZE))
                if rule is None or bool(hmask & blockers) != rule:
                    break
            hand[other] = hmask
        top = [0] * 14
        top[0:14:2] = cards_of(hand[nd])
        top[1:14:2] = cards_of(hand[dealer])
        out.append(_with_fresh_rest(top, 14, rng))
    return out
