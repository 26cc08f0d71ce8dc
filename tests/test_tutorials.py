"""The tutorials (docs/tutorials.md): each lesson, played along its line, teaches every rule it names,
asks only for legal moves, and names only rules the engine applies at that moment; a move the lesson
does not want is explained and not played; and a person can take the lesson in a terminal."""

from __future__ import annotations

import pytest

from gamester.core.errors import GameError
from gamester.core.words import pretty
from gamester.play.tutorials import Moment, Note, coach, guided_line, refuse, tutorial, tutorials, untaught
from tests.test_terminal import Terminal

LESSONS = [t.id for t in tutorials()]


def test_one_lesson_per_game() -> None:
    assert sorted(t.game for t in tutorials()) == ["penneech", "pentyrch", "piquesept"]


@pytest.mark.parametrize("name", LESSONS)
def test_the_line_teaches_every_step_once_with_legal_requests(name: str) -> None:
    lesson = tutorial(name)
    state, seen = guided_line(lesson)
    assert state.is_terminal(), "the lesson's line is a whole game"
    taught = [rule for _, note in seen for rule in note.rules]
    assert sorted(taught) == sorted(s.rule for s in lesson.steps), "every step, each exactly once"
    assert untaught(lesson, state) == []
    for moment, note in seen:
        assert set(note.expect) <= set(moment.legal)
        assert note.asker is None or note.asker in note.rules
        assert not note.expect or note.asker is not None
        if note.rules:
            assert note.text.strip() and len(note.text) < 900


def _moment_of(name: str, rule: str) -> tuple[Moment, Note, object]:
    lesson = tutorial(name)
    _, seen = guided_line(lesson)
    for moment, note in seen:
        if rule in note.rules:
            return moment, note, lesson
    raise AssertionError(f"{rule} never taught")


def _state_at(name: str, decision: int) -> object:
    """The lesson's state at the pupil's ``decision``-th decision along the line."""
    lesson = tutorial(name)
    state, _ = guided_line(lesson)
    replay = lesson.new_state()
    mine = 0
    for text in state.history_strings():
        if replay.current_player() == lesson.seat:
            if mine == decision:
                return replay
            mine += 1
        replay.apply_action(replay.string_to_action(text))
    raise AssertionError("no such decision")


def _illegal(state: object, card: str) -> bool:
    s = state.clone()  # type: ignore[attr-defined]
    try:
        s.apply_action(s.string_to_action(card))
    except GameError:
        return True
    return False


def test_penneech_follow_lesson_is_the_engine_s_rule() -> None:
    """docs/rules/penneech.md, Tricks (follow=suit_or_trump): holding the led suit, the follower may
    play that suit or a trump and nothing else. The lesson speaks only where the engine refuses the
    rest of the hand, and every card it says may not be played is refused by the engine."""
    moment, note, _ = _moment_of("penneech", "follow_or_trump")
    led, trump = moment.obs["trick"][0][1], moment.obs["trump"]
    barred = [c for c in moment.obs["hand"] if c[1] not in (led, trump)]
    assert barred, "the rule must bar some card here"
    state = _state_at("penneech", moment.decision)
    assert all(_illegal(state, c) for c in barred)
    assert not any(_illegal(state, c) for c in moment.obs["hand"] if c[1] in (led, trump))
    assert note.expect and all(c[1] in (led, trump) for c in note.expect)


def test_penneech_redeal_lesson_is_offered_by_the_engine() -> None:
    """docs/rules/penneech.md, Redeal (above_ten): the hand holds no A, K, Q, J and not the 7D."""
    moment, note, _ = _moment_of("penneech", "redeal")
    assert note.expect == ["redeal"] and {"keep", "redeal"} == set(moment.legal)
    assert not any(c[0] in "AKQJ" or c == "7D" for c in moment.obs["hand"])


