"""The lessons (docs/tutorials.md): found in the games' folders through the registry; each keeps its
line: its computer players make the line's moves, a move it does not take is refused with a reason,
and every pupil who makes the moves it takes (at random where it takes several) meets every rule
moment it promises, checked here from the game's own events; its notation is explained the first time
it is shown; seats are named by each screen; and a person can take it in a terminal."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from gamester.core.errors import GameError
from gamester.core.lesson import (
    Lesson,
    coach,
    free_decisions,
    guided_line,
    lesson,
    lessons,
    line_of_play,
    name_seats,
    refuse,
)
from gamester.core.protocol import State
from gamester.core.words import pretty
from tests.test_terminal import Terminal

LESSONS = [t.id for t in lessons()]


def test_each_game_s_lessons_are_found_in_its_folder() -> None:
    """Through the registry (``game_part(game, "lesson")``), as a game's renderer is; one or two a
    game, in the registry's order of games."""
    found = lessons()
    assert [t.game for t in found] == sorted(t.game for t in found)
    assert sorted({t.game for t in found}) == ["penneech", "pentyrch", "piquesept"]
    assert len(LESSONS) == len(set(LESSONS)) == 6
    for t in found:
        assert type(t).__module__ == "gamester.core.lesson"
        assert t.steps and t.line
    assert lesson("piquesept").id == "piquesept"  # a game's name: its first lesson
    with pytest.raises(GameError, match="lessons: penneech"):
        lesson("chess")


@pytest.mark.parametrize("name", LESSONS)
def test_the_line_is_a_whole_game_that_teaches_every_step_once(name: str) -> None:
    t = lesson(name)
    state, seen = guided_line(t)
    assert state.is_terminal(), "the lesson's line is a whole game"
    assert state.history_strings() == list(t.line), "a pupil making its own line moves walks the line"
    taught = [rule for _, note in seen for rule in note.rules]
    assert sorted(taught) == sorted(s.rule for s in t.steps), "every step, each exactly once"
    for moment, note in seen:
        assert set(note.expect) <= set(moment.legal)
        assert note.asker is None or note.asker in note.rules
        assert len(note.text) < 900


# -- the rule moments, seen from the game's events ----------------------------------------------


