"""Pentyrch combination payments with ``overpay=true``, counted, ranked and unranked without listing them.

docs/rules/pentyrch.md, Moving, Exchange (overpay): any two or more hand cards adding up to at least the
pile's top value pay for it, one of them chosen to lie on top. A hand of sixteen low cards has half a million
such payments for one exchange, so the game never lists them: the dense action of a combination is its rank
in canonical order, and this module turns ranks into payments and back by counting.

Cards are *positions* ``0 … n-1`` of the hand's usable cards in canonical order (value high to low);
``values[i]`` is the value of position ``i``. A payment is ``(top, rest)``: the top position and the
bit mask of the other positions (at least one). Canonical order sorts payments by top, then by the
sorted list of rest positions compared as sequences, the order ``_combo_positions`` in ``game.py``
produces by listing and sorting (the tests check both agree). In that order the payments with one top
form a pre-order walk of the subsets of the other positions: a list comes before its extensions, and
the extensions of ``[…, j]`` all come before ``[…, j']`` for ``j' > j``. So if ``F[i][x]`` counts the
subsets (the empty one included) of positions ``i …`` (without the top) worth at least ``x``, the
payments under one prefix are counted in one lookup, and a rank is found by walking the positions once.
"""

from __future__ import annotations

from collections.abc import Sequence


class OverpayPayments:
    """Every overpay combination of cards worth ``values`` (high to low) for a pile worth ``v``."""

    __slots__ = ("values", "v", "count", "_offsets", "_counts", "_tables", "_need")

    def __init__(self, values: Sequence[int], v: int) -> None:
        self.values = tuple(values)
        self.v = v
        n = len(self.values)
        self._tables: list[list[list[int]]] = []
        self._need: list[int] = []
        self._counts: list[int] = []
        self._offsets: list[int] = []
        total = 0
        for t in range(n):
            # F[i][x]: subsets of positions i … n-1 other than t with a total of at least x (0 … v).
            table = [[0] * (v + 1) for _ in range(n + 1)]
            table[n][0] = 1
            for i in range(n - 1, -1, -1):
                below, row = table[i + 1], table[i]
                if i == t:
                    row[:] = below
                    continue
                w = self.values[i]
                for x in range(v + 1):
                    row[x] = below[x] + below[x - w if x > w else 0]
            need = max(0, v - self.values[t])
            # At least one other card: the empty rest counts only when the top alone is enough.
            c = table[0][need] - (1 if need == 0 else 0)
            self._tables.append(table)
            self._need.append(need)
            self._counts.append(c)
            self._offsets.append(total)
            total += c
        self.count = total

    def unrank(self, r: int) -> tuple[int, int]:
        """The ``r``-th payment ``(top, rest mask)`` (``0 <= r < count``)."""
        if not 0 <= r < self.count:
            raise IndexError(r)
        t = 0
        while r >= self._offsets[t] + self._counts[t]:
            t += 1
        r -= self._offsets[t]
        table, values = self._tables[t], self.values
        x = self._need[t]
        mask = 0
        j = 0
        while True:
            if j != t:
                x2 = x - values[j]
                if x2 < 0:
                    x2 = 0
                c = table[j + 1][x2]  # the payments whose rest continues the prefix with j
                if r < c:
                    mask |= 1 << j
                    if x2 == 0:  # the prefix with j is itself a payment, listed first
                        if r == 0:
                            return t, mask
                        r -= 1
                    x = x2
                else:
                    r -= c
            j += 1

    def rank(self, top: int, rest: int) -> int:
        """The rank of payment ``(top, rest mask)``, or -1 if it is not one of these payments."""
        n = len(self.values)
        if not 0 <= top < n or rest <= 0 or rest >> n or rest >> top & 1:
            return -1
        table, values = self._tables[top], self.values
        r = self._offsets[top]
        x = self._need[top]
        j = 0
        while rest:
            p = (rest & -rest).bit_length() - 1
            rest &= rest - 1
            for i in range(j, p):
                if i != top:
                    x2 = x - values[i]
                    r += table[i + 1][x2 if x2 > 0 else 0]
            x = x - values[p]
            if x < 0:
                x = 0
            if rest and x == 0:
                r += 1  # the shorter payment ending at p comes before this one
            j = p + 1
        return r if x == 0 else -1

    def walk(self, names: Sequence[str]) -> list[str]:
        """Every payment in rank order, written ``names[top]+names[other]+…`` (others ascending)."""
        out: list[str] = []
        for t in range(len(self.values)):
            if self._counts[t]:
                self._grow(t, self._tables[t], 0, self._need[t], names[t], names, out)
        return out

    def _grow(
        self,
        t: int,
        table: list[list[int]],
        start: int,
        x: int,
        text: str,
        names: Sequence[str],
        out: list[str],
    ) -> None:
        # Depth-first, children in position order: exactly the rank order (see the module notes).
        values = self.values
        for j in range(start, len(values)):
            if j == t:
                continue
            x2 = x - values[j]
            if x2 < 0:
                x2 = 0
            if table[j + 1][x2]:
                sub = text + "+" + names[j]
                if x2 == 0:
                    out.append(sub)
                self._grow(t, table, j + 1, x2, sub, names, out)