def test_piquesept_first_trick_and_trump_duty_are_the_engine_s() -> None:
    """docs/rules/piquesept.md: the soloist leads 7S and every defender plays his highest spade;
    later a defender void in the led suit must trump if he can."""
    moment, note, _ = _moment_of("piquesept", "first_trick")
    assert moment.obs["trick"][0] == "7S"
    spades = [c for c in moment.obs["hand"] if c[1] == "S"]
    order = "7AKQJT98"
    if spades:
        assert moment.legal == [min(spades, key=lambda c: order.index(c[0]))]
    moment, _, _ = _moment_of("piquesept", "trump")
    state = _state_at("piquesept", moment.decision)
    led = moment.obs["trick"][0][1]
    assert not any(c[1] == led for c in moment.obs["hand"])
    assert all(_illegal(state, c) for c in moment.obs["hand"] if c[1] != "S")


def test_pentyrch_lessons_name_moves_of_their_kind() -> None:
    """docs/rules/pentyrch.md, A turn: the moves each step asks for are of the kind it teaches."""
    _, note, _ = _moment_of("pentyrch", "combine")
    assert note.expect and all("+" in m.rsplit(" ", 1)[1] for m in note.expect)
    _, note, _ = _moment_of("pentyrch", "show")
    assert note.expect and all(" =" in m for m in note.expect)
    _, note, _ = _moment_of("pentyrch", "home")
    assert note.expect and all(m.endswith(" off") for m in note.expect)
    moment, note, _ = _moment_of("pentyrch", "trap")
    for move in note.expect:
        target = move.split()[1].split("-")[-1].lstrip("@")
        stack = moment.obs["board"][target]["stack"]
        assert stack and stack[-1][1] != "H", "trapping covers an opponent's card"


@pytest.mark.parametrize("name", LESSONS)
def test_a_move_the_lesson_does_not_want_is_refused_with_a_reason(name: str) -> None:
    lesson = tutorial(name)
    _, seen = guided_line(lesson)
    asked = [(m, n) for m, n in seen if n.expect and set(n.expect) != set(m.legal)]
    assert asked, "the lesson asks for a particular move somewhere"
    moment, note = asked[0]
    state = _state_at(name, moment.decision)
    assert coach(lesson, state) == note  # the note depends on the history alone
    other = next(x for x in moment.legal if x not in note.expect)
    why = refuse(lesson, state, note, other)
    assert why and other in why
    assert refuse(lesson, state, note, note.expect[0]) is None


def _line_inputs(name: str) -> list[str]:
    """The pupil's moves along the lesson's line, in notation."""
    lesson = tutorial(name)
    state, _ = guided_line(lesson)
    replay = lesson.new_state()
    out = []
    for text in state.history_strings():
        if replay.current_player() == lesson.seat:
            out.append(text)
        replay.apply_action(replay.string_to_action(text))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_the_lesson_in_a_terminal(name: str) -> None:
    """A person takes the lesson through a pseudo-terminal: the intro, every step's sentence, a
    refused move explained and asked again, and the closing words."""
    lesson = tutorial(name)
    _, seen = guided_line(lesson)
    moves = _line_inputs(name)
    t = Terminal("play", name, "--tutorial")
    try:
        t.expect("Lesson: ")
        wrong_done = False
        for (moment, note), move in zip(seen, moves, strict=True):
            t.expect(r"\n> ")
            if note.expect and not wrong_done and set(note.expect) != set(moment.legal):
                other = next(x for x in moment.legal if x not in note.expect)
                t.send(other)
                t.expect(r"Lesson: [^\n]*")
                t.expect(r"\n> ")
                wrong_done = True
            t.send(move)
        assert wrong_done
        t.expect(r"Play a real game next:[\s\S]*?gamester\s+play")
        assert t.proc.wait(timeout=60) == 0
    finally:
        if t.proc.poll() is None:
            t.proc.kill()
    screen = " ".join(t.text.split())
    for text in [lesson.intro, *(note.text for _, note in seen if note.text), lesson.outro]:
        assert " ".join(pretty(text).split()) in screen
