"""The Pentyrch state: the position's fields and the turn, tying together the board (``board.py``), the
cards (``cards.py``), moves and payments (``moves.py``, ``notation.py``, ``reasons.py``), the end of a
game (``scoring.py``), what each seat sees (``views.py``) and the worlds search draws (``worlds.py``).

Chance: each game draws the layout pack (the 24 Ace-6 cards, top first) and then the hand pack (the
sixteen 7-10 cards); a match of several games draws its two packs at the start of each game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from gamester.core.cards import parse_card
from gamester.core.errors import IllegalActionError
from gamester.core.protocol import TERMINAL, State
from gamester.core.rng import Chance
from gamester.games.pentyrch import notation, position, reasons, scoring, views, worlds
from gamester.games.pentyrch.board import CELL_NAMES, NUM_CELLS, OFF, layout_cell, parse_cell, seat_owners
from gamester.games.pentyrch.cards import (
    BIT,
    CARD_OF_CANON,
    COURT_OF_CARD,
    HAND_CARDS,
    LAYOUT_CARDS,
    VALUE,
    canon_cards,
    canon_mask,
    codes,
    court_code,
)
from gamester.games.pentyrch.moves import (
    COUNTS_STRIDE,
    PASS,
    SAFE,
    Combos,
    Move,
    decode,
    exchange_floor,
    generate,
)
from gamester.games.pentyrch.views import Event
from gamester.games.pentyrch.worlds import PassCons, PentyrchWorld

if TYPE_CHECKING:
    from gamester.games.pentyrch.game import PentyrchGame

# Final: the compiled build reads them as C statics, not from the module's dict at every event.
_NEW_GAME: Final = Event.NEW_GAME
_STEP: Final = Event.STEP
_EXCHANGE: Final = Event.EXCHANGE
_SHOW: Final = Event.SHOW
_BEAR_OFF: Final = Event.BEAR_OFF
_PASS: Final = Event.PASS
_FINISHED: Final = Event.FINISHED
_GAME_OVER: Final = Event.GAME_OVER
# The events of the commonest actions, shared and never appended to (an action whose events go on,
# a bear-off or the end of a game, makes a list of its own): a step, exchange or show is the one
# entry _MOVED, expanded from the history by events() when someone asks; a plain pass is one of
# four constant lists.
_MOVED_EVENT: Final[tuple[Any, ...]] = (Event.MOVED,)
_MOVED: Final[list[tuple[Any, ...]]] = [_MOVED_EVENT]
_PASSED: Final[tuple[list[tuple[Any, ...]], ...]] = tuple([(_PASS, s, None, False)] for s in range(4))
_PASSED_SAFE: Final[tuple[list[tuple[Any, ...]], ...]] = tuple([(_PASS, s, None, True)] for s in range(4))


class PentyrchState(State["PentyrchGame"]):  # a string: game.py imports this module
    __slots__ = (
        "_n",
        "_always",
        "_overpay",
        "_show",
        "_reveal",
        "_cover_any",
        "_max_rounds",
        "_games",
        "_partners",
        "_g",
        "_owner",
        "_dealer",
        "_unit",
        "_unit_seats",
        "_piles",
        "_stacks",
        "_cpos",
        "_hands",
        "_hidden",
        "_dealt",
        "_setaside",
        "_seat",
        "_round",
        "_moved",
        "_finished",
        "_over",
        "_hist",
        "_events",
        "_taken",
        "_legal",
        "_combos",
        "_counts",
        "_total_scores",
        "_total_returns",
        "_caps",
        "_passcons",
        "_results",
        "_past_games",
    )

    def __init__(self, game: PentyrchGame, seed: int, chance: Chance, *, _blank: bool = False) -> None:
        self.game = game
        self.seed = seed
        self.chance = chance
        if _blank:
            return
        self._open()
        self._start_game()

    def _open(self) -> None:
        """The fields of a match before its first game (a position's reader then sets what it says)."""
        o = self.game.options
        self._n = o.players
        self._always = o.combine == "always"
        self._overpay = o.overpay
        self._show = o.show
        self._reveal = o.reveal_on_pass
        self._cover_any = o.cover_any_direction
        self._max_rounds = o.max_rounds
        self._games = o.games
        self._partners = o.partners
        self._hist: list[Move] = []
        self._events: list[tuple[Any, ...]] = []
        self._taken: list[int] = []  # the pile the last exchange took (its event, see events())
        self._total_scores = [0] * self._n
        self._total_returns = [0.0] * self._n
        self._results: list[dict[str, Any]] = []
        # What each finished game of a match left hidden (determinize redraws it): see _end_game.
        self._past_games: tuple[tuple[Any, ...], ...] = ()
        self._over = False
        self._g = 0

    # -- setting up ----------------------------------------------------------------------------
    def _setup_game(self) -> None:
        """Who sits where in game ``_g`` of the match, who deals and what finishes together."""
        n = self._n
        self._owner = seat_owners(n, self._g)
        # docs/rules/pentyrch.md, Seats, court cards and hands: South deals (East with three players); a round
        # runs from West to the dealer.
        self._dealer = 2 if n == 3 else 3
        # docs/rules/pentyrch.md, The end: what finishes is a seat, a two-player player's two seats, or a
        # team.
        self._unit_seats: list[tuple[int, ...]]
        if n == 2 or self._partners:
            self._unit = [0, 1, 0, 1]
            self._unit_seats = [(0, 2), (1, 3)]
        elif n == 3:
            self._unit = [0, 1, 2, -1]
            self._unit_seats = [(0,), (1,), (2,)]
        else:
            self._unit = [0, 1, 2, 3]
            self._unit_seats = [(0,), (1,), (2,), (3,)]

    def _start_game(self) -> None:
        n = self._n
        g = self._g
        self._setup_game()
        parse = self.game.parse_chance
        # Chance in the order used (docs/records.md): the layout pack (24), then the hand pack (16).
        layout = self.chance.pack(LAYOUT_CARDS, parse)
        deal = self.chance.pack(HAND_CARDS, parse)
        # docs/rules/pentyrch.md, The board: top first, row by row from d7, skipping d4.
        piles: list[list[int]] = [[] for _ in range(NUM_CELLS)]
        for i, c in enumerate(layout):
            piles[layout_cell(i)].append(c)
        self._piles = piles
        self._stacks: list[list[int]] = [[] for _ in range(NUM_CELLS)]
        self._cpos = [-1] * 12
        if n == 3:  # South's court cards never play
            for k in (9, 10, 11):
                self._cpos[k] = -2
        # docs/rules/pentyrch.md, Seats, court cards and hands: one at a time from the dealer's left; with
        # three the last card is set aside face down.
        hands = [0] * n
        self._setaside = -1
        owner = self._owner
        for i, c in enumerate(deal):
            if n == 3 and i == 15:
                self._setaside = c
            else:
                p = owner[i % n]
                hands[p] = hands[p] | BIT[c]
        self._hands = hands
        self._hidden = hands[:]
        self._dealt = hands[:]
        self._seat = 0
        self._round = 0
        self._moved = False
        self._finished: list[int] = []
        self._caps = [11] * n
        self._passcons: PassCons = []
        self._legal: list[int] | None = None
        self._combos: Combos | None = None
        # Combination counts of each player's hand by pile value (moves.generate keeps them; a
        # hand changes only at its own exchanges, so most turns find them already counted).
        self._counts = [0] * (COUNTS_STRIDE * n)
        self._events.append((_NEW_GAME, g))

    # -- protocol ------------------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self._over else self._owner[self._seat]

    def current_seat(self) -> int:
        """The seat to move (0 West … 3 South), or -1 once the game is over."""
        return -1 if self._over else self._seat

    def is_terminal(self) -> bool:
        return self._over

    def legal_actions(self) -> list[int]:
        if self._over:
            return []
        if self._legal is None:
            generate(self)
        return self._legal[:]  # type: ignore[index]  # a slice: one copy, in both builds the cheapest

    def decode_action(self, action: int) -> Move:
        """The move tuple ``(k, frm, to, mode, top, rest)`` of a legal action (``moves.py`` explains
        it); for search over worlds, called once per legal action, so the action is not checked."""
        if self._legal is None:
            generate(self)
        return decode(self, action)

    def cells(self) -> tuple[Sequence[Sequence[int]], Sequence[Sequence[int]]]:
        """(stacks, piles) of every cell, top last: the state's own lists, read-only (what
        :class:`~.worlds.PentyrchWorld` also shows, without building one: playouts ask at every move)."""
        return self._stacks, self._piles

    def world_view(self) -> PentyrchWorld:
        """The board and the hand to move, read-only, for search (:class:`~.worlds.PentyrchWorld`)."""
        return PentyrchWorld(self)

    def apply_action(self, action: object) -> None:
        # ``object``, checked here: typed ``int``, the compiled build would refuse a str or a float
        # with its own TypeError before the first line (docs/compiled.md, "Known differences").
        if self._over:
            raise IllegalActionError(reasons.why_illegal(self, action))
        legal = self._legal
        if legal is None:
            generate(self)
            legal = self._legal
        if type(action) is not int:
            raise IllegalActionError(reasons.why_illegal(self, action))
        assert legal is not None
        # bisect_left(legal, action) as a loop: compiled, a library call is a generic Python call,
        # the cost of the whole search here on every move played.
        lo = 0
        hi = len(legal)
        while lo < hi:
            mid = (lo + hi) >> 1
            if legal[mid] < action:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(legal) or legal[lo] != action:
            raise IllegalActionError(reasons.why_illegal(self, action))
        m = decode(self, action)
        self._legal = None
        self._combos = None
        self._hist.append(m)
        seat = self._seat
        if m[0] < 0:
            self._pass(seat)
        else:
            self._move(seat, m)
        self._advance()

    def _move(self, seat: int, m: Move) -> None:
        k, frm, to, mode, top, rest = m
        stacks = self._stacks
        self._moved = True
        if frm >= 0:
            stacks[frm].pop()
        if to == OFF:
            # docs/rules/pentyrch.md, Moving (1): the court card goes to safety.
            self._cpos[k] = SAFE
            self._events = [(_BEAR_OFF, seat, k, frm)]
            # docs/rules/pentyrch.md, The end: all the unit's court cards in safety: finished, no more turns.
            u = self._unit[seat]
            if u not in self._finished and scoring.unit_done(self, u):
                self._finished.append(u)
                self._events.append((_FINISHED, u))
            return
        if mode == 1:
            # docs/rules/pentyrch.md, Moving, Exchange: the whole pile goes to the hand; the payment comes
            # from the hand as it was before, the chosen card on top.
            p = self._owner[seat]
            pile = self._piles[to]
            taken = 0
            for c in pile:
                taken |= BIT[c]
            laid = rest | BIT[top]
            self._hands[p] = (self._hands[p] & ~laid) | taken
            hidden = self._hidden  # not hidden[p] &= …: compiled, that is a generic operation
            hidden[p] = hidden[p] & ~laid
            if rest & (rest - 1):
                # the other cards reversed from canonical order, the lowest at the bottom: the bits
                # of their canonical mask highest first (no sort, no cache)
                new = []
                cm = canon_mask(rest)
                while cm:
                    b = cm.bit_length() - 1
                    new.append(CARD_OF_CANON[b])
                    cm ^= 1 << b
                new.append(top)
            elif rest:
                new = [rest.bit_length() - 1, top]  # one other card
            else:
                new = [top]
            self._piles[to] = new
            self._taken = pile
            if not self._always and rest:
                # The others now know no card of this hand reached the pile's value (determinize).
                v = VALUE[pile[-1]]
                if v < self._caps[p]:
                    self._caps[p] = v
        elif mode == 2:
            # docs/rules/pentyrch.md, Moving, Showing: no card changes hands; the shown card is public.
            p = self._owner[seat]
            hidden = self._hidden
            hidden[p] = hidden[p] & ~BIT[top]
        self._events = _MOVED  # the step, exchange or show of m (events() makes its tuple)
        stacks[to].append(k)
        self._cpos[k] = to

    def _pass(self, seat: int) -> None:
        p = self._owner[seat]
        cpos = self._cpos
        k0 = seat * 3
        all_safe = cpos[k0] == SAFE and cpos[k0 + 1] == SAFE and cpos[k0 + 2] == SAFE
        if all_safe:
            # docs/rules/pentyrch.md, Moving, No move: a seat with all its cards in safety simply passes.
            self._events = _PASSED_SAFE[seat]
            return
        if self._reveal:
            # docs/rules/pentyrch.md, Moving, No move (reveal_on_pass): the hand is shown to all.
            self._hidden[p] = 0
            self._events = [(_PASS, seat, self._hands[p], False)]
            return
        self._events = _PASSED[seat]
        # The others learn that the hand could pay for none of the piles it could step onto.
        low = exchange_floor(self, seat)
        if low <= 10 and self._hidden[p]:
            self._passcons.append((p, low, self._hands[p], self._hidden[p]))

    def _advance(self) -> None:
        s = self._seat
        dealer = self._dealer
        unit = self._unit
        finished = self._finished
        while True:
            if s == dealer:
                # docs/rules/pentyrch.md, The end: after the dealer's turn the game may stop.
                self._round += 1
                reason = scoring.end_reason(self)
                if reason is not None:
                    self._end_game(reason)
                    return
                self._moved = False
                s = 0
            else:
                s += 1
            if not finished or unit[s] not in finished:
                self._seat = s
                return

    def _end_game(self, reason: str) -> None:
        result = scoring.game_result(self, reason)
        rets = result["returns"]
        pts = result["scores"]
        for p in range(self._n):
            self._total_scores[p] += pts[p]
            self._total_returns[p] += rets[p]
        self._results.append(result)
        self._events = self.events()[:]  # a list of this action's own: the shared ones stay as they are
        self._events.append((_GAME_OVER, self._g, reason, result["winners"], rets))
        if self._g + 1 < self._games:
            self._past_games += (
                (
                    self._owner,
                    self._dealt[:],
                    self._hidden[:],
                    self._caps[:],
                    self._passcons[:],
                    self._setaside,
                ),
            )
            # docs/rules/pentyrch.md, The end (games): the next game of the match, seats rotated.
            self._g += 1
            self._start_game()
        else:
            self._over = True

    def returns(self) -> list[float]:
        if not self._over:
            return [0.0] * self._n
        return list(self._total_returns)

    def scores(self) -> list[int]:
        if self._over:
            return list(self._total_scores)
        pts = scoring.game_points(self)
        return [a + b for a, b in zip(self._total_scores, pts, strict=True)]

    def clone(self) -> PentyrchState:
        s = PentyrchState(self.game, self.seed, self.chance.copy(), _blank=True)
        s._n = self._n
        s._always = self._always
        s._overpay = self._overpay
        s._show = self._show
        s._reveal = self._reveal
        s._cover_any = self._cover_any
        s._max_rounds = self._max_rounds
        s._games = self._games
        s._partners = self._partners
        s._g = self._g
        s._owner = self._owner
        s._dealer = self._dealer
        s._unit = self._unit
        s._unit_seats = self._unit_seats
        s._piles = [p[:] for p in self._piles]
        s._stacks = [p[:] for p in self._stacks]
        s._cpos = self._cpos[:]
        s._hands = self._hands[:]
        s._hidden = self._hidden[:]
        s._dealt = self._dealt[:]
        s._setaside = self._setaside
        s._seat = self._seat
        s._round = self._round
        s._moved = self._moved
        s._finished = self._finished[:]
        s._over = self._over
        s._hist = self._hist[:]
        s._events = self._events[:]
        s._taken = self._taken
        s._legal = self._legal
        s._combos = self._combos
        s._counts = self._counts[:]
        s._total_scores = self._total_scores[:]
        s._total_returns = self._total_returns[:]
        s._caps = self._caps[:]
        s._passcons = self._passcons[:]
        s._results = [dict(r) for r in self._results]
        s._past_games = self._past_games
        return s

    # -- notation ------------------------------------------------------------------------------
    @staticmethod
    def format_move(m: Move) -> str:
        """docs/rules/pentyrch.md, Notation, canonical form (``notation.format_move``)."""
        return notation.format_move(m)

    def legal_action_strings(self) -> list[str]:
        return notation.legal_action_strings(self)

    # The methods below take what a user gave as ``object`` and check it themselves (notation.py,
    # State.check_player), so both builds answer bad input with the same GameError.
    def explain_illegal(self, action: int) -> str:
        """One sentence, in a player's words, naming the rule that forbids ``action`` here."""
        from gamester.games.pentyrch.explain import explain_illegal

        return explain_illegal(self, action)

    def action_to_string(self, action: object) -> str:
        return notation.action_to_string(self, action)

    def string_to_action(self, text: object) -> int:
        return notation.string_to_action(self, text)

    def action_seen_by(self, action: object, viewer: object) -> str:
        """docs/rules/pentyrch.md, What each player knows: a move's notation is public once it is made (the
        cards it lays go on the pile), so a legal move reads the same to everyone; what an action
        id would name in a position where it is not legal is told to the mover alone, since a
        combination id is decoded against the mover's hand."""
        if viewer is not None and not self._over and viewer == self._owner[self._seat]:
            return self.action_to_string(action)
        if type(action) is int and (action == PASS or notation.is_legal(self, action)):
            return self.action_to_string(action)
        return "an illegal move"

    def action_named_for(self, action: object, viewer: int) -> str:
        """docs/rules/pentyrch.md, What each player knows: a combination id is numbered among the
        combinations of the mover's hand, so to anyone else it reads as its number only; every other
        id names a court card, a place and a card whatever the hands hold."""
        if not self._over and viewer == self._owner[self._seat]:
            return self.action_to_string(action)
        return notation.action_without_hand(self, action)

    def history_strings(self) -> list[str]:
        fmt = notation.format_move
        return [fmt(m) for m in self._hist]

    def position(self) -> str:
        """docs/positions.md: this position in Pentyrch's notation (``position.py``)."""
        return position.write(self)

    # -- information ---------------------------------------------------------------------------
    def observation(self, player: object) -> dict[str, Any]:
        """docs/rules/pentyrch.md, What each player knows: the board, every pile, cards that changed hands at
        exchanges, shown hands and cards; never the unplayed dealt cards of others or the set-aside."""
        return views.view(self, self.check_player(player))

    def public_observation(self) -> dict[str, Any]:
        """What a spectator knows: the board and the cards of every hand seen so far, no hand at all
        (``player`` None, ``my_seats`` empty)."""
        return views.view(self, None)

    def observation_tensor(self, player: object) -> list[float]:
        """The observation as numbers (layout at ``views.OBS_SIZE``), for learning agents."""
        return views.observation_tensor(self, self.check_player(player))

    def determinize(self, player: object, rng: random.Random) -> PentyrchState:
        """A full state drawn uniformly from those ``player`` cannot tell apart from this one
        (``worlds.determinize``)."""
        return worlds.determinize(self, self.check_player(player), rng)

    def events(self) -> list[tuple[Any, ...]]:
        """The events of the last action as the tuples of :class:`~.views.Event` (read only), the
        move's own made here from the history if it was left to be (``_MOVED``)."""
        events = self._events
        if not events or events[0] is not _MOVED_EVENT:
            return events
        k, frm, to, mode, top, rest = self._hist[-1]
        seat = k // 3  # court card k is seat k // 3's (cards.py)
        if mode == 1:
            return [(_EXCHANGE, seat, k, frm, to, self._taken, top, rest)]
        if mode == 2:
            return [(_SHOW, seat, k, frm, to, top)]
        # a step or an entry with no payment: how many court cards the card now covers, and the one
        # just under it (-1: none) with whether it is a card of the mover's own player (Stacks: a
        # cover protects one's own card, traps another's), read now: a new game resets both
        stack = self._stacks[to]
        if len(stack) < 2:
            return [(_STEP, seat, k, frm, to, 0, -1, False)]
        covered = stack[-2]
        owner = self._owner
        return [(_STEP, seat, k, frm, to, len(stack) - 1, covered, owner[covered // 3] == owner[seat])]

    def last_events(self) -> list[dict[str, Any]]:
        return views.last_events(self)

    def summary_extra(self) -> dict[str, Any]:
        return views.summary_extra(self)

    def teams(self) -> list[list[int]]:
        """docs/rules/pentyrch.md, The end (partners): partners finish together and share the result;
        otherwise each player is alone (a two-player player's two seats are one player)."""
        units = {tuple(scoring.unit_players(self, u)) for u in range(len(self._unit_seats))}
        return [list(t) for t in sorted(units)]

    # -- helpers for tests, agents and interfaces ------------------------------------------------
    def hand(self, player: int) -> list[str]:
        """A player's hand in canonical order (not hidden-information safe: for tests and tools)."""
        return codes(canon_cards(self._hands[player]))

    def pile(self, cell: str) -> list[str]:
        return codes(self._piles[parse_cell(cell)])

    def stack(self, cell: str) -> list[str]:
        return [court_code(k) for k in self._stacks[parse_cell(cell)]]

    def where_is(self, court: str) -> str:
        """``off``, ``safe`` or the cell of a court card."""
        p = self._cpos[COURT_OF_CARD[parse_card(court)]]
        return "off" if p == -1 else "safe" if p == SAFE else "out" if p == -2 else CELL_NAMES[p]

    def __repr__(self) -> str:
        # Not the seed: it rebuilds every hidden card, and a repr ends up in logs and tracebacks.
        return f"<PentyrchState {self.game.spec()} {reasons.where(self)}>"
