"""Penneech: the rules engine.

Every rule cites the section of ``docs/rules/penneech.md`` (section names in the comments); the rule
primitives (who wins a trick, what may follow, what scores) are written once in ``rules.py``. Hands are
52-bit masks of card ids (``gamester.core.cards``); actions are the card ids 0–51, then ``keep`` (52)
and ``redeal`` (53). Dealing, turn-ups and trick resolution happen inside ``apply_action``: chance is
never an action, it is drawn through ``self.chance`` (one pack per deal, redeals included; with
``first_dealer=draw`` the first pack is the draw).

For speed (random playouts) the state also keeps each hand as a sorted list (``_hl``, always the
cards of ``_hands``), so a lead's legal actions are a copy; and the events of the commonest trick
ending (a plain turn-up) are rebuilt by ``last_events`` only when asked for (``_TRICK_TURNUP``).

The package's other parts: the deal's numbers and phases (``deal.py``), the rule primitives
(``rules.py``), what a seat sees (``views.py``), the worlds search draws and the records it reads
(``worlds.py``), the heuristic, the exact solver and the kit.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from gamester.core.cards import (
    FULL_PACK,
    SUIT_NAMES,
    SUITS,
    card_code,
    cards_of,
    parse_card,
)
from gamester.core.errors import IllegalActionError, InvalidActionError, quote
from gamester.core.protocol import TERMINAL, Game, State
from gamester.core.rng import Chance, make_rng, shuffle
from gamester.games.penneech import position, views, worlds

# The deal's numbers, the views and the worlds live in deal.py, views.py and worlds.py; these names stay
# importable from here.
from gamester.games.penneech.deal import BIT as BIT
from gamester.games.penneech.deal import DEAL_READS as DEAL_READS
from gamester.games.penneech.deal import DRAW_RANK as DRAW_RANK
from gamester.games.penneech.deal import DRAW_READS as DRAW_READS
from gamester.games.penneech.deal import HAND_SIZE as HAND_SIZE
from gamester.games.penneech.deal import KEEP as KEEP
from gamester.games.penneech.deal import LAST_TURN_UP as LAST_TURN_UP
from gamester.games.penneech.deal import NUM_ACTIONS as NUM_ACTIONS
from gamester.games.penneech.deal import OVER as OVER
from gamester.games.penneech.deal import PLAY as PLAY
from gamester.games.penneech.deal import REDEAL as REDEAL
from gamester.games.penneech.deal import REDEAL_PHASE as REDEAL_PHASE
from gamester.games.penneech.deal import Phase as Phase
from gamester.games.penneech.deal import draw_rank as draw_rank
from gamester.games.penneech.options import OPEN_SPACE, RULESETS, PenneechOptions

# The rule primitives live in rules.py, one definition each; these names stay importable from here.
from gamester.games.penneech.rules import HIGH_MASK as HIGH_MASK
from gamester.games.penneech.rules import POWER as POWER
from gamester.games.penneech.rules import REDEAL_BLOCKERS as REDEAL_BLOCKERS
from gamester.games.penneech.rules import SEVEN_D as SEVEN_D
from gamester.games.penneech.rules import TRICK_POINTS as TRICK_POINTS
from gamester.games.penneech.rules import TRICKS as TRICKS
from gamester.games.penneech.rules import TURNUP_POINTS as TURNUP_POINTS
from gamester.games.penneech.rules import (
    deal_bonus,
    legal_mask,
    outcomes,
    reaches_target,
    redeal_eligible,
    trick_outcomes,
    trump_of,
)
from gamester.games.penneech.views import OBS_SIZE as OBS_SIZE
from gamester.games.penneech.views import codes as _codes
from gamester.games.penneech.worlds import PenneechWorld as PenneechWorld
from gamester.games.penneech.worlds import SeatKnowledge as SeatKnowledge
from gamester.games.penneech.worlds import seat_knowledge_from_observation as seat_knowledge_from_observation

_trick_outcomes = trick_outcomes  # the name benchmarks/stripped_models.py reads


_NO_EVENTS: Final[list[tuple[Any, ...]]] = []  # shared and never appended to: a lead causes no event

# Mask -> sorted action list, one table per suit (13 bits each), so legal_actions is four lookups.
_CHUNK: Final[list[list[list[int]]]] = []


def _build_chunks() -> None:
    for s in range(4):
        table = []
        for m in range(1 << 13):
            table.append([s * 13 + r for r in range(13) if m >> r & 1])
        _CHUNK.append(table)


_build_chunks()


# The same lists as _CHUNK, per suit, indexed by the suit's 13 bits (``hand >> SHIFT[s] & 8191``).
SHIFT: Final = (0, 13, 26, 39)

# The events of a trick that has just ended, as shared markers (never appended to) that
# ``views.pending_events`` expands when someone asks: the trick alone (from ``_last_trick``), or the
# trick and the turn-up its winner made (the stock card just turned). A playout then makes no event at
# all; an event logged after one of them (the game's end, the deal's) first makes the list its own.
_TRICK: Final[list[tuple[Any, ...]]] = [(views.TRICK_PENDING,)]
_TRICK_TURNUP: Final[list[tuple[Any, ...]]] = [(views.TRICK_TURNUP_PENDING,)]


# At most this many void deals (redeals) before each deal that is played, for ``bounds()``. Redeals can
# in principle follow each other without end (docs/rules/penneech.md, Dealing), which a finite bound on
# a game's length (OpenSpiel's ``max_game_length``) cannot say. About one dealing in ten gives a hand
# that may ask (5% a hand with the default rule), so exceeding the bound takes six in a row: about one
# in a million.
REDEALS_BOUNDED: Final = 5


# The suits of a hand as it is shown (spades, hearts, clubs, diamonds: the colours alternate).
_HAND_SUITS: Final = (3, 2, 0, 1)


class PenneechGame(Game[PenneechOptions]):
    name = "penneech"
    title = "Penneech"
    blurb = "Two players, 52 cards. A new trump is turned up before every trick; honours peg you to 61."
    rules_version = 1
    options_class = PenneechOptions
    rulesets = RULESETS
    open_space = OPEN_SPACE
    clone_shares = {
        "PenneechState._pack": "the deal's pack as handed out by Chance (also in chance.log), read only",
        "PenneechState._dealt": "the two hands as dealt, set once per deal, read only",
    }

    def __init__(self, options: PenneechOptions) -> None:
        super().__init__(options)
        o = options
        # What every new state copies (PenneechState.__init__); -1: the first dealer is drawn.
        follow_suit = o.follow == "suit"
        self.follow_suit = follow_suit
        self.trump_only = o.trick_honours == "trump"
        self.consts = (
            follow_suit,
            TRICK_POINTS[o.trick_honours],
            outcomes(o.trick_honours, follow_suit),
            REDEAL_BLOCKERS[o.redeal],
            o.target,
            o.objective == "deal",
            -1 if o.first_dealer == "draw" else int(o.first_dealer),
        )

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def observation_tensor_size(self) -> int:
        return OBS_SIZE

    def _new_state(self, seed: int, chance: Chance) -> PenneechState:
        return PenneechState(self, seed, chance)

    def blank_state(self, seed: int, chance: Chance) -> PenneechState:
        """A state with no field set but the protocol's, for this package's readers to fill."""
        return PenneechState(self, seed, chance, _blank=True)

    def read_position(self, text: str, chance: Sequence[Any] | None = None) -> PenneechState:
        """docs/positions.md: the deal as dealt, what came before it and its plays (``position.py``)."""
        return position.read(self, text, None if chance is None else list(chance))

    def bounds(self) -> tuple[float, float, int]:
        """docs/rules/penneech.md: every played deal scores at least one point (the card bonus), so a
        game to ``target`` has at most 2 x (target - 1) + 1 deals; each has 14 plays and at most two
        redeal questions per dealing, with at most ``REDEALS_BOUNDED`` redeals before it."""
        o = self.options
        deals = 1 if o.objective == "deal" else 2 * (o.target - 1) + 1
        length = deals * (14 + 2 * (1 + REDEALS_BOUNDED))
        if o.objective == "deal":
            # The score difference of one deal: the 16 honours count once each (A5 K4 Q3 J2, in a
            # trick or turned up), the 7D at most 14 (turned up), the card bonus at most 7.
            return -77.0, 77.0, length
        return -1.0, 1.0, length

    def seats_alike(self) -> bool:
        # The first dealer drawn (the default), the seats differ only by that draw's luck; a fixed
        # first dealer gives that seat the first turn-up.
        return self.options.first_dealer == "draw"

    @classmethod
    def drawing(cls) -> dict[str, Any]:
        """docs/rules/penneech.md, The cards: every card in the order a hand is shown (suits alternating
        colours, each from its highest card down by the engine's ``POWER``: the 7D above the diamond
        Ace), so that no drawing restates the order."""
        return {
            "card_order": [
                card_code(c)
                for s in _HAND_SUITS
                for c in sorted(range(13 * s, 13 * s + 13), key=lambda c: -POWER[c])
            ]
        }

    def parse_chance(self, entry: Any) -> int:
        return parse_card(entry)

    def format_chance(self, entry: Any) -> Any:
        return [card_code(c) for c in entry]


class PenneechState(State[PenneechGame]):
    __slots__ = (
        "_follow",
        "_points",
        "_outcomes",
        "_blockers",
        "_target",
        "_deal_only",
        "_scores",
        "_dealer",
        "_hands",
        "_pack",
        "_pos",
        "_trump",
        "_phase",
        "_cur",
        "_leader",
        "_led",
        "_tricks",
        "_dealt",
        "_voids",
        "_deal_no",
        "_eligible",
        "_history",
        "_winner",
        "_events",
        "_shown",
        "_last_trick",
        "_hl",
    )

    def __init__(self, game: PenneechGame, seed: int, chance: Chance, *, _blank: bool = False) -> None:
        self.game = game
        self.seed = seed
        self.chance = chance
        if _blank:
            return
        first = self._open()
        # docs/rules/penneech.md, Dealing: first dealer by draw (lower card deals) or fixed.
        self._dealer = self._draw_for_deal() if first < 0 else first
        self._start_deal()

    def _open(self) -> int:
        """The fields of a game before its first deal (a position's reader then sets what it says);
        returns the first dealer the options fix (-1: drawn)."""
        (
            self._follow,
            self._points,
            self._outcomes,
            self._blockers,
            self._target,
            self._deal_only,
            first,
        ) = self.game.consts
        self._scores = [0, 0]
        self._history: list[int] = []
        self._winner = -1
        # Hands shown for a redeal, a tuple replaced (not appended to): most games show none, and
        # neither a new state nor a clone then makes a list for it.
        self._shown: tuple[tuple[int, int], ...] = ()
        self._deal_no = 0
        self._events: list[tuple[Any, ...]] = []
        self._last_trick: tuple[int, int, int, int, int] | None = None
        return first

    # -- chance ------------------------------------------------------------------------------
    def _draw_for_deal(self) -> int:
        """docs/rules/penneech.md, Dealing: seat 0 takes pack[0], seat 1 pack[1]; ties go on to the
        next pair. (Should a whole pack tie pair by pair, the draw goes on with a fresh pack.)"""
        chance = self.chance
        events = self._events
        while True:
            pack = chance.pack(FULL_PACK, parse_card, used=DRAW_READS)
            a, b = DRAW_RANK[pack[0]], DRAW_RANK[pack[1]]
            if a != b:
                dealer = 0 if a < b else 1
                events.append(("draw", pack[0], pack[1], dealer))
                return dealer
            events.append(("draw", pack[0], pack[1], -1))
            # A tie: read deeper into the pack (the whole of it only after a second tie).
            for i in range(2, 52, 2):
                if i == DRAW_READS:
                    pack = chance.full_pack(len(chance.log) - 1)
                a, b = DRAW_RANK[pack[i]], DRAW_RANK[pack[i + 1]]
                if a != b:
                    dealer = 0 if a < b else 1
                    events.append(("draw", pack[i], pack[i + 1], dealer))
                    return dealer
                events.append(("draw", pack[i], pack[i + 1], -1))

    def _start_deal(self) -> None:
        """docs/rules/penneech.md, Dealing: one card at a time, non-dealer first; the rest is stock."""
        # A deal reads the 14 dealt cards and at most 8 turn-ups.
        # parse_card is the game's parse_chance (no bound method made per deal).
        pack = self.chance.pack(FULL_PACK, parse_card, used=DEAL_READS)
        d = self._dealer
        nd = 1 - d
        # The cards one by one (compiled, a read at a constant index; a stepped slice is a generic
        # call), non-dealer first; distinct bits, so their sum is their union.
        c0, c1, c2, c3, c4, c5, c6 = pack[0], pack[2], pack[4], pack[6], pack[8], pack[10], pack[12]
        e0, e1, e2, e3, e4, e5, e6 = pack[1], pack[3], pack[5], pack[7], pack[9], pack[11], pack[13]
        b = BIT
        hn = b[c0] + b[c1] + b[c2] + b[c3] + b[c4] + b[c5] + b[c6]
        hd = b[e0] + b[e1] + b[e2] + b[e3] + b[e4] + b[e5] + b[e6]
        first = [c0, c1, c2, c3, c4, c5, c6]
        second = [e0, e1, e2, e3, e4, e5, e6]
        first.sort()
        second.sort()
        if d:
            hands = [hn, hd]
            self._hl = [first, second]
        else:
            hands = [hd, hn]
            self._hl = [second, first]
        self._hands = hands
        self._pack = pack
        self._trump = -1
        self._tricks = [0, 0]
        self._dealt = (hands[0], hands[1])
        self._voids = [0, 0]
        self._led = -1
        self._leader = nd
        self._log(("deal", d, self._deal_no))
        # docs/rules/penneech.md, Dealing: each eligible seat, non-dealer first, chooses.
        blockers = self._blockers
        if blockers:
            if redeal_eligible(hn, blockers):
                self._eligible: list[bool | None] = [None, True] if d == 0 else [True, None]
                self._pos = 14
                self._phase = REDEAL_PHASE
                self._cur = nd
                return
            if redeal_eligible(hd, blockers):
                self._eligible = [True, False] if d == 0 else [False, True]
                self._pos = 14
                self._phase = REDEAL_PHASE
                self._cur = d
                return
            # Not asked means not eligible: everyone saw that no choice was offered.
            self._eligible = [False, False]
        else:
            self._eligible = [None, None]
        self._pos = 14
        self._begin_play()

    def _begin_play(self) -> None:
        if self._blockers:
            # Not asked means not eligible: everyone saw that no choice was offered.
            for seat in (0, 1):
                if self._eligible[seat] is None:
                    self._eligible[seat] = False
        # docs/rules/penneech.md, Turn-ups and trumps: the dealer turns the first.
        if self._turn_up(self._dealer):
            return
        self._phase = PLAY
        self._cur = self._leader

    def _turn_up(self, seat: int) -> bool:
        """docs/rules/penneech.md, Turn-ups and trumps: ``seat`` turns the next stock card up; its suit
        is trump (``rules.trump_of``) and its points (``rules.turnup_points``) are pegged to ``seat`` at
        once (``_award``). True if that won the game. The event is logged, unless the caller has just
        left the marker that stands for it (``_TRICK_TURNUP``: a trick's winner turning up)."""
        c = self._pack[self._pos]
        self._pos += 1
        self._trump = trump_of(c)
        pts = TURNUP_POINTS[c]
        if self._events is not _TRICK_TURNUP:
            self._log(("turnup", seat, c, pts))
        return pts > 0 and self._award(seat, pts)

    def _award(self, seat: int, pts: int) -> bool:
        """docs/rules/penneech.md, Winning: points are pegged as they arise; the game ends as soon as a
        seat reaches the target (``rules.reaches_target``). True if it did."""
        s = self._scores[seat] + pts
        self._scores[seat] = s
        if reaches_target(s, self._target, self._deal_only):
            self._finish(seat)
            return True
        return False

    def _finish(self, winner: int) -> None:
        self._phase = OVER
        self._cur = TERMINAL
        self._winner = winner
        self._log(("over", winner))

    def _log(self, event: tuple[Any, ...]) -> None:
        """Log an event of the action in progress, after the events a marker stands for (the marker
        list itself is shared and never appended to)."""
        events = self._events
        if events and events[0][0] in views.PENDING:
            events = self._events = views.pending_events(self)
        events.append(event)

    # -- protocol ----------------------------------------------------------------------------
    def current_player(self) -> int:
        return self._cur

    def is_terminal(self) -> bool:
        return self._phase == OVER

    def _turned(self) -> list[int]:
        """This deal's turn-ups so far, in order (they are the stock's top cards)."""
        return self._pack[14 : self._pos]

    def _played(self, seat: int) -> int:
        """The cards ``seat`` has played in this deal."""
        return self._dealt[seat] & ~self._hands[seat]

    @property
    def deal_number(self) -> int:
        """Deals started so far less one (redeals included): public, and changes the moment a deal
        ends (searches that stop at a deal's end read it at every step: a property, not a view)."""
        return self._deal_no

    @property
    def dealer(self) -> int:
        """The seat that deals the current deal (after a deal's end: the next one's dealer)."""
        return self._dealer

    def world_view(self) -> PenneechWorld:
        """This state as a :class:`PenneechWorld` (every card in the open: for sampled worlds)."""
        pack = self._pack
        pos = self._pos
        h = self._hands
        d = self._dealt
        return PenneechWorld(
            self._phase,
            self._cur,
            self._dealer,
            self._deal_no,
            (h[0], h[1]),
            (d[0], d[1]),
            tuple(pack[14:pos]),
            tuple(pack[pos:]),
            self._trump,
            self._leader,
            self._led,
            (self._tricks[0], self._tricks[1]),
            (self._scores[0], self._scores[1]),
            (self._voids[0], self._voids[1]),
            self._target,
        )

    def deal_opening(
        self, target: int | None = None, scores: list[int] | None = None
    ) -> tuple[PenneechState, list[int]]:
        """A copy of this (sampled) world as it stood at the first trick of its current deal (the
        dealt hands, the first turn-up, no trick yet), and the card plays made since. The scores stay
        those of now unless ``scores`` replaces them; ``target`` replaces the target (out of reach:
        the plays replay without the game ending)."""
        hands = self._hands
        n = 14 - hands[0].bit_count() - hands[1].bit_count()
        plays = self._history[-n:] if n else []
        s = self.clone()
        s._hands = list(s._dealt)
        s._hl = [cards_of(s._dealt[0]), cards_of(s._dealt[1])]
        s._pos = 15
        s._trump = trump_of(self._pack[14])
        s._tricks = [0, 0]
        s._voids = [0, 0]
        s._led = -1
        s._cur = s._leader = 1 - s._dealer
        if n:
            s._history = s._history[:-n]  # replaying the plays gives the history back
        if target is not None:
            s._target = target
        if scores is not None:
            s._scores = list(scores)
        return s, plays

    def scores_before_this_deal(self) -> list[int]:
        """Right after the action that ended a deal: the scores as that deal ended, the new deal's
        first turn-up taken back (docs/rules/penneech.md, Turn-ups and trumps: the dealer turns it
        up as the deal starts). Otherwise the scores."""
        s = list(self._scores)
        events = self._events
        for i, e in enumerate(events):
            if e[0] == "deal":
                for f in events[i + 1 :]:
                    if f[0] == "turnup":
                        s[f[1]] -= f[3]
                break
        return s

    def restocked(self, rng: random.Random) -> PenneechState:
        """A copy of this (sampled) world with the unturned stock in a fresh order, and a fresh
        generator for the deals after this one, both drawn from ``rng``."""
        s = self.clone()
        pack = list(s._pack)
        rest = pack[s._pos :]
        shuffle(rng, rest)
        pack[s._pos :] = rest
        s._pack = pack
        s.chance.rng = make_rng(rng.getrandbits(64))
        s.chance.log[-1] = pack
        return s

    def seat_knowledge(self) -> SeatKnowledge:
        """What the seat to play a card knows (:class:`SeatKnowledge`), read straight from the
        fields: the same record as ``seat_knowledge_from_observation(self.observation(seat))``, at a
        fraction of the cost (playouts ask it at every card). Only in the play phase."""
        me = self._cur
        opp = 1 - me
        hands = self._hands
        dealt = self._dealt
        hand = hands[me]
        seen = hand | (dealt[0] & ~hands[0]) | (dealt[1] & ~hands[1])
        pack = self._pack
        for i in range(14, self._pos):
            seen |= BIT[pack[i]]
        game = self.game
        # tuple.__new__ builds the record without the generated __new__'s Python call (a playout
        # asks for one at every card); the fields are SeatKnowledge's, in its order.
        return tuple.__new__(
            SeatKnowledge,
            (
                me,
                hand,
                seen,
                self._trump,
                self._led,
                self._voids[opp],
                hands[opp].bit_count(),
                self._tricks[me],
                game.trump_only,
                game.follow_suit,
            ),
        )

    def _legal_mask(self) -> int:
        # docs/rules/penneech.md, Tricks (what the second player must play): rules.legal_mask.
        return legal_mask(self._hands[self._cur], self._led, self._trump, self._follow)

    def legal_actions(self) -> list[int]:
        if self._phase == PLAY:
            cur = self._cur
            led = self._led
            if led >= 0:
                hand = self._hands[cur]
                mask = legal_mask(hand, led, self._trump, self._follow)
                if mask != hand:
                    # The cards rules.legal_mask allows, in order: one table lookup per suit.
                    c = _CHUNK
                    return (
                        c[0][mask & 8191]
                        + c[1][mask >> 13 & 8191]
                        + c[2][mask >> 26 & 8191]
                        + c[3][mask >> 39]
                    )
            # A lead, or a follower void in the led suit: the whole hand (kept sorted in _hl).
            return self._hl[cur][:]
        if self._phase == REDEAL_PHASE:
            return [KEEP, REDEAL]
        return []

    def apply_action(self, action: object) -> None:
        # ``object``: whatever a caller passes gets this game's IllegalActionError (a compiled build
        # would otherwise refuse a non-int with its own TypeError before the checks below).
        if self._phase == PLAY:
            # The hot path of every playout (docs/rules/penneech.md, Tricks).
            seat = self._cur
            hands = self._hands
            hand = hands[seat]
            # (A hand holds no bit above 51, so the bit test also rejects actions above 51; a bool
            # is not an exact int.)
            if type(action) is not int or action < 0 or not hand >> action & 1:
                raise IllegalActionError(self._why_illegal(action))
            led = self._led
            if led < 0:
                self._history.append(action)
                hands[seat] = hand ^ (1 << action)
                self._hl[seat].remove(action)
                self._led = action
                self._cur = 1 - seat
                self._events = _NO_EVENTS
                return
            # docs/rules/penneech.md, Tricks: who wins, the points and whether the card needs a void, in
            # one lookup (rules.outcomes, a table made from rules.beats and rules.needs_void).
            trump = self._trump
            v = self._outcomes[trump][led * 52 + action]
            if v & 2:
                # rules.needs_void: a card rules.legal_mask allows only to a follower void in the led
                # suit, whose void it shows.
                if not legal_mask(hand, led, trump, self._follow) >> action & 1:
                    raise IllegalActionError(self._why_illegal(action))
                voids = self._voids  # (an item's augmented assignment is a generic call compiled)
                voids[seat] = voids[seat] | 1 << led // 13
            self._history.append(action)
            hands[seat] = hand ^ (1 << action)
            self._hl[seat].remove(action)
            leader = 1 - seat
            winner = seat if v & 1 else leader
            pts = v >> 2
            tricks = self._tricks
            tricks[winner] = tricks[winner] + 1
            self._last_trick = (leader, led, action, winner, pts)
            self._led = -1
            # The trick's event stands in the marker (views.pending_events makes it when asked for).
            self._events = _TRICK
            if pts and self._award(winner, pts):
                return
            if self._pos < LAST_TURN_UP:
                # docs/rules/penneech.md, Turn-ups and trumps: the winner turns the next trump, then leads.
                self._events = _TRICK_TURNUP
                if self._turn_up(winner):
                    return
                self._leader = self._cur = winner
                return
            self._end_deal(winner)
        elif self._phase == REDEAL_PHASE:
            if action != KEEP and action != REDEAL:
                raise IllegalActionError(self._why_illegal(action))
            self._events = []
            self._history.append(action)
            self._decide_redeal(action == REDEAL)
        else:
            raise IllegalActionError(self._why_illegal(action))

    def _end_deal(self, winner: int) -> None:
        """After trick 7 (its events logged): the last turn-up, the card bonus, the next deal."""
        # docs/rules/penneech.md, Turn-ups and trumps: after trick 7 its winner turns one more card.
        if self._turn_up(winner):
            return
        # docs/rules/penneech.md, End of the deal: 4+ tricks score 2 x tricks - 7 (rules.deal_bonus).
        best, bonus = deal_bonus(self._tricks)
        self._log(("bonus", best, bonus))
        if self._award(best, bonus):
            return
        if self._deal_only:
            s0, s1 = self._scores
            self._finish(0 if s0 > s1 else 1 if s1 > s0 else -1)
            return
        self._dealer = 1 - self._dealer
        self._deal_no += 1
        self._start_deal()

    def _decide_redeal(self, redeal: bool) -> None:
        seat = self._cur
        if redeal:
            # docs/rules/penneech.md, Dealing: the hand is shown, the same dealer deals a new pack.
            self._shown = (*self._shown, (seat, self._hands[seat]))
            self._log(("redeal", seat, self._hands[seat]))
            self._deal_no += 1
            self._start_deal()
            return
        self._log(("keep", seat))
        d = self._dealer
        if seat != d and redeal_eligible(self._hands[d], self._blockers):
            self._eligible[d] = True
            self._cur = d
            return
        self._begin_play()

    def explain_illegal(self, action: int) -> str:
        """One sentence, in a player's words, naming the rule that forbids ``action`` here."""
        from gamester.games.penneech.explain import explain_illegal

        return explain_illegal(self, action)

    def _why_illegal(self, action: object) -> str:
        where = self._where()
        if self._phase == OVER:
            return f"{self._str(action)} is not legal: the game is over ({where})"
        if self._phase == REDEAL_PHASE:
            return (
                f"{self._str(action)} is not legal: seat {self._cur} must first answer 'keep' or "
                f"'redeal' (docs/rules/penneech.md, Dealing; {where})"
            )
        if action in (KEEP, REDEAL):
            return (
                f"{self._str(action)} is not legal: a redeal may be asked only before the first "
                f"turn-up, by a seat holding no card that blocks it (docs/rules/penneech.md, Dealing; "
                f"{where})"
            )
        if type(action) is not int or not 0 <= action < 52:
            return f"{quote(action)} is not a Penneech action (0-53) ({where})"
        seat = self._cur
        legal = " ".join(_codes(self._legal_mask()))
        if not self._hands[seat] >> action & 1:
            return f"{card_code(action)} is not in seat {seat}'s hand; legal: {legal} ({where})"
        led = self._led
        rule = (
            "must follow suit"
            if self.game.follow_suit
            else f"holding {SUIT_NAMES[led // 13]} must play {SUIT_NAMES[led // 13]} or a trump "
            f"({SUIT_NAMES[self._trump]})"
        )
        return (
            f"{card_code(action)} is not legal: seat {seat} {rule} to the led {card_code(led)} "
            f"(docs/rules/penneech.md, Tricks, follow={self.game.options.follow}); legal: {legal} "
            f"({where})"
        )

    def _str(self, action: object) -> str:
        if type(action) is int and 0 <= action < NUM_ACTIONS:
            return self.action_to_string(action)
        return repr(action)

    def _where(self) -> str:
        if self._phase == OVER:
            return f"scores {self._scores[0]}-{self._scores[1]}"
        trick = self._tricks[0] + self._tricks[1] + 1
        t = "no trump yet" if self._trump < 0 else f"trump {SUITS[self._trump]}"
        return (
            f"deal {self._deal_no + 1}, dealer seat {self._dealer}, trick {trick}, {t}, "
            f"scores {self._scores[0]}-{self._scores[1]}, seat {self._cur} to act"
        )

    def returns(self) -> list[float]:
        if self._phase != OVER:
            return [0.0, 0.0]
        if self._deal_only:
            d = float(self._scores[0] - self._scores[1])
            return [d, -d]
        return [1.0, -1.0] if self._winner == 0 else [-1.0, 1.0]

    def scores(self) -> list[int]:
        return list(self._scores)

    def clone(self) -> PenneechState:
        s = PenneechState(self.game, self.seed, self.chance.copy(), _blank=True)
        s._follow = self._follow
        s._points = self._points
        s._outcomes = self._outcomes
        s._blockers = self._blockers
        s._target = self._target
        s._deal_only = self._deal_only
        s._scores = self._scores[:]
        s._dealer = self._dealer
        s._hands = self._hands[:]
        s._pack = self._pack
        s._pos = self._pos
        s._trump = self._trump
        s._phase = self._phase
        s._cur = self._cur
        s._leader = self._leader
        s._led = self._led
        s._tricks = self._tricks[:]
        s._dealt = self._dealt
        s._voids = self._voids[:]
        s._deal_no = self._deal_no
        s._eligible = self._eligible[:]
        s._history = self._history[:]
        s._winner = self._winner
        s._events = self._events[:]
        s._shown = self._shown
        s._last_trick = self._last_trick
        s._hl = [self._hl[0][:], self._hl[1][:]]
        return s

    # -- notation ----------------------------------------------------------------------------
    def action_to_string(self, action: object) -> str:
        if action == KEEP:
            return "keep"
        if action == REDEAL:
            return "redeal"
        if type(action) is int and 0 <= action < 52:
            return card_code(action)
        raise InvalidActionError(
            f"{quote(action)} is not a Penneech action: 0-51 are cards, 52 keep, 53 redeal"
        )

    def string_to_action(self, text: object) -> int:
        if isinstance(text, str):
            t = text.strip().lower()
            if t == "keep":
                return KEEP
            if t == "redeal":
                return REDEAL
            try:
                return parse_card(text)
            except InvalidActionError:
                pass
        raise InvalidActionError(
            f"{quote(text)} is not a Penneech action: write a card ('7D', '10S', 'Q♥'), 'keep' or 'redeal'"
        )

    def history_strings(self) -> list[str]:
        return [self.action_to_string(a) for a in self._history]

    def position(self) -> str:
        """docs/positions.md: this position in Penneech's notation (``position.py``)."""
        return position.write(self)

    # -- information -------------------------------------------------------------------------
    def observation(self, player: object) -> dict[str, Any]:
        """docs/rules/penneech.md, What each player knows: own hand, all cards played or turned up or shown,
        scores, trump, dealer and leader; never the other hand or the stock order."""
        return views.view(self, self.check_player(player))

    def public_observation(self) -> dict[str, Any]:
        """What a spectator knows: ``observation`` without any hand (``seat`` is None)."""
        return views.view(self, None)

    def observation_tensor(self, player: object) -> list[float]:
        """The observation as numbers (layout at ``views.OBS_SIZE``), for learning agents."""
        return views.observation_tensor(self, self.check_player(player))

    def determinize(self, player: object, rng: random.Random) -> PenneechState:
        """A full state drawn uniformly from those ``player`` cannot tell apart from this one
        (``worlds.determinize``)."""
        return worlds.determinize(self, self.check_player(player), rng)

    def last_events(self) -> list[dict[str, Any]]:
        return views.last_events(self)

    def summary_extra(self) -> dict[str, Any]:
        return views.summary_extra(self)

    def __repr__(self) -> str:
        # Neither the hands nor the seed (which rebuilds them): a repr ends up in logs and tracebacks.
        return f"<PenneechState {self.game.spec()} {self._where()}>"
