"""Penneech's position notation (docs/positions.md): the current deal as it was dealt, what came
before it, and its plays so far, like a bridge deal with its play.

    penneech dealer=1 deal=0 scores=0,0 dealt=2C,5C,…/3D,… stock=AS,…(38) plays=keep,9H,KH rng=7:1:22:…

- ``dealer``, ``deal`` (deals started before this one, redeals included), ``scores`` (each seat's
  score before this deal's first turn-up);
- ``dealt``: each seat's seven cards as dealt (seat 0, then seat 1), ``stock``: the other 38 cards
  of the pack in order, the turn-ups first (the first is the deal's own turn-up, then one after each
  trick), the rest unseen;
- ``plays``: this deal's actions in order (the redeal answers, ``keep``, and the cards);
- ``shown``: hands shown for redeals earlier in the game (``seat:cards/…``), when there were some;
- ``last``: the last trick before this deal (``leader:led:answer:winner:points``), written while no
  trick of this deal is over (a view shows it);
- ``rng`` / ``next``: the chance still to come (``gamester.core.position``).

Reading deals the pack and plays the plays through the engine, so every rule is checked again;
everything else (hands, trump, tricks, voids shown, who may still ask for a redeal) follows from them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gamester.core import position as pos
from gamester.core.cards import CODES, cards_of, mask_of
from gamester.core.errors import GameError, RecordError
from gamester.core.rng import BitStream, Chance, complete
from gamester.games.penneech.deal import HAND_SIZE, REDEAL_PHASE

if TYPE_CHECKING:
    from gamester.games.penneech.game import PenneechGame, PenneechState

FIELDS = ("dealer", "deal", "scores", "shown", "last", "dealt", "stock", "plays")


def deal_actions(state: PenneechState) -> list[int]:
    """This deal's actions: its redeal answers (every ``keep`` so far) and its cards played."""
    hands = state._hands
    played = 2 * HAND_SIZE - hands[0].bit_count() - hands[1].bit_count()
    keeps = sum(1 for e in state._eligible if e is True)
    if state._phase == REDEAL_PHASE:
        keeps -= 1  # the seat asked now has not answered
    n = played + keeps
    return state._history[-n:] if n else []


def write(state: PenneechState) -> str:
    pack = complete(state.chance.log[-1])
    d = state._dealer
    plays = deal_actions(state)
    # The scores before this deal: this deal's points taken back (its plays replayed from nothing).
    own = [[CODES[c] for c in pack]]
    gained = _deal(state.game, 0, Chance(BitStream(0), own), d, 0, [0, 0], unbounded=True)
    for a in plays:
        gained.apply_action(a)
    start = [a - b for a, b in zip(state._scores, gained._scores, strict=True)]
    fields: list[tuple[str, str]] = [
        ("dealer", str(d)),
        ("deal", str(state._deal_no)),
        ("scores", pos.ints_text(start)),
    ]
    if state._shown:
        fields.append(
            ("shown", "/".join(f"{seat}:{pos.cards_text(cards_of(m))}" for seat, m in state._shown))
        )
    lt = state._last_trick
    if lt is not None and not state._tricks[0] + state._tricks[1]:
        leader, led, c, winner, pts = lt
        fields.append(("last", f"{leader}:{CODES[led]}:{CODES[c]}:{winner}:{pts}"))
    fields += [
        ("dealt", "/".join(pos.cards_text(cards_of(m)) for m in state._dealt)),
        ("stock", pos.cards_text(pack[2 * HAND_SIZE :])),
        ("plays", ",".join(state.action_to_string(a) for a in plays) or pos.EMPTY),
    ]
    fields += pos.chance_fields(state.chance, state.game.parse_chance)
    return pos.join(state.game.spec(), fields)


