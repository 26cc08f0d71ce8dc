"""Tutorials on the server: a lesson table is an ordinary table with the tutorial's fixed deal, the
pupil's seat taken by the person who asked for it and every other seat a bot.

The words come from :mod:`gamester.play.tutorials`, the same lesson the terminal teaches: each view of
the pupil's seat carries ``"tutorial": {"text", "expect"}`` (the moves the lesson wants; empty where
any legal move will do), and a legal move the lesson does not want is refused with the lesson's reason
(``not_the_lesson``) instead of being played, as at the terminal. Everything here is pure: a state in,
words out, so the service calls it while building a frame or checking a move.
"""

from __future__ import annotations

from typing import Any

from gamester.core.errors import GameError
from gamester.core.protocol import State
from gamester.core.registry import load_game
from gamester.play.tutorials import Tutorial, closing, coach, moments, refuse, tutorial, tutorials


class LessonError(Exception):
    """No such tutorial (the message lists the ones there are)."""


def catalogue() -> list[dict[str, Any]]:
    """``GET /api/tutorials``: every lesson, in the order the games are listed."""
    return [{"id": t.id, "game": t.game, "title": t.title, "seat": t.seat} for t in tutorials()]


def find(lesson_id: str) -> Tutorial:
    """The tutorial with id ``lesson_id`` exactly (no game-name shorthand on the web)."""
    known = {t.id: t for t in tutorials()}
    if lesson_id not in known:
        raise LessonError(f"no tutorial {lesson_id[:40]!r}; tutorials: {', '.join(sorted(known))}")
    return known[lesson_id]


def seats(t: Tutorial) -> list[str]:
    """The seat list of a lesson table: the pupil a human, the others the lesson's bots."""
    n = load_game(t.game, **t.options).num_players
    return ["human" if p == t.seat else t.bots for p in range(n)]


def note(lesson_id: str, state: State) -> dict[str, Any]:
    """The ``tutorial`` field of the pupil's view of ``state``: at the pupil's decisions the lesson's
    sentence and wanted moves (the introduction comes with the first), the introduction while the
    pupil waits for a first turn, the closing words once the game is over, else nothing to say."""
    t = tutorial(lesson_id)
    if state.is_terminal():
        return {"text": closing(t, state), "expect": []}
    _, seen = moments(t, state.history_strings())
    if state.current_player() != t.seat:
        return {"text": "" if seen else t.intro, "expect": []}
    current = seen[-1][1]  # the pupil's decision now is the last moment
    text = f"{t.intro} {current.text}".strip() if len(seen) == 1 else current.text
    return {"text": text, "expect": current.expect}


def refusal(lesson_id: str, state: State, player: int, move: str) -> str | None:
    """Why the lesson will not play ``move`` for ``player`` now (one sentence), or None."""
    t = tutorial(lesson_id)
    if player != t.seat:
        return None
    try:
        return refuse(t, state, coach(t, state), move)
    except GameError:
        return None


def pupil(lesson_id: str) -> int:
    return tutorial(lesson_id).seat
