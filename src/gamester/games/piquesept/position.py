"""Piquesept's position notation (docs/positions.md): the current deal as it was dealt, the match
before it and the deal's plays so far, like a bridge deal with its play.

    piquesept dealer=0 deal=0 points=0,0,0,0 dealt=7S,…/…/…/… drawn=KH plays=7S,AS,TS,9S,QD,… rng=…

- ``dealer``, ``deal`` (deals finished before this one);
- ``points``: each seat's card points from the finished deals of the match (``scores`` less this
  deal's), ``past``: each finished deal's result, ``dealer:soloist:points:returns`` (the soloist's
  side's card points, each seat's return), ``/``-separated (written when there are some);
- ``dealt``: each seat's cards as dealt (seat 0 first), ``drawn``: the card the drawer drew from the
  soloist's hand in the trade, once it has been drawn;
- ``plays``: the deal's actions in order (the first trick, the card given in the trade, the tricks);
  once the match is over, those of its last deal;
- ``rng`` / ``next``: the chance still to come (``gamester.core.position``).

Reading deals the pack and plays the plays through the engine, so every rule is checked again; the
soloist, the hands, tricks, card points and whose turn it is follow from them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gamester.core import position as pos
from gamester.core.cards import CODES
from gamester.core.errors import GameError, RecordError
from gamester.core.rng import Chance
from gamester.games.piquesept.deal import A2ID, CODE, ID2A, IDBIT, OVER, mask_to_actions

if TYPE_CHECKING:
    from gamester.games.piquesept.game import PiqueseptGame, PiqueseptState

FIELDS = ("dealer", "deal", "points", "past", "dealt", "drawn", "plays")


def deal_parts(state: PiqueseptState) -> tuple[int, int, tuple[int, ...], int, list[int]]:
    """The position's deal: (its dealer, its number, the hands as dealt, the drawn card or -1, its
    actions), the last deal's once the match is over."""
    if state._phase == OVER:
        dealer, _s, dealt, x, y, done, _sp, _delta = state._past[-1]
        deal, trick = state._deal_no - 1, []
    else:
        dealer, dealt, x, y, done = state._dealer, state._dealt, state._x, state._y, state._done
        deal, trick = state._deal_no, state._trick
    plays: list[int] = []
    for i, t in enumerate(done):
        plays += t[1]
        if i == 0 and y >= 0:
            plays.append(y)
    return dealer, deal, tuple(dealt), x, plays + list(trick)


def write(
    state: PiqueseptState,
    dealt: tuple[int, ...] | None = None,
    drawn: int | None = None,
    plays: list[int] | None = None,
    seed: int | None = None,
) -> str:
    """The position's text; the deal's hands, drawn card and actions, and a fresh generator's seed
    may be given instead of the state's own (a world of a position, ``worlds.py``)."""
    dealer, deal, own_dealt, x, own_plays = deal_parts(state)
    past = state._past[:-1] if state._phase == OVER else state._past
    base = [b for b in state._base]
    if state._phase == OVER:  # the last deal's card points are in the base by now: take them back
        for t in state._past[-1][5]:
            base[t[2]] -= t[3]
    fields: list[tuple[str, str]] = [
        ("dealer", str(dealer)),
        ("deal", str(deal)),
        ("points", pos.ints_text(base)),
    ]
    if past:
        fields.append(("past", "/".join(f"{p[0]}:{p[1]}:{p[6]}:{pos.ints_text(p[7])}" for p in past)))
    hands = own_dealt if dealt is None else dealt
    fields.append(("dealt", "/".join(pos.cards_text(A2ID[a] for a in mask_to_actions(m)) for m in hands)))
    x = x if drawn is None else drawn
    if x >= 0:
        fields.append(("drawn", CODE[x]))
    fields.append(("plays", ",".join(CODE[a] for a in (own_plays if plays is None else plays)) or pos.EMPTY))
    if seed is None:
        fields += pos.chance_fields(state.chance, state.game.parse_chance)
    else:
        fields.append(("rng", str(seed)))
    return pos.join(state.game.spec(), fields)


