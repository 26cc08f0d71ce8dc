"""Pentyrch's position notation (docs/positions.md): the board, the hands and what has been seen of
them, where the round and the match stand.

    pentyrch game=0 seat=1 round=0 moved=1 board=5C/-/…(25 cells) safe=- hands=…/…/…/… seen=-/…
    dealt=…/…/…/… rng=…

- ``game`` (games of the match finished before this one), ``seat`` (the seat to move, 0 West … 3
  South), ``round`` (rounds finished in this game), ``moved`` (1: a card has moved this round);
  ``over=1`` once the match is over;
- ``board``: the 25 cells, row by row from the top (``gamester.games.pentyrch.board.CELL_NAMES``),
  ``/``-separated: each cell's pile, bottom card first, then ``+`` and the court cards standing on it,
  bottom first (``9C,5H+JH,QC``; ``-`` for an empty cell); ``safe``: the court cards in safety. Every
  other court card of a seat in play is off the board, waiting to enter;
- ``hands``: each player's cards, ``seen``: the cards of each hand the other players have seen
  (shown, passed on a pass, taken from a pile), ``dealt``: each hand as dealt in this game, ``aside``:
  the card set aside with three players;
- what the play has told the others about a hand, for worlds drawn from it: ``caps`` (no card of the
  hand reached this pile value, when it was less than 11) and ``passes`` (a pass that showed no hand:
  ``player:bound:hand:hidden``, the hand's sum then below the bound);
- ``finished``: the units (seats, players, teams) finished, in order; the match so far: ``totals`` and
  ``returns`` (finished games' points and returns per player), ``results`` (each finished game:
  ``game:reason:winners:returns:points``) and ``past`` (each finished game's hidden hands, for worlds:
  ``dealt|hidden|caps|passes|aside``, ``;``-separated);
- ``rng`` / ``next``: the chance still to come (``gamester.core.position``).

Reading checks that every card is in exactly one place and every field is well formed; it does not
check that the position could be reached by play, so that a test may set up any board.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gamester.core import position as pos
from gamester.core.cards import CODES, cards_of, mask_of
from gamester.core.rng import Chance
from gamester.games.pentyrch.board import CELL_NAMES, FREE, NUM_CELLS, seat_owners
from gamester.games.pentyrch.cards import COURT_IDS, COURT_OF_CARD, HAND_CARDS, NONCOURT
from gamester.games.pentyrch.moves import COUNTS_STRIDE, SAFE

if TYPE_CHECKING:
    from gamester.games.pentyrch.game import PentyrchGame
    from gamester.games.pentyrch.state import PentyrchState

FIELDS = (
    "game",
    "seat",
    "round",
    "moved",
    "over",
    "board",
    "safe",
    "hands",
    "seen",
    "dealt",
    "aside",
    "caps",
    "passes",
    "finished",
    "totals",
    "returns",
    "results",
    "past",
)

_NO_CAP = 11  # a hand nothing is known of: every value up to 10 may be in it


def _masks(masks: list[int]) -> str:
    return "/".join(pos.cards_text(cards_of(m)) for m in masks)


def _passes(passcons: list[tuple[int, int, int, int]]) -> str:
    return "/".join(
        f"{q}:{low}:{pos.cards_text(cards_of(h))}:{pos.cards_text(cards_of(t))}" for q, low, h, t in passcons
    )


def write(state: PentyrchState) -> str:
    cells = []
    for c in range(NUM_CELLS):
        pile = pos.cards_text(state._piles[c]) if state._piles[c] else ""
        courts = state._stacks[c]
        text = pile + ("+" + ",".join(CODES[COURT_IDS[k]] for k in courts) if courts else "")
        cells.append(text or pos.EMPTY)
    safe = [COURT_IDS[k] for k in range(12) if state._cpos[k] == SAFE]
    fields: list[tuple[str, str]] = [
        ("game", str(state._g)),
        ("seat", str(state._seat)),
        ("round", str(state._round)),
        ("moved", "1" if state._moved else "0"),
    ]
    if state._over:
        fields.append(("over", "1"))
    fields += [
        ("board", "/".join(cells)),
        ("safe", pos.cards_text(safe)),
        ("hands", _masks(state._hands)),
        ("seen", _masks([h & ~d for h, d in zip(state._hands, state._hidden, strict=True)])),
        ("dealt", _masks(state._dealt)),
    ]
    if state._setaside >= 0:
        fields.append(("aside", CODES[state._setaside]))
    if any(c != _NO_CAP for c in state._caps):
        fields.append(("caps", pos.ints_text(state._caps)))
    if state._passcons:
        fields.append(("passes", _passes(state._passcons)))
    if state._finished:
        fields.append(("finished", pos.ints_text(state._finished)))
    if state._results:
        fields += [
            ("totals", pos.ints_text(state._total_scores)),
            ("returns", ",".join(repr(r) for r in state._total_returns)),
            ("results", "/".join(_result(r) for r in state._results)),
        ]
    if state._past_games:
        fields.append(("past", ";".join(_past_game(p) for p in state._past_games)))
    fields += pos.chance_fields(state.chance, state.game.parse_chance)
    return pos.join(state.game.spec(), fields)


def _result(r: dict[str, Any]) -> str:
    returns = ",".join(repr(x) for x in r["returns"])
    return f"{r['game']}:{r['reason']}:{pos.ints_text(r['winners'])}:{returns}:{pos.ints_text(r['scores'])}"


def _past_game(p: tuple[Any, ...]) -> str:
    _owner, dealt, hidden, caps, passcons, aside = p
    return "|".join(
        [
            _masks(dealt),
            _masks(hidden),
            pos.ints_text(caps),
            _passes(passcons) or pos.EMPTY,
            CODES[aside] if aside >= 0 else pos.EMPTY,
        ]
    )


def read(game: PentyrchGame, text: str, chance: list[Any] | None) -> PentyrchState:
    f = pos.open_fields(game, text, FIELDS)
    o = game.options
    n = o.players
    g = f.number("game", 0, o.games - 1)
    over = f.flag("over", False)
    seat = f.number("seat", 0, 2 if n == 3 else 3)
    rnd = f.number("round", 0, o.max_rounds)
    moved = f.flag("moved")
    seed, stream, future = pos.read_chance(f, chance)
    s = game.blank_state(seed, Chance(stream, None))
    s._open()
    s._g = g
    s._setup_game()  # the owners, the dealer and the units of game g; its fields set below
    s._over = over
    s._seat = seat
    s._round = rnd
    s._moved = moved
    placed: list[int] = []
    piles: list[list[int]] = [[] for _ in range(NUM_CELLS)]
    stacks: list[list[int]] = [[] for _ in range(NUM_CELLS)]
    cpos = [-1] * 12
    if n == 3:  # South's court cards never play
        for k in (9, 10, 11):
            cpos[k] = -2
    for c, part in enumerate(f.groups("board", NUM_CELLS)):
        pile_text, plus, court_text = part.partition("+")
        if part == pos.EMPTY:
            continue
        pile = f.cards("board", pile_text) if pile_text else []
        courts = [COURT_OF_CARD.get(x, -1) for x in (f.cards("board", court_text) if plus else [])]
        where = CELL_NAMES[c]
        if any(k < 0 for k in courts):
            raise f.fail("board", f"{where}: only court cards (J Q K) stand on a cell after '+'")
        if any(x not in NONCOURT for x in pile):
            raise f.fail("board", f"{where}: a court card is written before '+', in the pile")
        if c == FREE and pile:
            raise f.fail("board", "d4, the free space, holds no pile")
        if len(courts) > 3:
            raise f.fail("board", f"{where}: at most three court cards stand on a cell")
        piles[c] = pile
        stacks[c] = courts
        placed += pile
        for k in courts:
            if cpos[k] != -1:
                raise f.fail("board", f"{CODES[COURT_IDS[k]]} is on the board twice or out of play")
            cpos[k] = c
    for card in f.cards("safe"):
        k = COURT_OF_CARD.get(card, -1)
        if k < 0 or cpos[k] != -1:
            raise f.fail("safe", f"{CODES[card]} is not a court card in play off the board")
        cpos[k] = SAFE
    hands = [mask_of(x) for x in f.card_groups("hands", n)]
    seen = [mask_of(x) for x in f.card_groups("seen", n)]
    dealt = [mask_of(x) for x in f.card_groups("dealt", n)]
    for q in range(n):
        placed += cards_of(hands[q])
        if seen[q] & ~hands[q]:
            raise f.fail("seen", f"player {q} has been seen holding cards not in the hand")
        if dealt[q] & ~_NONCOURT_MASK or any(dealt[q] & dealt[r] for r in range(q)):
            raise f.fail("dealt", "each hand as dealt holds Ace-10 cards, no card in two hands")
    aside = -1
    if f.has("aside"):
        got = f.cards("aside")
        if n != 3 or len(got) != 1 or got[0] not in HAND_CARDS:
            raise f.fail("aside", "with three players, one 7-10 card is set aside")
        aside = got[0]
        placed.append(aside)
    if sorted(placed) != sorted(NONCOURT) or len(set(placed)) != len(placed):
        missing = [CODES[c] for c in NONCOURT if c not in placed][:6]
        raise f.fail(
            "board", f"every Ace-10 card must be in one pile, hand or set aside once (missing {missing})"
        )
    s._piles = piles
    s._stacks = stacks
    s._cpos = cpos
    s._hands = hands
    s._hidden = [h & ~v for h, v in zip(hands, seen, strict=True)]
    s._dealt = dealt
    s._setaside = aside
    s._caps = f.numbers("caps", n, 1, _NO_CAP, [_NO_CAP] * n)
    s._passcons = _read_passes(f, "passes", f.text("passes", pos.EMPTY), n)
    units = len(s._unit_seats)
    s._finished = f.numbers("finished", len(f.text("finished", pos.EMPTY).split(",")), 0, units - 1, [])
    if len(set(s._finished)) != len(s._finished):
        raise f.fail("finished", "a unit is finished once")
    if not over and s._owner[seat] < 0 or not over and s._unit[seat] in s._finished:
        raise f.fail("seat", f"seat {seat} does not play now")
    # The finished games: those before this one, and this one too once the match is over.
    done = g + over
    if done:
        s._total_scores = f.numbers("totals", n, 0, 10**9)
        s._total_returns = _floats(f, "returns", n)
        s._results = [_read_result(f, part, n) for part in f.groups("results", done)]
    if g:
        s._past_games = tuple(_read_past(f, part, n, q) for q, part in enumerate(f.text("past").split(";")))
        if len(s._past_games) != g:
            raise f.fail("past", f"expected the hidden hands of {g} finished games, ';'-separated")
    for name in ("totals", "returns", "results", "past"):
        if f.has(name) and not (g if name == "past" else done):
            raise f.fail(name, "no game of the match is finished yet")
    s._legal = None
    s._combos = None
    s._counts = [0] * (COUNTS_STRIDE * n)
    pos.settle(s, future)
    return s


_NONCOURT_MASK = mask_of(NONCOURT)


def _floats(f: pos.Fields, name: str, count: int) -> list[float]:
    parts = f.text(name).split(",")
    try:
        out = [float(x) for x in parts if len(x) <= 30]
    except ValueError:
        out = []
    if len(out) != count:
        raise f.fail(name, f"expected {count} numbers separated by commas")
    return out


def _read_passes(f: pos.Fields, name: str, text: str, n: int) -> list[tuple[int, int, int, int]]:
    out = []
    for part in [] if text == pos.EMPTY else text.split("/"):
        bits = part.split(":")
        if len(bits) != 4:
            raise f.fail(name, "expected player:bound:hand:hidden for each pass")
        q = f._number(name, bits[0], 0, n - 1)
        low = f._number(name, bits[1], 0, 100)
        hand, then = mask_of(f.cards(name, bits[2])), mask_of(f.cards(name, bits[3]))
        out.append((q, low, hand, then))
    return out


def _read_result(f: pos.Fields, part: str, n: int) -> dict[str, Any]:
    bits = part.split(":")
    if len(bits) != 5:
        raise f.fail("results", "expected game:reason:winners:returns:points for each finished game")
    won = [] if bits[2] == pos.EMPTY else [f._number("results", w, 0, n - 1) for w in bits[2].split(",")]
    returns = [float(x) if _is_float(x) else float("nan") for x in bits[3].split(",")]
    if len(returns) != n or any(r != r for r in returns):
        raise f.fail("results", f"a game's returns are {n} numbers")
    points = [f._number("results", x, 0, 100) for x in bits[4].split(",")]
    if len(points) != n:
        raise f.fail("results", f"a game's points are {n} numbers")
    return {
        "game": f._number("results", bits[0], 0, 10**6),
        "reason": bits[1],
        "winners": won,
        "returns": returns,
        "scores": points,
    }


def _is_float(x: str) -> bool:
    try:
        float(x)
    except ValueError:
        return False
    return len(x) <= 30


def _read_past(f: pos.Fields, part: str, n: int, g: int) -> tuple[Any, ...]:
    bits = part.split("|")
    if len(bits) != 5:
        raise f.fail("past", "expected dealt|hidden|caps|passes|aside for each finished game")
    dealt = [mask_of(f.cards("past", x)) for x in bits[0].split("/")]
    hidden = [mask_of(f.cards("past", x)) for x in bits[1].split("/")]
    caps = [f._number("past", x, 1, _NO_CAP) for x in bits[2].split(",")]
    if len(dealt) != n or len(hidden) != n or len(caps) != n:
        raise f.fail("past", f"each finished game lists {n} hands, hidden parts and caps")
    aside_cards = f.cards("past", bits[4])
    aside = aside_cards[0] if aside_cards else -1
    return (seat_owners(n, g), dealt, hidden, caps, _read_passes(f, "past", bits[3], n), aside)
