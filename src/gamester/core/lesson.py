"""Lessons: a fixed deal and a fixed line of play that teach a game's rules, each where it first matters.

A game's folder may hold a ``lesson`` module whose ``LESSONS`` lists its :class:`Lesson` s; they are
found through the registry (:func:`lessons`), as a game's terminal drawing is, so no list of games is
kept by hand and a fifth game's lessons appear beside the shipped ones.

A lesson is data: the game and its options, the seed of the deal, the pupil's seat, its **line** (every
move of the game the lesson was written for, in notation, the pupil's included) and its **steps**, the
rule moments it promises. At each decision of the pupil the steps not yet taught whose ``when`` holds
are taught, in the lesson's order: their sentences, and the moves the first of them asks for.

**The computer players play the line**, not a search: at its turn a seat makes the first of its line
moves it has not made yet that is legal now (its cards in the line's order, in a card game), else its
lowest legal move. The same moves every time, at a terminal, on a web table and in a test.

**The pupil stays on course.** A move of the pupil *keeps the promise* when, after it, the game played
on (the computer players on their line, the pupil taking its own line moves, the asked ones where a
step asks) still teaches every step. At each decision the moves the lesson takes are

* where a step asks for moves (``expect``), those of them that keep the promise;
* else, in a lesson that leaves the pupil free (``free``), every legal move that keeps the promise,
  so a choice is left to the pupil wherever it cannot lose a rule moment ("any move will do" when
  every legal move keeps it); in a lesson that is not free, the line's own move.

Any other legal move is refused with the lesson's reason and asked again, never played. A pupil who
makes only the moves the lesson takes meets every step: the pupil's line move is always taken (the
game that follows it is the one that kept the promise a move earlier), so at every decision some move
is taken and each one taken keeps the promise to the end.

Everything a step looks at is a :class:`Moment`: the pupil's own observation, legal moves in notation
and the events it saw since its previous decision, so a lesson's words never show a card the pupil
could not see. A seat is written ``{seat:N}`` in a lesson's words (:func:`seat`), and every screen
puts its own name for that seat there (:func:`name_seats`). Moves in notation are explained the first
time the lesson shows one of their kind (``glossary``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from gamester.core.errors import GameError
from gamester.core.protocol import State
from gamester.core.registry import game_names, game_part, load_game

_SEAT = re.compile(r"\{seat:(\d+)\}")


def seat(player: int) -> str:
    """How a lesson writes a seat: each screen names it as it shows it (:func:`name_seats`)."""
    return f"{{seat:{player}}}"


def name_seats(text: str, name: Callable[[int], str]) -> str:
    """``text`` with every seat written by :func:`seat` replaced by ``name(player)``; a sentence that
    begins with a seat begins with a capital."""

    def put(m: re.Match[str]) -> str:
        word = name(int(m[1]))
        start = m.start() == 0 or text[: m.start()].rstrip().endswith((".", ":", "!", "?"))
        return word[:1].upper() + word[1:] if start else word

    return _SEAT.sub(put, text)


def or_list(items: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: the moves a lesson offers, as a sentence names them."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


@dataclass(frozen=True)
class Moment:
    """What the pupil knows at one of its decisions."""

    obs: dict[str, Any]
    legal: list[str]
    events: list[dict[str, Any]]  # seen by the pupil since its previous decision, oldest first
    decision: int  # how many decisions the pupil made before this one
    taught: frozenset[str]  # the rules already taught


def _no_moves(m: Moment) -> list[str]:
    return []


def _as_written(move: str) -> str:
    return move


@dataclass(frozen=True)
class Step:
    """One rule moment, taught the first time ``when`` holds at a decision of the pupil."""

    rule: str  # a short name, e.g. "follow_or_trump"
    topic: str  # the moment in a few words, for a sentence: "following suit or trumping"
    when: Callable[[Moment], bool]
    text: Callable[[Moment], str]
    expect: Callable[[Moment], list[str]] = _no_moves
    # Why a legal move the step does not ask for is not the lesson's move (one sentence); None: the
    # move "may be played, but this step is about" the topic, and the moves it asks for.
    wrong: Callable[[Moment, str], str] | None = None


@dataclass(frozen=True)
class Gloss:
    """A kind of notation (a pattern in a move's text) and the words that explain it, said the first
    time the lesson shows a move of that kind."""

    name: str
    pattern: str  # a regular expression searched in what the lesson shows
    text: str  # {0} is what the pattern found, {1}, {2}... its groups


@dataclass(frozen=True, eq=False)
class Lesson:
    """A lesson (the module docstring). Compared and hashed by identity: one object per lesson."""

    id: str
    game: str
    title: str
    options: dict[str, Any]
    seed: int
    seat: int
    intro: str
    steps: Sequence[Step]
    outro: str
    line: Sequence[str]  # every move of the lesson's game, in notation, the pupil's too
    free: bool = True  # may the pupil leave the line where no rule moment is lost (module docstring)
    glossary: Sequence[Gloss] = ()
    words: Callable[[str], str] = _as_written  # a move as the lesson's own sentences name it
    bots: str = "heuristic"  # the agent a web table names at the computer players' seats
    _line_by_seat: dict[int, list[str]] = field(default_factory=dict, init=False, repr=False)

    def new_state(self) -> State:
        return load_game(self.game, **self.options).new_initial_state(seed=self.seed)

    def players(self) -> int:
        return load_game(self.game, **self.options).num_players

    def line_of(self, player: int) -> list[str]:
        """The moves ``player`` makes along the line, in order."""
        if not self._line_by_seat:
            state = self.new_state()
            by: dict[int, list[str]] = {}
            for text in self.line:
                by.setdefault(state.current_player(), []).append(text)
                state.apply_action(state.string_to_action(text))
            self._line_by_seat.update(by)
        return self._line_by_seat.get(player, [])

    def bot_move(self, state: State) -> int:
        """The move of the computer player to move in ``state`` (a game of this lesson): its next
        line move (module docstring). Computed from the game so far alone, so a server's worker and a
        terminal make the same move."""
        return _Walk.replay(self, state.history_strings()).line_move()


# -- the walk through a lesson's game --------------------------------------------------------------


@dataclass(frozen=True)
class Note:
    """What the pupil is told at a decision: the sentence and the moves the lesson takes."""

    text: str
    expect: list[str]  # the moves the lesson takes; empty where any legal move will do
    rules: tuple[str, ...]  # the steps taught here
    asker: str | None  # the step whose moves were asked for
    asked: tuple[str, ...] = ()  # what that step asked for (before the lesson's course narrowed it)


class _Walk:
    """A game of a lesson, followed as the pupil sees it: the state, the events the pupil saw since
    its last decision, the steps taught and notation explained so far, and each seat's moves."""

    __slots__ = ("explained", "lesson", "listen", "made", "moments", "seen", "state", "taught")

    def __init__(self, lesson: Lesson, listen: bool = True) -> None:
        self.lesson = lesson
        self.listen = listen  # keep the events the pupil sees (a walk for a computer player's move need not)
        self.state = lesson.new_state()
        self.seen: list[dict[str, Any]] = []
        self.taught: set[str] = set()
        self.explained: set[str] = set()
        self.made: dict[int, list[str]] = {}
        self.moments: list[tuple[Moment, Note]] = []

    @classmethod
    def replay(
        cls, lesson: Lesson, actions: Iterable[str], notes: bool = False, course: bool = True
    ) -> _Walk:
        """The walk through ``actions`` (notation); with ``notes``, each decision of the pupil taught,
        and at the last one (``course``) the moves the lesson takes worked out."""
        walk = cls(lesson, listen=notes)
        for text in actions:
            if walk.state.is_terminal():
                raise GameError(f"the lesson is over; {text!r} cannot be played")
            if notes and walk.pupil_to_move():
                walk.decide(course=False)
            walk.play(text)
        if notes and walk.pupil_to_move():
            walk.decide(course=course)
        return walk

    def clone(self) -> _Walk:
        other = _Walk.__new__(_Walk)
        other.lesson = self.lesson
        other.listen = self.listen
        other.state = self.state.clone()
        other.seen = list(self.seen)
        other.taught = set(self.taught)
        other.explained = set(self.explained)
        other.made = {p: list(ms) for p, ms in self.made.items()}
        other.moments = []
        return other

    def pupil_to_move(self) -> bool:
        return not self.state.is_terminal() and self.state.current_player() == self.lesson.seat

    def play(self, text: str) -> None:
        state, seat = self.state, self.lesson.seat
        action = state.string_to_action(text)
        self.made.setdefault(state.current_player(), []).append(text)
        if not self.listen:
            state.apply_action(action)
            return
        self.seen.append(state.action_event_seen_by(action, seat))
        state.apply_action(action)
        self.seen.extend(state.last_events_seen_by(seat))

    def line_move(self, among: Sequence[str] = ()) -> int:
        """The player to move's next line move (of ``among``, when given and one of them is)."""
        state = self.state
        player = state.current_player()
        legal = state.legal_action_strings()
        allowed = set(among) if among else set(legal)
        left = Counter(self.made.get(player, []))
        for text in self.lesson.line_of(player):
            if left[text]:
                left[text] -= 1
            elif text in allowed and text in legal:
                return state.string_to_action(text)
        pool = sorted(state.string_to_action(t) for t in (among or legal) if t in legal)
        return pool[0]

    def moment(self) -> Moment:
        return Moment(
            obs=self.state.observation(self.lesson.seat),
            legal=self.state.legal_action_strings(),
            events=list(self.seen),
            decision=len(self.made.get(self.lesson.seat, [])),
            taught=frozenset(self.taught),
        )

    def teach(self, moment: Moment) -> tuple[list[str], list[str], list[str], Step | None]:
        """The steps taught at ``moment`` (every step not yet taught whose moment this is, in the
        lesson's order; a step that asks for moves waits while an earlier one asks): their sentences,
        their rules, the moves asked for and the step asking."""
        texts: list[str] = []
        rules: list[str] = []
        asked: list[str] = []
        asker: Step | None = None
        for step in self.lesson.steps:
            if step.rule in moment.taught or not step.when(moment):
                continue
            wanted = [m for m in step.expect(moment) if m in moment.legal]
            if wanted and asked:
                continue  # one request at a time: this step waits for a later decision
            texts.append(step.text(moment))
            rules.append(step.rule)
            if wanted:
                asked, asker = wanted, step
        self.taught.update(rules)
        return texts, rules, asked, asker

    def decide(self, course: bool) -> Note:
        """The pupil's decision now: the steps taught, and the moves the lesson takes (in a lesson
        that leaves the pupil free, worked out only with ``course``: it plays the game on for each)."""
        moment = self.moment()
        texts, rules, asked, asker = self.teach(moment)
        pool = asked or moment.legal
        choice = len(moment.legal) > 1
        if not self.lesson.free:  # the line's move, always (cheap: no game is played on)
            taken = [self.state.action_to_string(self.line_move(asked))]
            shown = [*texts, *asked, *taken]
            if choice:
                texts.append(f"Next on the lesson's line: {self.lesson.words(taken[0])}.")
        else:
            taken = self.course(pool) if course else list(pool)
            shown = [*texts, *asked]
            if set(taken) != set(pool):
                texts.append(self.steer(pool, taken))
        expect = taken if asked or (choice and set(taken) != set(moment.legal)) else []
        for gloss in self.lesson.glossary:
            found = re.search(gloss.pattern, " ".join(shown)) if gloss.name not in self.explained else None
            if found is not None:
                self.explained.add(gloss.name)
                texts.append(gloss.text.format(found[0], *found.groups()))
        note = Note(" ".join(texts), expect, tuple(rules), asker.rule if asker else None, tuple(asked))
        self.moments.append((moment, note))
        self.seen = []
        return note

    def steer(self, pool: list[str], taken: list[str]) -> str:
        """Why the lesson takes only ``taken`` of the moves in ``pool`` (a free lesson)."""
        other = next(m for m in pool if m not in taken)
        lost = self.after(other).missing() or "the rest of the lesson"
        moves = or_list([self.lesson.words(m) for m in taken])
        return f"The lesson keeps this deal on course for {lost}: play {moves}."

    def course(self, pool: list[str]) -> list[str]:
        """Of ``pool`` (the moves asked for, else every legal move), those that keep the lesson's
        promise (the module docstring), in notation order; never none, so a game off the course
        still goes on."""
        kept = [m for m in pool if self.after(m).missing() is None]
        return kept or list(pool)

    def after(self, move: str) -> _Walk:
        """This walk (at a decision of the pupil, already taught) after the pupil's ``move``."""
        other = self.clone()
        other.seen = []
        other.play(move)
        return other

    def missing(self) -> str | None:
        """Played on to the end along the line (the pupil's line moves, the asked ones where a step
        asks), the topic of the first step that never came up, or None when every step did."""
        walk = self.clone()
        state = walk.state
        while not state.is_terminal():
            if walk.pupil_to_move():
                _, _, asked, _ = walk.teach(walk.moment())
                walk.seen = []
                action = walk.line_move(asked)
            else:
                action = walk.line_move()
            walk.play(state.action_to_string(action))
        for step in self.lesson.steps:
            if step.rule not in walk.taught:
                return step.topic
        return None


# -- what a screen asks of a lesson ----------------------------------------------------------------


@lru_cache(maxsize=512)
def _current(lesson: Lesson, history: tuple[str, ...]) -> tuple[Moment, Note] | None:
    walk = _Walk.replay(lesson, history, notes=True)
    return walk.moments[-1] if walk.pupil_to_move() and walk.moments else None


def current(lesson: Lesson, state: State) -> tuple[Moment, Note] | None:
    """The pupil's current decision in ``state`` (a game of this lesson) and its note, or None when it
    is not the pupil's turn. Depends on the game's history alone (and is remembered for it)."""
    if state.is_terminal() or state.current_player() != lesson.seat:
        return None
    return _current(lesson, tuple(state.history_strings()))


def coach(lesson: Lesson, state: State) -> Note | None:
    """The note for the pupil's current decision in ``state``, or None when it is not the pupil's turn."""
    found = current(lesson, state)
    return found[1] if found else None


def pupil_moves(lesson: Lesson, actions: Sequence[str]) -> int:
    """How many of ``actions`` the pupil made."""
    return len(_Walk.replay(lesson, actions).made.get(lesson.seat, []))


def refuse(lesson: Lesson, state: State, move: str) -> str | None:
    """Why the lesson will not play the pupil's legal ``move`` now (one sentence), or None when it is
    taken (or when it is not the pupil's turn, or ``move`` is not legal: the engine refuses that)."""
    found = current(lesson, state)
    if found is None:
        return None
    moment, note = found
    if move not in moment.legal or not note.expect or move in note.expect:
        return None
    takes = f"play {or_list(note.expect)}"
    if note.asker is not None and move not in note.asked:
        step = next(s for s in lesson.steps if s.rule == note.asker)
        if step.wrong is None:
            return f"{move} may be played, but this step is about {step.topic}: {takes}."
        return step.wrong(moment, move)
    if not lesson.free:  # every later move's cost hangs on this one: the lesson keeps to its line
        return f"{move} may be played, but this lesson follows one line through the game: {takes}."
    walk = _Walk.replay(lesson, state.history_strings(), notes=True, course=False)
    lost = walk.after(move).missing() or "the rest of the lesson"
    return f"{move} may be played, but then this deal would never come to {lost}: {takes}."


def untaught(lesson: Lesson, state: State) -> list[Step]:
    """The steps the game so far has not reached."""
    taught = _Walk.replay(lesson, state.history_strings(), notes=True, course=False).taught
    return [s for s in lesson.steps if s.rule not in taught]


def closing(lesson: Lesson, state: State) -> str:
    """The closing words of a finished game of the lesson. A pupil who made the lesson's moves met
    every step; a game that left the lesson's course some other way (a record played elsewhere) has
    the steps it missed named first."""
    missed = untaught(lesson, state)
    if not missed:
        return lesson.outro
    return (
        "This game left the lesson's course before these came up: "
        + ", ".join(s.topic for s in missed)
        + " (the rules explain them). "
        + lesson.outro
    )


def guided_line(lesson: Lesson) -> tuple[State, list[tuple[Moment, Note]]]:
    """The lesson played by a pupil who makes its own line moves: the line itself, with its notes as
    the pupil is shown them."""
    walk = _Walk(lesson)
    while not walk.state.is_terminal():
        if walk.pupil_to_move():
            note = walk.decide(course=True)
            action = walk.line_move(note.asked)
        else:
            action = walk.line_move()
        walk.play(walk.state.action_to_string(action))
    return walk.state, walk.moments


def line_of_play(lesson: Lesson, choose: Callable[[State, list[str]], str]) -> tuple[str, ...]:
    """A line for a lesson being written: its game played from its deal, every move chosen by
    ``choose(state, asked)``, where ``asked`` holds the moves a step asks of the pupil at its decision
    (else it is empty); a pupil's move outside them is replaced by the first asked."""
    walk = _Walk(lesson)
    while not walk.state.is_terminal():
        asked: list[str] = []
        if walk.pupil_to_move():
            _, _, asked, _ = walk.teach(walk.moment())
            walk.seen = []
        text = choose(walk.state, asked)
        walk.play(text if not asked or text in asked else asked[0])
    return tuple(walk.state.history_strings())


def free_decisions(lesson: Lesson, actions: Sequence[str]) -> list[int]:
    """The indices (in ``actions``) of the pupil's decisions where the lesson took any legal move:
    the choices that were the pupil's own. A review of a lesson's game judges those only."""
    walk = _Walk(lesson)
    out: list[int] = []
    for i, text in enumerate(actions):
        if walk.pupil_to_move():
            legal = walk.state.legal_action_strings()
            if len(legal) > 1 and not walk.decide(course=True).expect:
                out.append(i)
            walk.seen = []
        walk.play(text)
    return out


# -- finding the lessons ---------------------------------------------------------------------------


def lessons() -> list[Lesson]:
    """Every lesson of every registered game: the ``LESSONS`` of each game's ``lesson`` part, the
    games in the registry's order."""
    found: list[Lesson] = []
    for name in game_names():
        part = game_part(name, "lesson")
        if part is not None:
            found.extend(getattr(part, "LESSONS", ()))
    return found


def lesson(name: str) -> Lesson:
    """The lesson with id ``name``, or a game's name for its first lesson."""
    every = lessons()
    for one in every:
        if one.id == name:
            return one
    for one in every:
        if one.game == name:
            return one
    raise GameError(f"no lesson {name[:40]!r}; lessons: {', '.join(sorted(x.id for x in every))}")