def _deal(
    game: PenneechGame,
    seed: int,
    chance: Chance,
    dealer: int,
    deal: int,
    scores: list[int],
    *,
    unbounded: bool = False,
) -> PenneechState:
    """A state at the start of a deal: the game's fields as before its first deal, then these.
    ``unbounded``: no target and one deal only (to count what a deal's plays score)."""
    s = game.blank_state(seed, chance)
    s._open()
    if unbounded:
        s._target = 1 << 62
        s._deal_only = True
    s._scores = scores
    s._deal_no = deal
    s._dealer = dealer
    s._start_deal()
    return s


def read(game: PenneechGame, text: str, chance: list[Any] | None) -> PenneechState:
    f = pos.open_fields(game, text, FIELDS)
    dealer = f.number("dealer", 0, 1)
    deal = f.number("deal", 0, 10**9)
    scores = f.numbers("scores", 2, 0, 10**9)
    shown = _shown(f)
    last = _last(f)
    dealt = f.card_groups("dealt", 2)
    for hand in dealt:
        if len(hand) != HAND_SIZE:
            raise f.fail("dealt", f"each seat is dealt {HAND_SIZE} cards")
    stock = f.cards("stock")
    everything = dealt[0] + dealt[1] + stock
    if len(everything) != 52 or len(set(everything)) != 52:
        raise f.fail(
            "stock", f"the two hands and the stock must hold the 52 cards once each (got {len(stock)})"
        )
    plays = [] if f.text("plays", pos.EMPTY) == pos.EMPTY else f.text("plays").split(",")
    seed, stream, future = pos.read_chance(f, chance)
    # docs/rules/penneech.md, Dealing: one card at a time, the non-dealer first.
    first, second = dealt[1 - dealer], dealt[dealer]
    pack = [c for pair in zip(first, second, strict=True) for c in pair] + stock
    s = _deal(game, seed, Chance(stream, [[CODES[c] for c in pack]]), dealer, deal, scores)
    s._shown = shown
    s._last_trick = last
    for i, action in enumerate(plays):
        if s.is_terminal():
            raise f.fail("plays", f"{action!r} (play {i + 1}) comes after the game is over")
        try:
            s.apply_action(s.string_to_action(action))
        except RecordError:
            raise f.fail(
                "plays", "the deal ends within these plays: a position holds one deal's plays"
            ) from None
        except GameError as e:
            raise f.fail("plays", f"play {i + 1}: {e}") from None
    if last is not None and s._tricks[0] + s._tricks[1]:
        raise f.fail("last", "a trick of this deal is over: the last trick is that one")
    s._events = []  # what the last action caused is not part of a position
    pos.settle(s, future)
    return s


def _shown(f: pos.Fields) -> tuple[tuple[int, int], ...]:
    out = []
    for part in f.groups("shown", default=pos.EMPTY):
        seat, colon, codes = part.partition(":")
        if not colon or seat not in ("0", "1"):
            raise f.fail("shown", "expected seat:cards for each hand shown, e.g. 1:4D,8D,9D,5H,7H,9H,8S")
        cards = f.cards("shown", codes)
        if len(cards) != HAND_SIZE:
            raise f.fail("shown", f"a hand shown holds {HAND_SIZE} cards")
        out.append((int(seat), mask_of(cards)))
    return tuple(out)


def _last(f: pos.Fields) -> tuple[int, int, int, int, int] | None:
    if not f.has("last"):
        return None
    parts = f.text("last").split(":")
    if len(parts) != 5 or parts[0] not in ("0", "1") or parts[3] not in ("0", "1"):
        raise f.fail("last", "expected leader:led:answer:winner:points, e.g. 0:AS:KS:0:9")
    led, answer = f.cards("last", parts[1]), f.cards("last", parts[2])
    if len(led) != 1 or len(answer) != 1 or led == answer:
        raise f.fail("last", "a trick holds two cards")
    pts = f._number("last", parts[4], 0, 77)
    return int(parts[0]), led[0], answer[0], int(parts[3]), pts
