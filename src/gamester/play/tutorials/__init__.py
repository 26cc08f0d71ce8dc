"""Tutorials: a fixed deal against computer players that teaches each rule as it first matters.

A :class:`Tutorial` is data: a game with options, a seed (so the deal is fixed), the pupil's seat,
the agent that plays every other seat (seeded, so its moves are fixed too), and a list of
:class:`Step` s. At each of the pupil's decisions the first step not yet taught whose ``when`` holds
is taught: its sentence, and the moves it asks for (``expect``; empty where any legal move will do).
A move the lesson does not want is explained and asked again, never played.

Everything a step looks at is a :class:`Moment`: the pupil's own observation, legal moves in
notation, and the events the pupil saw since its previous decision, so a lesson can never show a
card the pupil could not see. :func:`coach` rebuilds the lesson from a state's history alone, so a
terminal, a web table or a test all get the same words at the same moment.

The lessons themselves are in this package's modules, one a game (docs/tutorials.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gamester.agents import agent_seed, make_agent
from gamester.core.errors import GameError
from gamester.core.kit import View
from gamester.core.protocol import State
from gamester.core.registry import load_game


@dataclass(frozen=True)
class Moment:
    """What the pupil knows at one of its decisions."""

    obs: dict[str, Any]
    legal: list[str]
    events: list[dict[str, Any]]  # seen by the pupil since its previous decision, oldest first
    decision: int  # how many decisions the pupil made before this one
    taught: frozenset[str]  # the rules already taught


@dataclass(frozen=True)
class Step:
    """One rule, taught the first time ``when`` holds at a decision of the pupil."""

    rule: str  # a short name, e.g. "follow_or_trump"
    when: Callable[[Moment], bool]
    text: Callable[[Moment], str]
    expect: Callable[[Moment], list[str]] = lambda m: []
    # Why a legal move the lesson does not want is not the lesson's move (one sentence).
    wrong: Callable[[Moment, str], str] = lambda m, move: "That is allowed, but not what this step asks."


@dataclass(frozen=True)
class Tutorial:
    id: str
    game: str
    title: str
    options: dict[str, Any]
    seed: int
    seat: int
    intro: str
    steps: Sequence[Step]
    outro: str
    bots: str = "heuristic"

    def new_state(self) -> State:
        return load_game(self.game, **self.options).new_initial_state(seed=self.seed)

    def bot(self, player: int) -> Any:
        """The seeded agent at ``player`` (the same moves every time the lesson is played)."""
        game = load_game(self.game, **self.options)
        return make_agent(self.bots, game=game, seed=agent_seed(self.seed, player))

    def bot_move(self, state: State) -> int:
        """The move the lesson's bot makes in ``state`` (a game of this lesson, a bot to move): its
        seeded agent is stepped through that seat's earlier decisions first, so a caller that builds
        the bot afresh for every move (the server's workers) gets the moves of one bot kept for the
        whole game (the terminal's), and both teach the same line."""
        p = state.current_player()
        agent = self.bot(p)
        replay = self.new_state()
        for text in state.history_strings():
            if replay.current_player() == p:
                agent.step(View(replay, p))
            replay.apply_action(replay.string_to_action(text))
        return int(agent.step(View(replay, p)))


@dataclass(frozen=True)
class Note:
    """What the pupil is told at a decision: the sentence and the moves the lesson wants."""

    text: str
    expect: list[str]
    rules: tuple[str, ...]  # the steps taught here
    asker: str | None  # the step whose moves ``expect`` holds

    def json(self) -> dict[str, Any]:
        return {"text": self.text, "expect": self.expect}


def moments(tutorial: Tutorial, actions: Sequence[str]) -> tuple[State, list[tuple[Moment, Note]]]:
    """Replay ``actions`` (notation) from the tutorial's deal; the pupil's moments with their notes,
    and the state after the last action. The pupil's current decision (if it is the pupil's turn)
    is the last entry."""
    state = tutorial.new_state()
    seat = tutorial.seat
    seen: list[dict[str, Any]] = []
    out: list[tuple[Moment, Note]] = []
    taught: set[str] = set()

    def at_decision() -> None:
        moment = Moment(
            obs=state.observation(seat),
            legal=state.legal_action_strings(),
            events=list(seen),
            decision=len(out),
            taught=frozenset(taught),
        )
        note = _note(tutorial, moment)
        taught.update(note.rules)
        out.append((moment, note))
        seen.clear()

    for text in actions:
        if state.is_terminal():
            raise GameError(f"the lesson is over; {text!r} cannot be played")
        if state.current_player() == seat:
            at_decision()
        action = state.string_to_action(text)
        seen.append(state.action_event_seen_by(action, seat))
        state.apply_action(action)
        seen.extend(state.last_events_seen_by(seat))
    if not state.is_terminal() and state.current_player() == seat:
        at_decision()
    return state, out


def _note(tutorial: Tutorial, moment: Moment) -> Note:
    """Every step not yet taught whose moment this is, in the lesson's order: their sentences
    together, and the moves of the first that asks for some."""
    texts: list[str] = []
    rules: list[str] = []
    expect: list[str] = []
    asker: str | None = None
    for step in tutorial.steps:
        if step.rule in moment.taught or not step.when(moment):
            continue
        wanted = [m for m in step.expect(moment) if m in moment.legal]
        if wanted and expect:
            continue  # one request at a time: this step waits for a later decision
        texts.append(step.text(moment))
        rules.append(step.rule)
        if wanted:
            expect, asker = wanted, step.rule
    return Note(" ".join(texts), expect, tuple(rules), asker)


def coach(tutorial: Tutorial, state: State) -> Note | None:
    """The note for the pupil's current decision in ``state`` (a game of this tutorial), or None
    when it is not the pupil's turn."""
    if state.is_terminal() or state.current_player() != tutorial.seat:
        return None
    _, seen = moments(tutorial, state.history_strings())
    return seen[-1][1]


def refuse(tutorial: Tutorial, state: State, note: Note | None, move: str) -> str | None:
    """Why the lesson will not play ``move`` now (one sentence), or None when it may be played."""
    if note is None or not note.expect or move in note.expect:
        return None
    step = next(s for s in tutorial.steps if s.rule == note.asker)
    moment = moments(tutorial, state.history_strings())[1][-1][0]
    return step.wrong(moment, move)


def untaught(tutorial: Tutorial, state: State) -> list[Step]:
    """The steps the lesson has not reached in the game so far (a pupil who left the lesson's line
    may never meet them; the closing words then list them)."""
    _, seen = moments(tutorial, state.history_strings())
    done = {rule for _, note in seen for rule in note.rules}
    return [s for s in tutorial.steps if s.rule not in done]


def closing(tutorial: Tutorial, state: State) -> str:
    """The lesson's closing words for a finished game: the steps this game never reached (a pupil
    who left the lesson's line), then the outro."""
    missed = untaught(tutorial, state)
    if not missed:
        return tutorial.outro
    return (
        "This game left the lesson's line before these came up: "
        + ", ".join(s.rule.replace("_", " ") for s in missed)
        + " (the rules explain them: Rules on the web, gamester rules at a terminal). "
        + tutorial.outro
    )


def guided_line(tutorial: Tutorial, limit: int = 2000) -> tuple[State, list[tuple[Moment, Note]]]:
    """The lesson played through by a pupil who makes the first move each note expects, and the
    computer player's own move where any move will do: the line the lesson was written for."""
    state = tutorial.new_state()
    seat = tutorial.seat
    pupil = tutorial.bot(seat)
    bots = {p: tutorial.bot(p) for p in range(state.game.num_players) if p != seat}
    actions: list[str] = []
    for _ in range(limit):
        if state.is_terminal():
            break
        p = state.current_player()
        if p == seat:
            note = coach(tutorial, state)
            if note is not None and note.expect:
                action = state.string_to_action(note.expect[0])
            else:
                action = pupil.step(View(state, seat))
        else:
            action = bots[p].step(View(state, p))
        actions.append(state.action_to_string(action))
        state.apply_action(action)
    return moments(tutorial, actions)


GAMES = ("penneech", "piquesept", "pentyrch")  # the games with a lesson, in the order they are listed


def _registry() -> dict[str, Tutorial]:
    import importlib

    found: dict[str, Tutorial] = {}
    for game in GAMES:
        module = importlib.import_module(f"gamester.play.tutorials.{game}")
        for t in module.TUTORIALS:
            found[t.id] = t
    return found


def tutorials() -> list[Tutorial]:
    return list(_registry().values())


def tutorial(name: str) -> Tutorial:
    """The tutorial named ``name`` (its id, or a game's name for that game's first tutorial)."""
    reg = _registry()
    if name in reg:
        return reg[name]
    for t in reg.values():
        if t.game == name:
            return t
    raise GameError(f"no tutorial {name!r}; tutorials: {', '.join(sorted(reg))}")
