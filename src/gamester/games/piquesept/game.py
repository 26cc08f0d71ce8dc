"""Piquesept: the rules engine.

Every rule cites the section of ``docs/rules/piquesept.md`` (section names in the comments). The 32
piquet cards have dense actions ``0 … 31``: ``suit * 8 + r`` with suits ``C D H S`` and ``r`` 0–7 for the
ranks ``7 8 9 T J Q K A``; records and chance use the core's 52-card ids (``A2ID``/``ID2A`` map between
them). Hands are 32-bit masks of actions. Dealing, the random draw of the trade and trick resolution
happen inside ``apply_action``; chance is drawn through ``self.chance`` (per deal: the pack, then the
drawn card). For speed the state keeps the player to act's legal cards as a mask (``_lm``), updated
whenever the turn passes; ``_legal_mask`` derives the same from the rules, and the tests compare them.

The package's other parts: the deal's words and phases (``deal.py``), the rule primitives
(``rules.py``), what a seat sees (``views.py``), the worlds search draws and the snapshot it reads
(``worlds.py``), the heuristic, the exact solver and the kit.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from gamester.core.cards import CODES, SUIT_NAMES, parse_card
from gamester.core.errors import IllegalActionError, InvalidActionError, quote
from gamester.core.options import OpenValue, RuleSet
from gamester.core.protocol import TERMINAL, Game, State
from gamester.core.rng import Chance
from gamester.games.piquesept import position, views
from gamester.games.piquesept.deal import _HI as _HI
from gamester.games.piquesept.deal import _LO as _LO
from gamester.games.piquesept.deal import A2ID as A2ID
from gamester.games.piquesept.deal import ACTION_OF_CODE as ACTION_OF_CODE
from gamester.games.piquesept.deal import CODE as CODE
from gamester.games.piquesept.deal import FIRST as FIRST
from gamester.games.piquesept.deal import GIVE as GIVE
from gamester.games.piquesept.deal import ID2A as ID2A
from gamester.games.piquesept.deal import IDBIT as IDBIT
from gamester.games.piquesept.deal import LAST_TRICK
from gamester.games.piquesept.deal import OVER as OVER
from gamester.games.piquesept.deal import PHASE_OF_NAME as PHASE_OF_NAME
from gamester.games.piquesept.deal import PLAY as PLAY
from gamester.games.piquesept.deal import Phase as Phase
from gamester.games.piquesept.deal import codes as codes
from gamester.games.piquesept.deal import mask_to_actions as mask_to_actions
from gamester.games.piquesept.options import OPEN_SPACE, RULESETS, PiqueseptOptions
from gamester.games.piquesept.rules import (
    FIRST_ORDER,
    NUM_ACTIONS,
    SPADE,
    SPADES,
    SUIT_MASK,
    TOP_RANK,
    TOTAL_POINTS,
    VAL,
    WIN_POINTS,
    deal_returns,
    drawer_of,
    forced_first_masks,
    playable,
    seat_return,
    soloist_of,
    trick_points,
    winning_index,
)
from gamester.games.piquesept.worlds import PiqueseptWorld

# The suits of a hand as it is shown (spades, hearts, clubs, diamonds: the colours alternate).
_HAND_SUITS: Final = (SPADE, 2, 0, 1)


def _pack_ids(players: int, removed: tuple[str, ...]) -> tuple[int, ...]:
    """docs/rules/piquesept.md, Seats and dealing: the 32-card pack, less two Eights with three players."""
    out = [A2ID[a] for a in range(NUM_ACTIONS)]
    if players == 3:
        gone = {parse_card(c) for c in removed}
        out = [c for c in out if c not in gone]
    return tuple(sorted(out))


class PiqueseptGame(Game[PiqueseptOptions]):
    name = "piquesept"
    title = "Piquesept"
    blurb = (
        "Four (or three) players, 32 cards. The holder of the 7♠ plays alone against the rest for "
        f"{WIN_POINTS} card points."
    )
    rules_version = 1
    options_class = PiqueseptOptions
    rulesets: ClassVar[Mapping[str, RuleSet]] = RULESETS
    open_space: ClassVar[Mapping[str, tuple[OpenValue, ...]]] = OPEN_SPACE
    clone_shares: ClassVar[Mapping[str, str]] = {
        "PiqueseptState._events": "a finished action's event list, replaced (never appended) by the next",
        "PiqueseptState._forced": "set once per deal, read only",
        "PiqueseptState._done[]": "the outer list is copied; each entry is a finished trick, never changed",
        "PiqueseptState._past[]": "the outer list is copied; each entry is a finished deal, never changed",
    }

    def __init__(self, options: PiqueseptOptions) -> None:
        super().__init__(options)
        n = options.players
        self.pack_ids = _pack_ids(n, options.removed_eights)
        self.pack_mask = sum(IDBIT[c] for c in self.pack_ids)
        self.hand_size = len(self.pack_ids) // n
        self.first_order = FIRST_ORDER[options.first_trick_highest]
        self.top_rank = TOP_RANK[options.first_trick_highest]
        # For each dealer, (pack offset j, seat) pairs: seat gets pack[j::n].
        self.deal_to = tuple(tuple((j, (d + 1 + j) % n) for j in range(n)) for d in range(n))
        self.next_seat = tuple((s + 1) % n for s in range(n))
        # What every new state copies (PiqueseptState.__init__).
        self.consts = (
            n,
            self.next_seat,
            self.hand_size,
            options.deals,
            options.trade_visible,
            options.first_dealer,
        )
        self._obs_size = views.obs_layout(n)[-1]

    @property
    def num_players(self) -> int:
        return self.options.players

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def observation_tensor_size(self) -> int:
        return self._obs_size

    def _new_state(self, seed: int, chance: Chance) -> PiqueseptState:
        return PiqueseptState(self, seed, chance)

    def blank_state(self, seed: int, chance: Chance) -> PiqueseptState:
        """A state with no field set but the protocol's, for this package's readers to fill."""
        return PiqueseptState(self, seed, chance, _blank=True)

    def read_position(self, text: str, chance: Sequence[Any] | None = None) -> PiqueseptState:
        """docs/positions.md: the deal as dealt, the match before it and its plays (``position.py``)."""
        return position.read(self, text, None if chance is None else list(chance))

    def bounds(self) -> tuple[float, float, int]:
        """docs/rules/piquesept.md: the soloist wins or loses 3 (2 with three players) a deal; every
        card is played, and the drawer gives one card."""
        o = self.options
        stake = float(seat_return(WIN_POINTS, True, o.players))
        pack = len(self.pack_ids)
        return -stake * o.deals, stake * o.deals, (pack + 1) * o.deals

    def seats_alike(self) -> bool:
        # The soloist is whoever is dealt the 7S, and every later role (who leads, who draws in the
        # trade) follows from the soloist's seat: the dealer's seat changes nothing a seat can win.
        return True

    @classmethod
    def drawing(cls) -> dict[str, Any]:
        """docs/rules/piquesept.md, Scoring and The cards: the card points that win a deal and all
        there are, the suit that is always trumps, and every card in the order a hand is shown (suits
        alternating colours, each from its highest card down, the 7S above the Ace), so that no
        drawing restates them."""
        return {
            "win_points": WIN_POINTS,
            "total_points": TOTAL_POINTS,
            "trump": CODE[8 * SPADE][1],  # the suit letter of the engine's trump suit
            "card_order": [
                CODE[a]
                for s in _HAND_SUITS
                for a in sorted(range(8 * s, 8 * s + 8), key=lambda a: -VAL[s][a])
            ],
        }

    def parse_chance(self, entry: Any) -> int:
        return parse_card(entry)

    def format_chance(self, entry: Any) -> Any:
        if isinstance(entry, int):
            return CODES[entry]
        return [CODES[c] for c in entry]


class PiqueseptState(State[PiqueseptGame]):
    __slots__ = (
        "_n",
        "_next",
        "_tricks_per_deal",
        "_deals",
        "_visible",
        "_dealer",
        "_deal_no",
        "_hands",
        "_dealt",
        "_forced",
        "_soloist",
        "_drawer",
        "_phase",
        "_cur",
        "_lm",
        "_leader",
        "_trick",
        "_led",
        "_best",
        "_bseat",
        "_ntricks",
        "_base",
        "_ret",
        "_x",
        "_y",
        "_done",
        "_past",
        "_events",
    )

    def __init__(self, game: PiqueseptGame, seed: int, chance: Chance, *, _blank: bool = False) -> None:
        self.game = game
        self.seed = seed
        self.chance = chance
        if _blank:
            return
        self._open()
        self._start_deal()

    def _open(self) -> None:
        """The fields of a match before its first deal (a position's reader then sets what it says)."""
        n, self._next, self._tricks_per_deal, self._deals, self._visible, self._dealer = self.game.consts
        self._n = n
        self._deal_no = 0
        self._base = [0] * n
        self._ret = [0] * n
        # Finished deals: (dealer, soloist, dealt, x, y, tricks, soloist points, return deltas); a
        # deal before the position a state was read from keeps only its results (no hands, no tricks).
        self._past: list[tuple[Any, ...]] = []
        # Events of the last action. Every action that causes events leaves the trick empty (it ends
        # a trick or the trade) and every other action leaves a card in it: see last_events.
        self._events: list[tuple[Any, ...]] = []

    # -- the deal ----------------------------------------------------------------------------
    def _start_deal(self) -> None:
        """docs/rules/piquesept.md, Seats and dealing: pack[i] goes to seat (dealer + 1 + i) mod n."""
        g = self.game
        pack = self.chance.pack(g.pack_ids, g.parse_chance)
        n = self._n
        d = self._dealer
        hands = [0] * n
        # Distinct bits, so a sum is a union; unrolled (8 cards each with 4 players, 10 with 3),
        # which is faster than sum(map(IDBIT.__getitem__, ...)).
        b = IDBIT
        if n == 4:
            for j, seat in g.deal_to[d]:
                c0, c1, c2, c3, c4, c5, c6, c7 = pack[j::4]
                hands[seat] = b[c0] + b[c1] + b[c2] + b[c3] + b[c4] + b[c5] + b[c6] + b[c7]
        else:
            for j, seat in g.deal_to[d]:
                c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 = pack[j::3]
                hands[seat] = b[c0] + b[c1] + b[c2] + b[c3] + b[c4] + b[c5] + b[c6] + b[c7] + b[c8] + b[c9]
        self._hands = hands
        self._dealt = tuple(hands)
        soloist = soloist_of(hands)
        self._soloist = soloist
        self._drawer = drawer_of(soloist, n)
        # docs/rules/piquesept.md, The soloist and the opening trick: what each seat may play to it.
        forced = forced_first_masks(hands, g.top_rank)
        self._forced = forced
        self._lm = forced[soloist]
        self._phase = FIRST
        self._cur = soloist
        self._leader = soloist
        self._trick: list[int] = []
        self._led = -1
        self._best = -1
        self._bseat = soloist
        self._ntricks = 0
        self._x = -1
        self._y = -1
        self._done: list[tuple[int, list[int], int, int]] = []
        self._events.append(("deal", d, self._deal_no, soloist))

    # -- protocol ----------------------------------------------------------------------------
    def current_player(self) -> int:
        return self._cur

    def is_terminal(self) -> bool:
        return self._phase == OVER

    def _legal_mask(self) -> int:
        """The current player's legal cards, from the rules (``_lm`` caches this; see apply_action)."""
        ph = self._phase
        if ph == OVER:
            return 0
        seat = self._cur
        if ph == FIRST:
            return self._forced[seat]
        hand = self._hands[seat]
        if ph == PLAY:
            return playable(hand, self._led if self._trick else -1, seat == self._soloist)
        return hand

    def legal_actions(self) -> list[int]:
        m = self._lm
        return _LO[m & 0xFFFF] + _HI[m >> 16]

    def apply_action(self, action: object) -> None:
        # ``_lm`` is the current player's legal mask, set whenever the turn passes, so one bit test
        # checks every rule (an int above 31 is never in it; a negative one is caught before the
        # shift). The PLAY branch is the hot path of every playout. ``action`` is typed ``object``
        # so that a compiled build, too, answers anything else with this GameError.
        if type(action) is not int:
            raise IllegalActionError(self._why_illegal(action))
        a: int = action  # a native int from here on in a compiled build (unboxed once)
        if a < 0 or not self._lm >> a & 1:
            raise IllegalActionError(self._why_illegal(a))
        if self._phase == PLAY:
            seat = self._cur
            hands = self._hands
            hands[seat] = hands[seat] ^ 1 << a
            trick = self._trick
            trick.append(a)
            size = len(trick)
            if size > 1:
                ls = self._led
                v = VAL[ls][a]
                if v > self._best:
                    self._best = v
                    self._bseat = seat
                if size == self._n:
                    self._end_trick()
                    return
            else:
                ls = a >> 3
                self._led = ls
                self._best = VAL[ls][a]
                self._bseat = seat
            nxt = self._next[seat]
            self._cur = nxt
            self._lm = playable(hands[nxt], ls, nxt == self._soloist)
            return
        if self._phase == FIRST:
            # docs/rules/piquesept.md, The soloist and the opening trick: 7S, then each defender's highest.
            seat = self._cur
            hands = self._hands
            hands[seat] = hands[seat] ^ 1 << a
            trick = self._trick
            trick.append(a)
            if len(trick) < self._n:
                self._led = SPADE
                nxt = self._next[seat]
                self._cur = nxt
                self._lm = self._forced[nxt]
                return
            # rules.SEVEN_S_UNBEATEN: the soloist's 7S, which he led, takes the trick.
            self._bseat = self._leader
            self._end_trick()
        else:
            self._give(a)

    def _end_trick(self) -> None:
        """docs/rules/piquesept.md, The remaining tricks: a complete trick goes to its winner (kept in
        ``_bseat`` as the cards fell), who leads the next; the first trick is followed by the draw,
        the last ends the deal."""
        trick = self._trick
        winner = self._bseat
        # The trick list is never changed again (the next trick gets a new one), so it is shared.
        done = (self._leader, trick, winner, trick_points(trick))
        self._done.append(done)
        self._trick = []
        self._led = -1
        n = self._ntricks + 1
        self._ntricks = n
        if n == 1:
            self._events = [("trick", done)]
            self._draw()
            return
        if n == self._tricks_per_deal:
            self._events = [("trick", done)]
            self._end_deal()
            return
        self._events = LAST_TRICK  # a trick mid-deal: its events are made when asked for (views.py)
        self._leader = self._cur = winner
        self._lm = self._hands[winner]

    def _draw(self) -> None:
        """docs/rules/piquesept.md, The draw and the trade: the defender on the soloist's left draws a card
        uniformly at random from the soloist's hand (a chance event) and must then give one back."""
        s = self._soloist
        r = self._drawer
        hands = self._hands
        hand = hands[s]
        # A2ID keeps the order of actions, so the candidates come out sorted.
        candidates = [A2ID[a] for a in _LO[hand & 0xFFFF] + _HI[hand >> 16]]
        x = ID2A[self.chance.draw(candidates, self.game.parse_chance)]
        hands[s] = hand ^ 1 << x
        hands[r] = hands[r] | 1 << x
        self._x = x
        self._phase = GIVE
        self._cur = r
        self._lm = self._hands[r]
        self._events.append(("draw", r, s, x))

    def _give(self, action: int) -> None:
        """docs/rules/piquesept.md, The draw and the trade: any card of the drawer's (checked by
        apply_action)."""
        r = self._cur
        s = self._soloist
        hands = self._hands
        hands[r] = hands[r] ^ 1 << action
        hands[s] = hands[s] | 1 << action
        self._y = action
        self._events = [("give", r, s, action)]
        # docs/rules/piquesept.md, The remaining tricks: the soloist leads trick 2.
        self._phase = PLAY
        self._leader = self._cur = s
        self._lm = self._hands[s]

    def _end_deal(self) -> None:
        """docs/rules/piquesept.md, Scoring: 66 wins, 65-65 is a draw, zero-sum returns."""
        n = self._n
        s = self._soloist
        taken = self._taken
        sp = taken[s]
        delta = deal_returns(s, sp, n)
        ret = self._ret
        base = self._base
        self._ret = [ret[q] + delta[q] for q in range(n)]
        self._base = [base[q] + taken[q] for q in range(n)]
        self._past.append((self._dealer, s, self._dealt, self._x, self._y, tuple(self._done), sp, delta))
        self._events.append(("deal_over", s, sp, delta))
        self._deal_no += 1
        if self._deal_no < self._deals:
            # docs/rules/piquesept.md, Scoring: in a match the deal passes clockwise.
            self._dealer = self._next[self._dealer]
            self._start_deal()
            return
        self._phase = OVER
        self._cur = TERMINAL
        self._lm = 0
        self._events.append(("game_over",))

    # -- errors ------------------------------------------------------------------------------
    def explain_illegal(self, action: int) -> str:
        """One sentence, in a player's words, naming the rule that forbids ``action`` here."""
        from gamester.games.piquesept.explain import explain_illegal

        return explain_illegal(self, action)

    def _why_illegal(self, action: object) -> str:
        where = self._where()
        if self._phase == OVER:
            return f"{_str(action)} is not legal: the game is over ({where})"
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < NUM_ACTIONS:
            return (
                f"{quote(action)} is not a Piquesept action (0-31, one per card of the piquet pack) ({where})"
            )
        seat = self._cur
        code = CODE[action]
        legal = " ".join(codes(self._legal_mask()))
        if not self._hands[seat] >> action & 1:
            return f"{code} is not in seat {seat}'s hand; legal: {legal} ({where})"
        if self._phase == GIVE:
            return f"{code} cannot be given ({where})"
        if self._phase == FIRST:
            if seat == self._soloist:
                return (
                    f"{code} is not legal: the soloist (seat {seat}) must lead the 7S to the first "
                    f"trick (docs/rules/piquesept.md, The soloist and the opening trick; {where})"
                )
            if self._hands[seat] & SPADES:
                rule = "must play his highest spade"
            else:
                rule = (
                    f"holding no spade must play his highest card by "
                    f"{self.game.options.first_trick_highest} (first_trick_highest="
                    f"{self.game.options.first_trick_highest})"
                )
            return (
                f"{code} is not legal: in the first trick defender seat {seat} {rule} "
                f"(docs/rules/piquesept.md, The soloist and the opening trick); legal: {legal} ({where})"
            )
        led = SUIT_NAMES[self._led]
        if self._hands[seat] & SUIT_MASK[self._led]:
            rule = f"holding {led} must follow suit"
        else:
            rule = f"void in {led} must play a spade"
        return (
            f"{code} is not legal: defender seat {seat} {rule} "
            f"(docs/rules/piquesept.md, The remaining tricks); legal: {legal} ({where})"
        )

    def _where(self) -> str:
        s = self._soloist
        taken = self._taken
        pts = taken[s]
        side = f"card points soloist {pts}, defenders {sum(taken) - pts}"
        if self._phase == OVER:
            return f"after {self._deals} deal(s), returns {self._ret}"
        step = "the trade" if self._phase == GIVE else f"trick {self._ntricks + 1}"
        return (
            f"deal {self._deal_no + 1} of {self._deals}, dealer seat {self._dealer}, soloist seat {s}, "
            f"{step}, {side}, seat {self._cur} to act"
        )

    # -- results -----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        if self._phase != OVER:
            return [0.0] * self._n
        return [float(r) for r in self._ret]

    def scores(self) -> list[int]:
        return self._scores(self._taken)

    def _scores(self, taken: list[int]) -> list[int]:
        """Card points so far: finished deals' (``_base``) plus ``taken``, this deal's (``_taken``)."""
        base = self._base
        return [base[q] + taken[q] for q in range(self._n)]

    @property
    def _taken(self) -> list[int]:
        """Card points each seat won in this deal's tricks (none once the game is over)."""
        out = [0] * self._n
        if self._phase != OVER:
            for t in self._done:
                w = t[2]
                out[w] = out[w] + t[3]
        return out

    def clone(self) -> PiqueseptState:
        s = PiqueseptState(self.game, self.seed, self.chance.copy(), _blank=True)
        s._n = self._n
        s._next = self._next
        s._tricks_per_deal = self._tricks_per_deal
        s._deals = self._deals
        s._visible = self._visible
        s._dealer = self._dealer
        s._deal_no = self._deal_no
        s._hands = self._hands[:]
        s._dealt = self._dealt
        s._forced = self._forced
        s._lm = self._lm
        s._soloist = self._soloist
        s._drawer = self._drawer
        s._phase = self._phase
        s._cur = self._cur
        s._leader = self._leader
        s._trick = self._trick[:]
        s._led = self._led
        s._best = self._best
        s._bseat = self._bseat
        s._ntricks = self._ntricks
        s._base = self._base[:]
        s._ret = self._ret[:]
        s._x = self._x
        s._y = self._y
        s._done = self._done[:]
        s._past = self._past[:]
        # Event lists are complete once the action that made them returns, so they can be shared.
        s._events = self._events
        return s

    # -- notation ----------------------------------------------------------------------------
    def action_to_string(self, action: object) -> str:
        if type(action) is int and 0 <= action < NUM_ACTIONS:
            return CODE[action]
        raise InvalidActionError(f"{quote(action)} is not a Piquesept action: 0-31 are the piquet cards")

    def string_to_action(self, text: object) -> int:
        try:
            a = ID2A[parse_card(text)] if isinstance(text, str) else -1
        except InvalidActionError:
            a = -1
        if a < 0:
            raise InvalidActionError(
                f"{quote(text)} is not a Piquesept action: write a card of the piquet pack (ranks 7 8 9 T J "
                f"Q K A, suits C D H S), e.g. '7S' or 'TH'"
            )
        return a

    def history_strings(self) -> list[str]:
        return [CODE[a] for a in self._actions()]

    def position(self) -> str:
        """docs/positions.md: this position in Piquesept's notation (``position.py``)."""
        return position.write(self)

    def _actions(self) -> list[int]:
        """Every action so far, rebuilt from the tricks and the gives (not logged on the hot path): per
        deal the first trick, the give, then the other tricks."""
        deals = [(p[5], p[4]) for p in self._past]
        if self._phase != OVER:
            deals.append((self._done, self._y))
        out: list[int] = []
        for tricks, y in deals:
            for i, t in enumerate(tricks):
                out += t[1]
                if i == 0 and y >= 0:
                    out.append(y)
        if self._phase != OVER:
            out += self._trick
        return out

    # -- the sides -------------------------------------------------------------------------------
    def roles(self) -> list[str]:
        """docs/rules/piquesept.md, The soloist and the opening trick: the holder of the 7S plays
        alone (the soloist of the current deal; of the last one once the game is over), the others
        defend together."""
        s = self._soloist
        return ["soloist" if q == s else "defender" for q in range(self._n)]

    def teams(self) -> list[list[int]]:
        """docs/rules/piquesept.md, Scoring: the defenders win or lose together against the soloist."""
        s = self._soloist
        defenders = [q for q in range(self._n) if q != s]
        return sorted([[s], defenders])

    # -- information -------------------------------------------------------------------------
    def trade_stage(self) -> int:
        """0 before the draw, 1 drawn (the give pending), 2 given."""
        return 0 if self._x < 0 else (1 if self._y < 0 else 2)

    def action_seen_by(self, action: object, viewer: object) -> str:
        """docs/rules/piquesept.md, The draw and the trade: the given card is seen by the drawer and the
        soloist only (unless trade_visible)."""
        text = self.action_to_string(action)
        if self._phase == GIVE and not self.knows_trade(viewer):
            return "a hidden card"
        return text

    def knows_trade(self, player: object) -> bool:
        """docs/rules/piquesept.md, The draw and the trade: the drawer and the soloist see the trade cards;
        the others (and spectators, ``None``) only with trade_visible."""
        return self._visible or (player is not None and (player == self._soloist or player == self._drawer))

    def world_view(self) -> PiqueseptWorld:
        """This state as a :class:`PiqueseptWorld` (every hand in the open: for search in a world the
        agent sampled itself, ``determinize``, never for showing the real game to a seat)."""
        past = self._past
        trick = self._trick
        # Between tricks the play branch leaves the last trick's led suit and best card behind.
        best, winner = (self._best, self._bseat) if trick else (-1, self._leader)
        if trick and self._phase == FIRST:
            # The first trick's cards are forced, so the engine does not follow its winner as it goes.
            i = winning_index(trick)
            best, winner = VAL[trick[0] >> 3][trick[i]], (self._leader + i) % self._n
        return PiqueseptWorld(
            self._n,
            self._phase,
            self._deal_no,
            self._cur,
            tuple(self._hands),
            self._soloist,
            self._drawer,
            self._leader,
            tuple(trick),
            self._led if trick else -1,
            best,
            winner,
            self._ntricks,
            self._x,
            self._y,
            tuple(self._taken),
            past[-1][6] if past else -1,
        )

    def observation(self, player: object) -> dict[str, Any]:
        """docs/rules/piquesept.md, What each player knows: own hand, every card played (by whom), the
        soloist, the trade cards as far as this seat saw them; never another hand.

        The soloist is public from the start of a deal: he is the seat to act first, and his only
        legal card is the 7S.
        """
        return views.view(self, self.check_player(player))

    def public_observation(self) -> dict[str, Any]:
        """What a spectator knows: no hand, the trade cards only with trade_visible (``seat`` None)."""
        return views.view(self, None)

    def observation_tensor(self, player: object) -> list[float]:
        """The observation as numbers (layout at ``views.obs_layout``), seats relative to ``player``."""
        return views.observation_tensor(self, self.check_player(player))

    def determinize(self, player: object, rng: random.Random) -> PiqueseptState:
        """A full state, drawn at random, that ``player`` cannot tell apart from this one.

        Hidden hands are re-dealt respecting every inference the play allows (voids shown in later
        tricks, the forced first trick, the trade as far as ``player`` saw it); see ``worlds.py``.
        """
        p = self.check_player(player)
        from gamester.games.piquesept.worlds import determinize

        return determinize(self, p, rng)

    def last_events(self) -> list[dict[str, Any]]:
        return views.last_events(self)

    def last_events_seen_by(self, viewer: int | None) -> list[dict[str, Any]]:
        """As the protocol's, except that a spectator gets the blank version of a hidden trade (the
        one meant for the seats who did not see it), like every seat outside the trade."""
        return views.last_events_seen_by(self, viewer)

    def summary_extra(self) -> dict[str, Any]:
        return views.summary_extra(self)

    def __repr__(self) -> str:
        # Neither the hands nor the seed (which rebuilds them): a repr ends up in logs and tracebacks.
        return f"<PiqueseptState {self.game.spec()} {self._where()}>"


def _str(action: object) -> str:
    if isinstance(action, int) and not isinstance(action, bool) and 0 <= action < NUM_ACTIONS:
        return CODE[action]
    return quote(action)
