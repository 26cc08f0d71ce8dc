"""How a finished rated table moves its players' ratings (docs/web.md, Ratings).

Each game has its own rating per account, by Glicko-2 (:mod:`gamester.web.glicko`), one table being
one rating period. A table of more than two is read as pairwise results: every player is compared
with every other whose return differs from its own — a win over those it finished above, a loss to
those above it. Equal returns at a table of two are a draw; at a bigger table they mean the same side
(Pentyrch's partners, Piquesept's three defenders) or a shared place, and are not compared. Each of a
player's comparisons weighs 1/k (k: how many it has), so one table counts as one game however many sat
at it: Piquesept's soloist is compared with three defenders at a third each, each defender with the
soloist alone, at full weight.

Computer players are rated too, under ``bot:`` + their agent spec: a human's win over a bot is a win
over a player of the bot's rating, and the bot's rating moves like anyone's. They are kept off the
leaderboards.
"""

from __future__ import annotations

from gamester.store.port import Participant, Rating
from gamester.web.glicko import update

INITIAL = Rating(rating=1500.0, deviation=350.0, volatility=0.06, games=0)


def comparisons(results: list[float]) -> list[list[tuple[int, float]]]:
    """For each seat, the (other seat, score) pairs it is rated on.

    >>> comparisons([1.0, -1.0])
    [[(1, 1.0)], [(0, 0.0)]]
    >>> comparisons([0.0, 0.0])
    [[(1, 0.5)], [(0, 0.5)]]
    >>> comparisons([3.0, -1.0, -1.0, -1.0])[0], comparisons([3.0, -1.0, -1.0, -1.0])[1]
    ([(1, 1.0), (2, 1.0), (3, 1.0)], [(0, 0.0)])
    """
    n = len(results)
    out: list[list[tuple[int, float]]] = []
    for i, mine in enumerate(results):
        row = []
        for j, theirs in enumerate(results):
            if j == i or (n > 2 and theirs == mine):
                continue
            row.append((j, 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0))
        out.append(row)
    return out


def rate(people: list[Participant]) -> list[tuple[Rating, float]]:
    """The Glicko-2 rule of the module docstring: each participant's new rating (all from the ratings
    before the table) and its score at the table from 0 to 1."""
    pairs = comparisons([p.result for p in people])
    out: list[tuple[Rating, float]] = []
    for p, row in zip(people, pairs, strict=True):
        b = p.before
        if not row:  # nobody to compare with (everyone on one side): only the game is counted
            out.append((Rating(b.rating, b.deviation, b.volatility, b.games + 1), 0.5))
            continue
        w = 1.0 / len(row)
        games = [(people[j].before.rating, people[j].before.deviation, s, w) for j, s in row]
        r, rd, vol = update(b.rating, b.deviation, b.volatility, games)
        out.append((Rating(r, rd, vol, b.games + 1), sum(s for _, s in row) / len(row)))
    return out