@dataclass
class Trace:
    """A game of a lesson as the pupil lived it: at each decision its observation, legal moves, the
    events it saw since the last one and the move it made; and every event of the game."""

    seat: int
    decisions: list[tuple[dict[str, Any], list[str], list[dict[str, Any]], str]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def pupil_events(self) -> list[dict[str, Any]]:
        return [e for _, _, seen, _ in self.decisions for e in seen]


def trace(t: Lesson, actions: list[str]) -> Trace:
    state = t.new_state()
    out = Trace(t.seat)
    since: list[dict[str, Any]] = []
    for text in actions:
        a = state.string_to_action(text)
        if state.current_player() == t.seat:
            out.decisions.append((state.observation(t.seat), state.legal_action_strings(), since, text))
            since = []
        since.append(state.action_event_seen_by(a, t.seat))
        state.apply_action(a)
        since.extend(state.last_events_seen_by(t.seat))
        out.events.extend(state.last_events())
    out.decisions.append(({}, [], since, ""))  # what the pupil saw after its last move
    return out


def _following(obs: dict[str, Any]) -> bool:
    return obs.get("phase") == "play" and bool(obs.get("trick"))


def _led(obs: dict[str, Any]) -> str:
    return str(obs["trick"][0][1])


def _suits(obs: dict[str, Any], suit: str) -> set[str]:
    return {c for c in obs["hand"] if c[1] == suit}


def _penneech_restricted(obs: dict[str, Any], legal: list[str]) -> bool:
    """rules/penneech.md, Tricks: holding the led suit, only that suit or a trump may be played."""
    if not (_following(obs) and _suits(obs, _led(obs))) or obs["trump"] == _led(obs):
        return False
    return set(legal) != set(obs["hand"])


def _cover(e: dict[str, Any]) -> bool:
    return e["type"] in ("move", "enter") and e.get("how") == "cover"


def _pupil_moved(tr: Trace, pred: Callable[[str], bool]) -> bool:
    return any(pred(move) for _, _, _, move in tr.decisions if move)


# Each promised moment, as it shows in the events (an independent reading of the rules, not the
# lesson's own test of its moment).
WITNESS: dict[str, Callable[[Trace], bool]] = {
    # Penneech
    "turn_up": lambda tr: tr.decisions[0][0]["turn_up"] is not None and not tr.decisions[0][0]["trick"],
    "honour_turned": lambda tr: any(e["type"] == "turn_up" and e["points"] > 0 for e in tr.pupil_events()),
    "follow_or_trump": lambda tr: any(_penneech_restricted(o, lg) for o, lg, _, _ in tr.decisions if o),
    "void": lambda tr: any(
        o.get("phase") == "play" and len(o["trick"]) == 1 and not _suits(o, _led(o))
        for o, _, _, _ in tr.decisions
        if o
    ),
    "honours_won": lambda tr: any(e["type"] == "trick" and e["points"] > 0 for e in tr.events),
    "winner_turns": lambda tr: any(
        a["type"] == "trick" and b["type"] == "turn_up" and b["seat"] == a["winner"]
        for a, b in zip(tr.events, tr.events[1:], strict=False)
    ),
    "card_bonus": lambda tr: any(e["type"] == "card_bonus" for e in tr.events),
    "redeal": lambda tr: tr.decisions[0][3] == "redeal",
    "penneech": lambda tr: any(
        o.get("phase") == "play" and "7D" in o["hand"] for o, _, _, _ in tr.decisions if o
    ),
    "penneech_trump": lambda tr: any(o.get("trump") == "D" and m == "7D" for o, _, _, m in tr.decisions if o),
    "penneech_won": lambda tr: any(
        e["type"] == "trick" and "7D" in e["cards"] and e["points"] >= 7 for e in tr.events
    ),
    # Piquesept
    "first_trick": lambda tr: tr.decisions[0][0]["phase"] == "first_trick",
    "draw_and_give": lambda tr: any(e["type"] == "give" and e["drawer"] == tr.seat for e in tr.events),
    "card_points": lambda tr: any(e["type"] == "trick" and e["points"] > 0 for e in tr.pupil_events()),
    "follow": lambda tr: any(
        _following(o) and set(lg) == _suits(o, _led(o)) != set(o["hand"]) and bool(lg)
        for o, lg, _, _ in tr.decisions
        if o
    ),
    "trump": lambda tr: any(
        _following(o)
        and not _suits(o, _led(o))
        and _led(o) != "S"
        and set(lg) == _suits(o, "S") != set(o["hand"])
        for o, lg, _, _ in tr.decisions
        if o and _suits(o, "S")
    ),
    "count": lambda tr: any(
        o.get("phase") == "play" and max(o["side_points"]) >= 40 for o, _, _, _ in tr.decisions if o
    ),
    "three_hand": lambda tr: tr.decisions[0][3] == "7S" and tr.decisions[0][0]["players"] == 3,
    "trade": lambda tr: any(e["type"] == "draw" and e["soloist"] == tr.seat for e in tr.events),
    "soloist_free": lambda tr: any(
        _following(o) and _suits(o, _led(o)) and m[1] != _led(o) for o, _, _, m in tr.decisions if o
    ),
    # Pentyrch
    "enter": lambda tr: "@" in tr.decisions[0][3],
    "recap": lambda tr: "@" in tr.decisions[0][3],
    "step": lambda tr: _pupil_moved(tr, lambda m: re.search(r"[a-g][1-7]-[a-g][1-7]", m) is not None),
    "combine": lambda tr: _pupil_moved(tr, lambda m: "+" in m),
    "show": lambda tr: _pupil_moved(tr, lambda m: " =" in m),
    "free_space": lambda tr: any(
        e["type"] == "move" and e["seat"] == tr.seat and e["to"] == "d4" and e["how"] == "free"
        for e in tr.events
    ),
    "home": lambda tr: _pupil_moved(tr, lambda m: m.endswith(" off")),
    "trap": lambda tr: any(
        _cover(e) and e["seat"] == tr.seat and e["covered"][1] != "H" and e["to"] != "d4" for e in tr.events
    ),
    "trapped": lambda tr: any(
        _cover(e) and e["seat"] != tr.seat and e["covered"][1] == "H" for e in tr.events
    ),
    "protect": lambda tr: any(
        _cover(e) and e["seat"] == tr.seat and e["covered"][1] == "H" and e["to"] != "d4" for e in tr.events
    ),
    "centre": lambda tr: any(_cover(e) and e["seat"] == tr.seat and e["to"] == "d4" for e in tr.events),
}


def test_every_step_has_a_witness() -> None:
    assert {s.rule for t in lessons() for s in t.steps} <= set(WITNESS)


def pupil_game(t: Lesson, rng: random.Random) -> tuple[State, list[str], int]:
    """A pupil who tries a random legal move at each decision and, when the lesson refuses it, makes
    a random move of those the lesson takes. Returns the end, the moves and how many were refused."""
    state = t.new_state()
    refused = 0
    while not state.is_terminal():
        p = state.current_player()
        if p != t.seat:
            state.apply_action(t.bot_move(state))
            continue
        note = coach(t, state)
        assert note is not None
        legal = state.legal_action_strings()
        move = rng.choice(legal)
        why = refuse(t, state, move)
        if note.expect and move not in note.expect:
            assert why and "\n" not in why, f"{move} is not taken here, so it is refused with a reason"
            refused += 1
            move = rng.choice(note.expect)
        else:
            assert why is None, f"{move} is taken here, yet refused: {why}"
        state.apply_action(state.string_to_action(move))
    return state, state.history_strings(), refused


def _pupils(name: str, count: int) -> None:
    t = lesson(name)
    rng = random.Random(f"pupils {name}")
    refused = 0
    for _ in range(count):
        state, actions, n = pupil_game(t, rng)
        refused += n
        tr = trace(t, actions)
        missed = [s.rule for s in t.steps if not WITNESS[s.rule](tr)]
        assert not missed, f"a pupil who obeyed the lesson never met {missed}: {actions}"
        # The computer players played the lesson's moves, by its rule, nothing else.
        replay = t.new_state()
        for text in actions:
            if replay.current_player() != t.seat:
                assert replay.action_to_string(t.bot_move(replay)) == text
            replay.apply_action(replay.string_to_action(text))
    assert refused, "random pupils were refused somewhere: the lesson narrows their choices"


@pytest.mark.parametrize("name", LESSONS)
def test_pupils_who_obey_the_refusals_meet_every_promised_moment(name: str) -> None:
    """A few seeded random pupils a lesson (the quick loop); the slow test below takes 200."""
    _pupils(name, 12 if lesson(name).free else 2)


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_two_hundred_pupils_meet_every_promised_moment(name: str) -> None:
    _pupils(name, 200 if lesson(name).free else 6)  # Pentyrch's pupils differ only in what is refused


def test_free_lessons_leave_choices_to_the_pupil() -> None:
    """The card games' lessons take any legal move at most decisions along the line (the choices the
    review judges); Pentyrch's walk the line."""
    for t in lessons():
        free = free_decisions(t, list(t.line))
        assert (len(free) >= 3) == t.free, (t.id, free)


# -- what the lesson says ------------------------------------------------------------------------


def _said(t: Lesson) -> list[str]:
    _, seen = guided_line(t)
    return [t.intro, *(note.text for _, note in seen), t.outro]


@pytest.mark.parametrize("name", LESSONS)
def test_seats_are_written_for_each_screen_to_name(name: str) -> None:
    """No sentence names a seat by number or compass point on its own: ``{seat:N}`` is filled in by
    the screen (the web page's names, the terminal's)."""
    t = lesson(name)
    for text in _said(t):
        assert not re.search(r"\bplayer \d|\(player", text), text
        named = name_seats(text, lambda p: f"<{p}>")
        assert "{seat" not in named
        assert set(re.findall(r"<(\d)>", named)) <= {str(p) for p in range(t.players()) if p != t.seat}
    assert name_seats("{seat:3} led. {seat:1} won.", lambda p: f"casual {p}") == "Casual 3 led. Casual 1 won."


@pytest.mark.parametrize("name", ["pentyrch", "pentyrch-2"])
def test_every_kind_of_notation_is_explained_the_first_time_it_is_shown(name: str) -> None:
    """Pentyrch's moves read ``QH @a4 =7S``: the note that first shows a move with ``@`` or ``=`` (or
    a step, a payment, two cards, bearing off) says what it means."""
    t = lesson(name)
    _, seen = guided_line(t)
    fragment = {g.name: max(re.split(r"\{\d\}", g.text), key=len) for g in t.glossary}
    explained: set[str] = set()
    for _, note in seen:
        for g in t.glossary:
            if g.name not in explained and re.search(g.pattern, " ".join(note.expect)):
                assert fragment[g.name] in note.text, (g.name, note.text)
            if fragment[g.name] in note.text:
                explained.add(g.name)
    assert {"enter", "step", "show", "pay"} <= explained


def test_a_refused_move_names_the_lesson_s_move() -> None:
    """Where a step asks, its own reason; elsewhere, the rule moment the move would lose (free
    lessons) or the line's move (Pentyrch)."""
    t = lesson("penneech-2")
    state = t.new_state()
    assert (
        refuse(t, state, "keep")
        == "You may keep it, but a hand this weak is worth throwing in: ask for a redeal."
    )
    assert refuse(t, state, "redeal") is None
    p = lesson("pentyrch")
    start = p.new_state()
    note = coach(p, start)
    assert note is not None and note.expect == [p.line[0]]
    other = next(m for m in start.legal_action_strings() if m != p.line[0])
    why = refuse(p, start, other)
    assert why and other in why and p.line[0] in why


def test_a_free_lesson_refuses_only_the_moves_that_would_lose_a_moment() -> None:
    """Penneech's second lesson: before diamonds are trumps, playing the 7D would lose the moment it
    promises (the Penneech as trump), so it is refused with that reason; the other cards are taken."""
    t = lesson("penneech-2")
    state = t.new_state()
    state.apply_action(state.string_to_action("redeal"))
    while state.current_player() != t.seat:
        state.apply_action(t.bot_move(state))
    hand = state.observation(t.seat)["hand"]
    assert "7D" in hand and state.observation(t.seat)["trump"] != "D"
    why = refuse(t, state, "7D")
    assert why is not None and "7D" in why
    assert all(refuse(t, state, c) is None for c in state.legal_action_strings() if c != "7D")


# -- at a terminal -------------------------------------------------------------------------------


def _pupil_inputs(t: Lesson) -> list[str]:
    state = t.new_state()
    out = []
    for text in t.line:
        if state.current_player() == t.seat:
            out.append(text)
        state.apply_action(state.string_to_action(text))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_the_lesson_in_a_terminal(name: str) -> None:
    """A person takes the lesson through a pseudo-terminal: the intro, every step's sentence, a
    refused move explained and asked again, and the closing words."""
    t = lesson(name)
    _, seen = guided_line(t)
    moves = _pupil_inputs(t)
    number = [x.id for x in lessons() if x.game == t.game].index(t.id) + 1
    term = Terminal("play", t.game, "--tutorial", str(number))
    try:
        term.expect("Lesson: ")
        wrong_done = False
        for (moment, note), move in zip(seen, moves, strict=True):
            term.expect(r"\n> ")
            if note.expect and not wrong_done and set(note.expect) != set(moment.legal):
                other = next(x for x in moment.legal if x not in note.expect)
                term.send(other)
                term.expect(r"Lesson: [^\n]*")
                term.expect(r"\n> ")
                wrong_done = True
            term.send(move)
        assert wrong_done
        term.expect(r"at\s+a\s+terminal\.")
        assert term.proc.wait(timeout=60) == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    screen = " ".join(term.text.split())
    assert "{seat" not in screen
    names = {p: f"player {p}" for p in range(t.players())}
    if t.game == "pentyrch":
        names = dict(enumerate(["you", "North", "East", "South"]))
    for text in [t.intro, *(note.text for _, note in seen if note.text), t.outro]:
        assert " ".join(pretty(name_seats(text, names.__getitem__)).split()) in screen


def test_a_line_of_play_is_the_game_its_chooser_plays() -> None:
    """``line_of_play`` (how a lesson's line is found, benchmarks/lesson_lines.py) plays the lesson's
    deal with the moves it is given, the asked ones where a step asks."""
    t = lesson("penneech")
    moves = iter(t.line)
    assert line_of_play(t, lambda state, asked: next(moves)) == tuple(t.line)
    first = line_of_play(t, lambda state, asked: state.legal_action_strings()[0])
    replay = t.new_state()
    for text in first:
        replay.apply_action(replay.string_to_action(text))
    assert replay.is_terminal()
