"""Lessons on the server: a lesson table is an ordinary table with the lesson's fixed deal, the pupil's
seat taken by the person who asked for it and every other seat a computer player of the lesson.

The lessons are the games' own (``games/<game>/lesson.py``, found through the registry by
:mod:`gamester.core.lesson`), the same ones the terminal teaches. Everything here is a pure function
of a lesson and a position, for the room to call wherever it builds a frame or takes a move:

* :func:`note`: the ``tutorial`` field of the pupil's view (``{"text", "expect"}``: the lesson's
  words and the moves it takes, empty where any legal move will do);
* :func:`refusal`: why a legal move of the pupil is not the lesson's (``not_the_lesson``), or None;
* :func:`bot_move`: the move of a computer player of the lesson (its line, no search);
* :func:`reviewable`: the pupil's decisions a review of the lesson's game judges.

A seat in the words is written ``{seat:N}``: the page puts there the name it shows for that seat.
"""

from __future__ import annotations

from typing import Any

from gamester.core.errors import GameError
from gamester.core.lesson import Lesson, closing, current, free_decisions, lessons, pupil_moves, refuse
from gamester.core.protocol import State


class LessonError(Exception):
    """No such lesson (the message lists the ones there are)."""


def catalogue() -> list[dict[str, Any]]:
    """``GET /api/tutorials``: every lesson, the games in the registry's order, each game's in its
    own order."""
    return [{"id": t.id, "game": t.game, "title": t.title, "seat": t.seat} for t in lessons()]


def find(lesson_id: str) -> Lesson:
    """The lesson with id ``lesson_id`` exactly (no game-name shorthand on the web)."""
    known = {t.id: t for t in lessons()}
    if lesson_id not in known:
        raise LessonError(f"no tutorial {lesson_id[:40]!r}; tutorials: {', '.join(sorted(known))}")
    return known[lesson_id]


def seats(t: Lesson) -> list[str]:
    """The seat list of a lesson table: the pupil a human, the others the lesson's computer players
    (named at the table by ``t.bots``; they play the lesson's line, :func:`bot_move`)."""
    return ["human" if p == t.seat else t.bots for p in range(t.players())]


def note(lesson_id: str, state: State) -> dict[str, Any]:
    """The ``tutorial`` field of the pupil's view of ``state``: at the pupil's decisions the lesson's
    words and the moves it takes (the introduction comes with the first), the introduction while the
    pupil waits for a first turn, the closing words once the game is over, else nothing to say."""
    t = find(lesson_id)
    if state.is_terminal():
        return {"text": closing(t, state), "expect": []}
    found = current(t, state)
    if found is None:  # the pupil waits: the introduction until its first decision, then nothing
        return {"text": "" if pupil_moves(t, state.history_strings()) else t.intro, "expect": []}
    moment, now = found
    text = f"{t.intro} {now.text}".strip() if moment.decision == 0 else now.text
    return {"text": text, "expect": now.expect}


def refusal(lesson_id: str, state: State, player: int, move: str) -> str | None:
    """Why the lesson will not play ``move`` for ``player`` now (one sentence), or None."""
    t = find(lesson_id)
    if player != t.seat:
        return None
    try:
        return refuse(t, state, move)
    except GameError:
        return None


def bot_move(lesson_id: str, state: State) -> str:
    """The move (notation) of the lesson's computer player to move in ``state``."""
    return state.action_to_string(find(lesson_id).bot_move(state))


def reviewable(lesson_id: str, actions: list[str]) -> list[int]:
    """The indices of the pupil's decisions where the lesson took any legal move: a review of a lesson
    judges the pupil's own choices, never a move the lesson chose or narrowed."""
    return free_decisions(find(lesson_id), actions)


def pupil(lesson_id: str) -> int:
    return find(lesson_id).seat
