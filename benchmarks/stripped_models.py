"""How fast can this benchmark go at all? Stripped models of Penneech and Piquesept in the same harness.

    pip install -e '.[bench]'
    python benchmarks/stripped_models.py            # both
    python benchmarks/stripped_models.py penneech

These are NOT the games. Each model keeps only the core of a random single deal: the shuffle (the same
exact shuffler and generator as the engine), hands as bitmasks, the follow rule, trick winners from the
engine's own tables, the trump turned up after each trick (Penneech). It drops everything else a
complete implementation must do: the first-dealer draw, redeals, honours and the card bonus, the forced
first trick and the trade, the chance log that records need, events, scores, clear errors. It is run in
the loop of ``vs_openspiel.py`` (``random_playouts``), interleaved with the real game and its OpenSpiel
peer, so the three figures are comparable: the model's ratio to OpenSpiel is a ceiling for any pure-Python
implementation of the whole game through this API in this harness.
"""

from __future__ import annotations

import argparse
from typing import Any

import gamester
from gamester.core.rng import _shuffler, make_rng
from gamester.games.penneech import game as pn
from gamester.games.piquesept import game as pq
from gamester.sim.bench import OPENSPIEL_PEERS, interleave, openspiel_playouts, random_playouts

_PN_OUTCOMES = pn._trick_outcomes(pn.TRICK_POINTS["any"], False)
_PN_SHUFFLE = _shuffler(52, pn.DEAL_READS)
_PQ_SHUFFLE = _shuffler(32, 32)


class PenneechModel:
    """Two hands of seven, seven tricks, a new trump after each; nothing else."""

    __slots__ = ("hands", "hl", "cur", "led", "trump", "pack", "pos", "over", "history", "tricks")

    def __init__(self, seed: int) -> None:
        pack, _ = _PN_SHUFFLE(make_rng(seed), range(52))
        first, second = pack[0:14:2], pack[1:14:2]
        b = pn.BIT
        c0, c1, c2, c3, c4, c5, c6 = first
        h0 = b[c0] + b[c1] + b[c2] + b[c3] + b[c4] + b[c5] + b[c6]
        c0, c1, c2, c3, c4, c5, c6 = second
        self.hands = [h0, b[c0] + b[c1] + b[c2] + b[c3] + b[c4] + b[c5] + b[c6]]
        first.sort()
        second.sort()
        self.hl = [first, second]
        self.cur, self.led, self.trump, self.pack, self.pos = 0, -1, pack[14] // 13, pack, 15
        self.over, self.history, self.tricks = False, [], [0, 0]

    def is_terminal(self) -> bool:
        return self.over

    def legal_actions(self) -> list[int]:
        led = self.led
        if led >= 0:
            ls = led // 13
            follow = self.hands[self.cur] >> pn.SHIFT[ls] & 8191
            if follow:
                return pn._CHUNK[ls][follow][:]
        return self.hl[self.cur][:]

    def apply_action(self, a: int) -> None:
        seat, hands = self.cur, self.hands
        hand = hands[seat]
        if a.__class__ is not int or a < 0 or not hand >> a & 1:
            raise ValueError(a)
        self.history.append(a)
        hands[seat] = hand ^ (1 << a)
        self.hl[seat].remove(a)
        led = self.led
        if led < 0:
            self.led, self.cur = a, 1 - seat
            return
        v = _PN_OUTCOMES[self.trump][led * 52 + a]
        if v & 2 and hand & pn.SUIT_MASKS[led // 13]:
            raise ValueError(a)
        winner = seat if v & 1 else 1 - seat
        self.tricks[winner] += 1
        self.led = -1
        if self.pos < pn.LAST_TURN_UP:
            self.trump, self.pos, self.cur = self.pack[self.pos] // 13, self.pos + 1, winner
        else:
            self.over = True


class PiqueseptModel:
    """Four hands of eight, eight tricks under the later-trick follow rule; nothing else."""

    __slots__ = ("hands", "cur", "lm", "trick", "led", "best", "bseat", "done", "over", "history")

    def __init__(self, seed: int) -> None:
        pack, _ = _PQ_SHUFFLE(make_rng(seed), range(32))
        hands = []
        for j in range(4):
            c0, c1, c2, c3, c4, c5, c6, c7 = pack[j::4]
            hands.append(
                (1 << c0) + (1 << c1) + (1 << c2) + (1 << c3) + (1 << c4) + (1 << c5) + (1 << c6) + (1 << c7)
            )
        self.hands = hands
        self.cur, self.lm, self.trick, self.led, self.best, self.bseat = 0, self.hands[0], [], -1, -1, 0
        self.done, self.over, self.history = 0, False, []

    def is_terminal(self) -> bool:
        return self.over

    def legal_actions(self) -> list[int]:
        m = self.lm
        return pq._LO[m & 0xFFFF] + pq._HI[m >> 16]

    def apply_action(self, a: int) -> None:
        if a.__class__ is not int or a < 0 or not self.lm >> a & 1:
            raise ValueError(a)
        seat, hands, trick = self.cur, self.hands, self.trick
        hands[seat] ^= 1 << a
        self.history.append(a)
        trick.append(a)
        if len(trick) > 1:
            ls = self.led
            v = pq.VAL[ls][a]
            if v > self.best:
                self.best, self.bseat = v, seat
            if len(trick) == 4:
                self.done += 1
                if self.done == 8:
                    self.over = True
                    return
                winner = self.bseat
                self.trick, self.cur, self.lm = [], winner, hands[winner]
                return
        else:
            ls = a >> 3
            self.led, self.best, self.bseat = ls, pq.VAL[ls][a], seat
        nxt = (seat + 1) & 3
        h = hands[nxt]
        self.cur = nxt
        self.lm = h if nxt == 0 else h & pq.SUIT_MASK[ls] or h & pq.SPADES or h


class _ModelGame:
    def __init__(self, model: Any) -> None:
        self.model = model

    def new_initial_state(self, seed: int) -> Any:
        return self.model(seed)


MODELS = {"penneech": ("penneech(objective=deal)", PenneechModel), "piquesept": ("piquesept", PiqueseptModel)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="penneech, piquesept (default both)")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=0.5)
    args = ap.parse_args()
    unknown = [g for g in args.games if g not in MODELS]
    if unknown:
        ap.error(f"unknown game {unknown[0]!r}; choose from {', '.join(MODELS)}")
    import pyspiel  # type: ignore[import-not-found, unused-ignore]  # the optional `bench` extra

    for name in args.games or MODELS:
        spec, model = MODELS[name]
        game, model_game, peer = gamester.load_game(spec), _ModelGame(model), OPENSPIEL_PEERS[name]
        theirs = pyspiel.load_game(peer)
        totals = interleave(
            {
                f"stripped model of {name}": lambda s, g=model_game: random_playouts(g, s),  # type: ignore[misc]
                spec: lambda s, g=game: random_playouts(g, s),  # type: ignore[misc]
                f"openspiel {peer}": lambda s, t=theirs: openspiel_playouts(t, s),  # type: ignore[misc]
            },
            rounds=args.rounds,
            seconds=args.seconds,
        )
        base = totals[f"openspiel {peer}"].actions_per_second
        for label, t in totals.items():
            rate = t.actions_per_second
            print(f"{label:50s} {rate:>11,.0f} player actions/s  {rate / base:5.2f}x OpenSpiel")
        print()


if __name__ == "__main__":
    main()
