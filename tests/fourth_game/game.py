"""Minitrick: the rules engine (``rules.md`` in this folder; section names in the comments).

Twelve cards, Queen King Ace of the four suits, have dense actions ``0 … 11``: ``suit * 3 + r`` with
suits ``C D H S`` and ``r`` 0–2 for ``Q K A``; records and chance use the core's 52-card ids
(``A2ID``/``ID2A`` map between them). Hands are 12-bit masks of actions. Each deal draws one shuffled
pack through ``self.chance``; the rule primitives (:func:`card_power`, :func:`trick_winner`,
:func:`legal_mask`) are written once here and used by the engine, the determinizer and the kit.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from enum import IntEnum
from itertools import combinations
from typing import Any, ClassVar

from gamester.core.cards import parse_card
from gamester.core.errors import IllegalActionError, InvalidActionError, quote
from gamester.core.kit import Kit
from gamester.core.options import RuleSet
from gamester.core.protocol import TERMINAL, Game, State
from gamester.core.rng import Chance, make_rng
from tests.fourth_game.options import RULESETS, MiniTrickOptions

NUM_ACTIONS = 12
SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANKS = "QKA"
CODE: tuple[str, ...] = tuple(RANKS[a % 3] + SUITS[a // 3] for a in range(NUM_ACTIONS))
A2ID: tuple[int, ...] = tuple((a // 3) * 13 + 10 + a % 3 for a in range(NUM_ACTIONS))
ID2A: dict[int, int] = {c: a for a, c in enumerate(A2ID)}
SUIT_MASK: tuple[int, ...] = tuple(0b111 << (3 * s) for s in range(4))
NO_TRUMP = -1


class Phase(IntEnum):
    PLAY = 0
    OVER = 1


def suit_of(action: int) -> int:
    return action // 3


def cards_in(mask: int) -> list[int]:
    """The actions of a hand mask, ascending."""
    return [a for a in range(NUM_ACTIONS) if mask >> a & 1]


def codes(mask: int) -> list[str]:
    return [CODE[a] for a in cards_in(mask)]


def card_power(action: int, led: int, trump: int) -> int:
    """rules.md, Tricks: a trump beats every other card, then the led suit; within a suit A > K > Q.
    A card of neither suit cannot win (power below every card that can)."""
    s = action // 3
    return (20 if s == trump else 10 if s == led else 0) + action % 3


def trick_winner(cards: Sequence[int], trump: int) -> int:
    """The position in ``cards`` (in play order) of the card that wins the trick so far."""
    led = cards[0] // 3
    return max(range(len(cards)), key=lambda i: card_power(cards[i], led, trump))


def legal_mask(hand: int, led: int, trump: int, must_trump: bool) -> int:
    """rules.md, Tricks: any card to lead; follow suit if able; void, a trump if ``must_trump`` and
    able; else any card."""
    if led < 0:
        return hand
    follow = hand & SUIT_MASK[led]
    if follow:
        return follow
    if must_trump and trump >= 0:
        return hand & SUIT_MASK[trump] or hand
    return hand


class MiniTrickGame(Game):
    name = "minitrick"
    title = "Minitrick"
    rules_version = 1
    options_class = MiniTrickOptions
    rulesets: ClassVar[Mapping[str, RuleSet]] = RULESETS
    options: MiniTrickOptions

    def __init__(self, options: MiniTrickOptions) -> None:
        super().__init__(options)
        n = options.players
        # rules.md, Dealing: four cards each with two players, three with three.
        self.hand_size = 4 if n == 2 else 3
        self.pack_ids: tuple[int, ...] = tuple(sorted(A2ID))
        self._size = _layout(n)[-1]

    @property
    def num_players(self) -> int:
        return self.options.players

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def observation_tensor_size(self) -> int:
        return self._size

    def bounds(self) -> tuple[float, float, int]:
        """rules.md, Scoring: a loser gets -1, a lone winner n - 1; every card dealt is played once."""
        n = self.options.players
        return -1.0, float(n - 1), self.options.deals * self.hand_size * n

    def _new_state(self, seed: int, chance: Chance) -> MiniTrickState:
        return MiniTrickState(self, seed, chance)

    def _make_kit(self) -> Kit:
        from tests.fourth_game.kit import MiniTrickKit

        return MiniTrickKit(self)

    def parse_chance(self, entry: Any) -> int:
        if not isinstance(entry, str):
            raise InvalidActionError(f"{quote(entry)} is not a card code of the Minitrick pack")
        c = parse_card(entry)
        if c not in ID2A:
            raise InvalidActionError(f"{quote(entry)} is not in the Minitrick pack (Q K A of each suit)")
        return c

    def format_chance(self, entry: Any) -> Any:
        if isinstance(entry, int):
            return CODE[ID2A[entry]]
        return [CODE[ID2A[c]] for c in entry]


def _layout(n: int) -> tuple[int, ...]:
    """Offsets of the observation tensor's blocks (seats relative to the observer):
    hand 12 | turn-up 12 | trick by seat n*12 | played this deal 12 | tricks won n | scores n |
    to act n | dealer n | trump suit 5 (the fifth: none) | trick and deal progress 2 | size."""
    sizes = (12, 12, n * 12, 12, n, n, n, n, 5, 2)
    out = [0]
    for s in sizes:
        out.append(out[-1] + s)
    return tuple(out)


class MiniTrickState(State):
    game: MiniTrickGame

    __slots__ = (
        "_n",
        "_hs",
        "_phase",
        "_dealer",
        "_deal_no",
        "_hands",
        "_dealt",
        "_turnup",
        "_trump",
        "_stock",
        "_leader",
        "_cur",
        "_trick",
        "_tricks",
        "_won",
        "_base",
        "_actions",
        "_events",
    )

    def __init__(self, game: MiniTrickGame, seed: int, chance: Chance, *, _blank: bool = False) -> None:
        self.game = game
        self.seed = seed
        self.chance = chance
        if _blank:
            return
        o = game.options
        self._n = o.players
        self._hs = game.hand_size
        self._phase = Phase.PLAY
        self._dealer = o.first_dealer
        self._deal_no = 0
        self._base = [0] * self._n
        self._actions: list[int] = []
        self._events: tuple[tuple[Any, ...], ...] = ()
        self._start_deal([])

    # -- the deal ----------------------------------------------------------------------------
    def _start_deal(self, events: list[tuple[Any, ...]]) -> None:
        """rules.md, Dealing: pack[i] to seat (dealer + 1 + i) mod n, one at a time; the next card is
        turned up; the rest stay unseen in the stock."""
        g = self.game
        pack = [ID2A[c] for c in self.chance.pack(g.pack_ids, g.parse_chance)]
        n, hs, d = self._n, self._hs, self._dealer
        hands = [0] * n
        for i in range(hs * n):
            hands[(d + 1 + i) % n] |= 1 << pack[i]
        self._hands = hands
        self._dealt = tuple(hands)
        self._turnup = pack[hs * n]
        self._trump = suit_of(self._turnup) if g.options.trump == "turnup" else NO_TRUMP
        self._stock = sum(1 << a for a in pack[hs * n + 1 :])
        self._leader = self._cur = (d + 1) % n
        self._trick: list[int] = []
        self._tricks: list[tuple[int, tuple[int, ...], int]] = []
        self._won = [0] * n
        events.append(("deal", d, self._deal_no, self._turnup))
        self._events = tuple(events)

    # -- protocol ----------------------------------------------------------------------------
    def current_player(self) -> int:
        return self._cur

    def is_terminal(self) -> bool:
        return self._phase == Phase.OVER

    def _led(self) -> int:
        return suit_of(self._trick[0]) if self._trick else -1

    def _legal_mask(self) -> int:
        if self._phase == Phase.OVER:
            return 0
        return legal_mask(self._hands[self._cur], self._led(), self._trump, self.game.options.must_trump)

    def legal_actions(self) -> list[int]:
        return cards_in(self._legal_mask())

    def apply_action(self, action: int) -> None:
        if type(action) is not int or not 0 <= action < NUM_ACTIONS or not self._legal_mask() >> action & 1:
            raise IllegalActionError(self._why_illegal(action))
        n = self._n
        seat = self._cur
        self._hands[seat] &= ~(1 << action)
        self._trick.append(action)
        self._actions.append(action)
        events: list[tuple[Any, ...]] = []
        if len(self._trick) < n:
            self._cur = (seat + 1) % n
            self._events = ()
            return
        cards = tuple(self._trick)
        # rules.md, Tricks: the winner of a trick leads the next.
        winner = (self._leader + trick_winner(cards, self._trump)) % n
        self._tricks.append((self._leader, cards, winner))
        self._won[winner] += 1
        self._trick = []
        events.append(("trick", self._leader, cards, winner))
        if len(self._tricks) < self._hs:
            self._leader = self._cur = winner
            self._events = tuple(events)
            return
        # rules.md, Scoring: a trick is a point; the deal passes to the left.
        self._base = [b + w for b, w in zip(self._base, self._won, strict=True)]
        events.append(("deal_over", tuple(self._won), tuple(self._base)))
        self._deal_no += 1
        if self._deal_no < self.game.options.deals:
            self._dealer = (self._dealer + 1) % n
            self._start_deal(events)
            return
        self._phase = Phase.OVER
        self._cur = TERMINAL
        events.append(("game_over",))
        self._events = tuple(events)

    def _why_illegal(self, action: object) -> str:
        where = self._where()
        if self._phase == Phase.OVER:
            return f"{quote(action)} is not legal: the game is over ({where})"
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            return f"{quote(action)} is not a Minitrick action (0-11, one per card of the pack) ({where})"
        seat = self._cur
        code = CODE[action]
        if not self._hands[seat] >> action & 1:
            return f"{code} is not in seat {seat}'s hand ({where})"
        led = self._led()
        if self._hands[seat] & SUIT_MASK[led]:
            rule = f"holding {SUIT_NAMES[led]} must follow suit"
        else:
            rule = f"void in {SUIT_NAMES[led]} must play a trump (must_trump=true)"
        return f"{code} is not legal: seat {seat} {rule} (minitrick rules.md, Tricks; {where})"

    def _where(self) -> str:
        if self._phase == Phase.OVER:
            return f"game over after {self.game.options.deals} deal(s), scores {self.scores()}"
        return (
            f"deal {self._deal_no + 1} of {self.game.options.deals}, trick {len(self._tricks) + 1}, "
            f"seat {self._cur} to act"
        )

    def returns(self) -> list[float]:
        """rules.md, Scoring: the players with the most tricks share the losers' stakes."""
        n = self._n
        if self._phase != Phase.OVER:
            return [0.0] * n
        s = self._base
        best = max(s)
        top = [p for p in range(n) if s[p] == best]
        if len(top) == n:
            return [0.0] * n
        share = (n - len(top)) / len(top)
        return [share if s[p] == best else -1.0 for p in range(n)]

    def scores(self) -> list[int]:
        if self._phase == Phase.OVER:
            return list(self._base)
        return [b + w for b, w in zip(self._base, self._won, strict=True)]

    def clone(self) -> MiniTrickState:
        s = MiniTrickState(self.game, self.seed, self.chance.copy(), _blank=True)
        s._n = self._n
        s._hs = self._hs
        s._phase = self._phase
        s._dealer = self._dealer
        s._deal_no = self._deal_no
        s._hands = self._hands[:]
        s._dealt = self._dealt
        s._turnup = self._turnup
        s._trump = self._trump
        s._stock = self._stock
        s._leader = self._leader
        s._cur = self._cur
        s._trick = self._trick[:]
        s._tricks = self._tricks[:]
        s._won = self._won[:]
        s._base = self._base[:]
        s._actions = self._actions[:]
        s._events = self._events
        return s

    # -- public reads for the kit ------------------------------------------------------------
    def deal_number(self) -> int:
        return self._deal_no

    def trump_suit(self) -> int:
        return self._trump

    def trick_cards(self) -> list[int]:
        return list(self._trick)

    # -- notation ----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if type(action) is int and 0 <= action < NUM_ACTIONS:
            return CODE[action]
        raise InvalidActionError(f"{quote(action)} is not a Minitrick action: 0-11 are the twelve cards")

    def string_to_action(self, text: str) -> int:
        try:
            a = ID2A.get(parse_card(text), -1)
        except InvalidActionError:
            a = -1
        if a < 0:
            raise InvalidActionError(
                f"{quote(text)} is not a Minitrick action: write a card Q, K or A of C, D, H or S, e.g. 'AS'"
            )
        return a

    def history_strings(self) -> list[str]:
        return [CODE[a] for a in self._actions]

    # -- information -------------------------------------------------------------------------
    def observation(self, player: int) -> dict[str, Any]:
        """rules.md, What each player knows: own hand, the turn-up, every card played and by whom."""
        self.check_player(player)
        return self._view(player)

    def public_observation(self) -> dict[str, Any]:
        return self._view(None)

    def _view(self, player: int | None) -> dict[str, Any]:
        """The one view function: the public part, plus ``player``'s hand."""
        over = self._phase == Phase.OVER
        view: dict[str, Any] = {
            "game": "minitrick",
            "seat": player,
            "players": self._n,
            "phase": self._phase.name.lower(),
            "current_player": None if over else self._cur,
            "dealer": self._dealer,
            "deal": self._deal_no,
            "deals": self.game.options.deals,
            "turnup": CODE[self._turnup],
            "trump": None if self._trump < 0 else SUITS[self._trump],
            "hand_sizes": [h.bit_count() for h in self._hands],
            "stock_size": self._stock.bit_count(),
            "leader": self._leader,
            "trick": [CODE[a] for a in self._trick],
            "tricks": [
                {"leader": t[0], "cards": [CODE[a] for a in t[1]], "winner": t[2]} for t in self._tricks
            ],
            "tricks_won": list(self._won),
            "scores": self.scores(),
        }
        if player is not None:
            view["hand"] = codes(self._hands[player])
        return view

    def observation_tensor(self, player: int) -> list[float]:
        self.check_player(player)
        n = self._n
        o = _layout(n)
        t = [0.0] * o[-1]
        rel = [(q - player) % n for q in range(n)]
        for a in cards_in(self._hands[player]):
            t[o[0] + a] = 1.0
        t[o[1] + self._turnup] = 1.0
        seat = self._leader
        for a in self._trick:
            t[o[2] + 12 * rel[seat] + a] = 1.0
            seat = (seat + 1) % n
        for _leader, cards, _w in self._tricks:
            for a in cards:
                t[o[3] + a] = 1.0
        for a in self._trick:
            t[o[3] + a] = 1.0
        total = float(self.game.options.deals * self._hs)
        scores = self.scores()
        for q in range(n):
            t[o[4] + rel[q]] = self._won[q] / self._hs
            t[o[5] + rel[q]] = scores[q] / total
        if self._phase != Phase.OVER:
            t[o[6] + rel[self._cur]] = 1.0
        t[o[7] + rel[self._dealer]] = 1.0
        t[o[8] + (self._trump if self._trump >= 0 else 4)] = 1.0
        t[o[9]] = len(self._tricks) / self._hs
        t[o[9] + 1] = self._deal_no / self.game.options.deals
        return t

    def _played_by(self) -> list[int]:
        """Each seat's cards played so far this deal (a mask)."""
        out = [0] * self._n
        for leader, cards, _w in self._tricks:
            for i, a in enumerate(cards):
                out[(leader + i) % self._n] |= 1 << a
        for i, a in enumerate(self._trick):
            out[(self._leader + i) % self._n] |= 1 << a
        return out

    def _voids(self) -> list[int]:
        """rules.md, What each player knows: the suits each seat has shown it lacks this deal (a
        mask of the cards it cannot hold): not following the led suit, and with ``must_trump`` not
        trumping either."""
        n = self._n
        out = [0] * n
        must = self.game.options.must_trump
        plays = [(t[0], t[1]) for t in self._tricks]
        if self._trick:
            plays.append((self._leader, tuple(self._trick)))
        for leader, cards in plays:
            led = suit_of(cards[0])
            for i, a in enumerate(cards[1:], 1):
                q = (leader + i) % n
                if suit_of(a) != led:
                    out[q] |= SUIT_MASK[led]
                    if must and self._trump >= 0 and suit_of(a) != self._trump:
                        out[q] |= SUIT_MASK[self._trump]
        return out

    def determinize(self, player: int, rng: random.Random) -> MiniTrickState:
        """A full state, drawn with ``rng``, that ``player`` cannot tell from this one: the other
        hands and the stock re-dealt from the unseen cards, respecting every void shown this deal
        (uniform over the hands that fit); earlier deals' stocks reshuffled; future chance from a
        fresh seed drawn from ``rng``."""
        self.check_player(player)
        n = self._n
        others = [q for q in range(n) if q != player]
        sizes = [self._hands[q].bit_count() for q in others]
        pool = cards_in(sum(self._hands[q] for q in others) | self._stock)
        voids = self._voids()
        hands = _sample_hands(pool, sizes, [voids[q] for q in others], rng)
        world = self.clone()
        played = self._played_by()
        new_hands = world._hands
        for q, h in zip(others, hands, strict=True):
            new_hands[q] = h
        assigned = sum(hands)
        world._stock = sum(1 << a for a in pool) & ~assigned
        world._dealt = tuple(new_hands[q] | played[q] for q in range(n))
        # Every pack rebuilt: hands in card order, stocks in a fresh order (none was ever seen).
        seed = rng.getrandbits(63)
        chance = Chance(make_rng(seed))
        log = [list(p) for p in self.chance.entries()]
        hs = self._hs
        for k, pack in enumerate(log):
            dealt_part = [ID2A[c] for c in pack[: hs * n]]
            if k == len(log) - 1 and self._phase != Phase.OVER:
                by_seat = [cards_in(m) for m in world._dealt]
                stock = cards_in(world._stock)
            else:
                by_seat = [[] for _ in range(n)]
                for i, a in enumerate(dealt_part):
                    by_seat[(self._deal_dealer(k) + 1 + i) % n].append(a)
                by_seat = [sorted(s) for s in by_seat]
                stock = sorted(ID2A[c] for c in pack[hs * n + 1 :])
            rng.shuffle(stock)
            d = self._deal_dealer(k)
            new_pack = [0] * len(pack)
            for i in range(hs * n):
                new_pack[i] = A2ID[by_seat[(d + 1 + i) % n][i // n]]
            new_pack[hs * n] = pack[hs * n]
            new_pack[hs * n + 1 :] = [A2ID[a] for a in stock]
            log[k] = new_pack
        chance.log = log
        world.chance = chance
        world.seed = seed
        return world

    def _deal_dealer(self, k: int) -> int:
        """Who dealt deal ``k`` (rules.md, Dealing: the deal passes to the left)."""
        return (self.game.options.first_dealer + k) % self._n

    def last_events(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for e in self._events:
            kind = e[0]
            if kind == "deal":
                trump = suit_of(e[3]) if self.game.options.trump == "turnup" else NO_TRUMP
                out.append(
                    {
                        "type": "deal",
                        "dealer": e[1],
                        "deal": e[2],
                        "turnup": CODE[e[3]],
                        "trump": None if trump < 0 else SUITS[trump],
                    }
                )
            elif kind == "trick":
                out.append(
                    {"type": "trick", "leader": e[1], "cards": [CODE[a] for a in e[2]], "winner": e[3]}
                )
            elif kind == "deal_over":
                out.append({"type": "deal_over", "tricks_won": list(e[1]), "scores": list(e[2])})
            else:
                out.append({"type": "game_over", "returns": self.returns(), "scores": self.scores()})
        return out

    def summary_extra(self) -> dict[str, Any]:
        return {
            "dealer": self._dealer,
            "deal": self._deal_no,
            "trump": None if self._trump < 0 else SUITS[self._trump],
            "tricks_won": list(self._won),
        }

    def __repr__(self) -> str:
        return f"<MiniTrickState {self.game.spec()} {self._where()}>"


def _sample_hands(pool: list[int], sizes: list[int], voids: list[int], rng: random.Random) -> list[int]:
    """Hands of ``sizes`` from ``pool`` (the rest goes to the stock), none holding a card its
    ``voids`` mask forbids, uniformly over the hands that fit: a few random tries, then every fitting
    choice listed (the pool holds at most eight cards)."""
    for _ in range(20):
        order = pool[:]
        rng.shuffle(order)
        hands, i = [], 0
        for size in sizes:
            hands.append(sum(1 << a for a in order[i : i + size]))
            i += size
        if all(h & v == 0 for h, v in zip(hands, voids, strict=True)):
            return hands
    fits: list[list[int]] = []

    def fill(k: int, left: list[int], chosen: list[int]) -> None:
        if k == len(sizes):
            fits.append(chosen)
            return
        allowed = [a for a in left if not voids[k] >> a & 1]
        for combo in combinations(allowed, sizes[k]):
            m = sum(1 << a for a in combo)
            fill(k + 1, [a for a in left if not m >> a & 1], [*chosen, m])

    fill(0, pool, [])
    if not fits:  # the true hands always fit, so this means the state itself is inconsistent
        raise RuntimeError("no hands fit what has been played")
    return fits[rng.randrange(len(fits))]