def read(game: PiqueseptGame, text: str, chance: list[Any] | None) -> PiqueseptState:
    f = pos.open_fields(game, text, FIELDS)
    n = game.num_players
    dealer = f.number("dealer", 0, n - 1)
    deal = f.number("deal", 0, game.options.deals - 1)
    points = f.numbers("points", n, 0, 10**9)
    past = _past(f, n, deal)
    dealt_cards = f.card_groups("dealt", n)
    dealt = [0] * n
    for q, cards in enumerate(dealt_cards):
        if len(cards) != game.hand_size:
            raise f.fail("dealt", f"each seat is dealt {game.hand_size} cards")
        for c in cards:
            if ID2A[c] < 0 or not game.pack_mask >> ID2A[c] & 1:
                raise f.fail("dealt", f"{CODE[ID2A[c]] if ID2A[c] >= 0 else c} is not in this pack")
            dealt[q] |= IDBIT[c]
    if sum(m.bit_count() for m in dealt) != len(game.pack_ids) or len(set(sum(dealt_cards, []))) != len(
        game.pack_ids
    ):
        raise f.fail("dealt", "the hands must hold the pack's cards once each")
    own: list[Any] = []
    # docs/rules/piquesept.md, Seats and dealing: pack[i] goes to seat (dealer + 1 + i) mod n.
    by_seat = [sorted(cards) for cards in dealt_cards]
    own.append([CODES[by_seat[(dealer + 1 + i) % n][i // n]] for i in range(len(game.pack_ids))])
    if f.has("drawn"):
        drawn = f.cards("drawn")
        if len(drawn) != 1:
            raise f.fail("drawn", "one card is drawn in the trade")
        own.append(CODES[drawn[0]])
    plays = [] if f.text("plays", pos.EMPTY) == pos.EMPTY else f.text("plays").split(",")
    seed, stream, future = pos.read_chance(f, chance)
    s = game.blank_state(seed, Chance(stream, own))
    s._open()
    s._dealer = dealer
    s._deal_no = deal
    s._base = points
    s._ret = [sum(p[7][q] for p in past) for q in range(n)]
    s._past = past
    s._start_deal()
    for i, action in enumerate(plays):
        if s.is_terminal():
            raise f.fail("plays", f"{action!r} (play {i + 1}) comes after the match is over")
        try:
            s.apply_action(s.string_to_action(action))
        except RecordError:
            if len(s.chance.log) < len(own):
                raise f.fail("drawn", "the first trick is over: say which card the drawer drew") from None
            raise f.fail("plays", "the deal ends within them: a position holds one deal's plays") from None
        except GameError as e:
            raise f.fail("plays", f"play {i + 1}: {e}") from None
    if len(s.chance.log) < len(own):
        raise f.fail("drawn", "no card is drawn before the first trick is over")
    s._events = []  # what the last action caused is not part of a position
    pos.settle(s, future)
    return s


def _past(f: pos.Fields, n: int, deal: int) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for part in f.groups("past", default=pos.EMPTY):
        bits = part.split(":")
        if len(bits) != 4:
            raise f.fail("past", "expected dealer:soloist:points:returns for each finished deal")
        d = f._number("past", bits[0], 0, n - 1)
        s = f._number("past", bits[1], 0, n - 1)
        sp = f._number("past", bits[2], 0, 130)
        delta = [f._number("past", r, -10, 10) for r in bits[3].split(",")]
        if len(delta) != n or sum(delta) != 0:
            raise f.fail("past", f"a deal's returns are {n} numbers summing to 0")
        out.append((d, s, (), -1, -1, (), sp, tuple(delta)))
    if len(out) != deal:
        raise f.fail(
            "past" if out else "deal", f"deal {deal} comes after {deal} finished deals, not {len(out)}"
        )
    return out
