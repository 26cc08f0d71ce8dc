"""Terminal play: a person against computer players, in any game.

The loop is generic; each game supplies a ``render`` module in its own package (found through the
registry: ``games/<game>/render.py`` for the games shipped here, as for a game from another package)
with ``board(observation, names)``, ``narrate(event, seat, names)`` and ``HELP`` (optionally
``narrate_all``, ``names_for``, ``context`` and ``move_groups`` for a two-step choice of move).
Everything shown is built from the person's own observation, the events meant for their seat and
``action_seen_by``, so the terminal cannot show a hidden card.

The table is drawn before anyone thinks; when a computer player takes longer than a moment a
"thinking…" line says so.
"""

from __future__ import annotations

import json
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, TextIO

from gamester.agents.base import Agent, View
from gamester.core.columns import WIDTH as WIDTH  # re-exported: terminal play's width, fit and listing
from gamester.core.columns import fit as fit
from gamester.core.columns import listing as listing
from gamester.core.errors import GameError, IllegalActionError
from gamester.core.lesson import Lesson, closing, coach, name_seats, refuse
from gamester.core.protocol import State
from gamester.core.words import Names, and_list, player_message, pretty

THINKING_AFTER = 0.6  # seconds before "thinking…" is shown
COMMANDS_HELP = (
    "Commands: a move's number or the move itself; 'board' shows the table again,\n"
    "'hint' asks the computer, 'help' shows this, 'quit' leaves (you may save the\n"
    "game to resume)."
)


def renderer(game_name: str) -> ModuleType | None:
    """How the terminal draws a game: the ``render`` module of the game's own package, found through
    the registry (the shipped games and a game from another package alike), else None (observations
    are printed as they are, and so for a name that is not a registered game)."""
    from gamester.core.registry import game_part

    try:
        return game_part(game_name, "render")
    except GameError:  # not a registered game: nothing to draw it with
        return None


def describe_agent(spec: str, game_name: str) -> str:
    """The computer player in a player's words: what it is and how strong."""
    from gamester.agents import best_agent_spec

    base = spec.split(":", 1)[0]
    if spec == best_agent_spec(game_name) or base == best_agent_spec(game_name).split(":", 1)[0]:
        return f"{base} (strong: gamester's best here)"
    return {
        "random": "random (the easiest: any legal move at random)",
        "heuristic": "heuristic (a beginner: simple rules of thumb)",
    }.get(base, f"{spec} (a searching player: strong)")


def explain_refusal(state: State, action: int, seat: int) -> str:
    """The one sentence a player reads when ``action`` is refused: the game's own explanation in a
    player's words (``state.explain_illegal``), else its engine message cleaned for a player."""
    explain = getattr(state, "explain_illegal", None)
    if callable(explain):
        return str(explain(action))
    try:
        state.clone().apply_action(action)
    except GameError as e:
        return f"{player_message(str(e), seat)}."
    return "that move is not allowed here."


class TerminalGame:
    """One game between a person at ``seat`` and ``agents`` (one per player; ``None`` at the seat).

    ``hint_agent`` (or, when a hint is asked for without one, ``hint_factory()``) gives hints.
    ``status`` after :meth:`run`: ``"over"``, ``"quit"`` (typed), ``"eof"`` (end of input).
    Ctrl-C is not caught here: it leaves the program (exit 130, see ``cli``).
    """

    def __init__(
        self,
        state: State,
        seat: int,
        agents: Sequence[Agent | None],
        *,
        inp: Callable[[str], str] = input,
        out: TextIO | None = None,
        hint_agent: Agent | None = None,
        hint_factory: Callable[[], Agent] | None = None,
        specs: Sequence[str | None] | None = None,
        resumed: bool = False,
        tutorial: Lesson | None = None,
    ) -> None:
        self.state = state
        self.tutorial = tutorial
        self.seat = seat
        self.agents = list(agents)
        self.inp = inp
        self.out = out if out is not None else sys.stdout
        self.hint_agent = hint_agent
        self.hint_factory = hint_factory
        self.specs = list(specs) if specs is not None else [None] * len(self.agents)
        self.resumed = resumed
        self.render = renderer(state.game.name)
        self.status = "playing"
        n = state.game.num_players
        self.base_names = Names(seat, tuple(f"player {p}" for p in range(n)))
        self.ctx: dict[str, Any] = {}
        if self.render is not None and hasattr(self.render, "context"):
            self.ctx = self.render.context(state.game)

    # -- output ------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        """Print ``text``, every line of it fitted to :data:`WIDTH` columns (a refusal that quotes
        the notation, a hint, a move: whatever the message, the terminal never wraps it)."""
        print(fit(text) + ("\n" if text.endswith("\n") else ""), file=self.out, flush=True)

    def say_line(self, text: str) -> None:
        """One indented line of narration, wrapped to fit :data:`WIDTH` columns (continued further
        in); notation such as ``a4-b4`` is never split."""
        self.say(
            textwrap.fill(
                text,
                WIDTH,
                initial_indent="  ",
                subsequent_indent="    ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )

    def teach(self, text: str) -> None:
        """A sentence of the lesson, set apart from the narration, each seat named as this screen
        names it."""
        names = self.names()
        self.say(
            textwrap.fill(
                pretty(name_seats(text, names)),
                WIDTH,
                initial_indent="Lesson: ",
                subsequent_indent="        ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )

    def names(self) -> Names:
        if self.render is not None and hasattr(self.render, "names_for"):
            names: Names = self.render.names_for(self.state.observation(self.seat), self.base_names)
            return names
        return self.base_names

    def narrate(self) -> None:
        events = self.state.last_events()
        if self.render is None:
            for ev in events:
                if "seats" not in ev or self.seat in ev["seats"]:
                    self.say_line(json.dumps(ev))
            return
        nm = self.names()
        if hasattr(self.render, "narrate_all"):
            lines = self.render.narrate_all(events, self.seat, nm)
        else:
            lines = [x for x in (self.render.narrate(ev, self.seat, nm) for ev in events) if x]
        for line in lines:
            self.say_line(line)

    def show(self) -> None:
        obs = self.state.observation(self.seat)
        if self.render is None:
            self.say(json.dumps(obs, indent=1))
        else:
            self.say(self.render.board(obs, self.names(), **self.ctx))

    def banner(self) -> None:
        st = self.state
        n = st.game.num_players
        nm = self.names()
        self.say(
            f"{st.game.title}: you are {self._me_label(nm)}, one of {n} players."
            + (" Resuming a saved game." if self.resumed else "")
        )
        by_what: dict[str, list[int]] = {}
        for p in range(n):
            if p == self.seat:
                continue
            spec = self.specs[p] if p < len(self.specs) else None
            agent = self.agents[p]
            what = describe_agent(spec, st.game.name) if spec else (agent.name if agent else "?")
            by_what.setdefault(what, []).append(p)
        for what, ps in by_what.items():
            listed = and_list([nm(p) for p in ps])
            self.say_line(f"{listed[0].upper() + listed[1:]}: the computer, {what}.")
        self.say("Type a move's number (or the move itself); 'help' explains the notation.")
        if self.tutorial is not None:
            self.say()
            self.teach(self.tutorial.intro)

    def _me_label(self, nm: Names) -> str:
        own = nm.labels[self.seat] if self.seat < len(nm.labels) else ""
        return f"player {self.seat}" + (f" ({own})" if own and own != f"player {self.seat}" else "")

    # -- the game ----------------------------------------------------------------------------
    def run(self) -> bool:
        """Play to the end. Returns True when the game is over, False if the person left early."""
        st = self.state
        self.banner()
        if not self.resumed:
            self.narrate()
        self.say()
        self.show()
        shown = True
        while not st.is_terminal():
            p = st.current_player()
            agent = self.agents[p]
            if agent is None:
                action = self.ask(show=not shown)
                while action is not None and self.tutorial is not None:
                    why = refuse(self.tutorial, st, st.action_to_string(action))
                    if why is None:
                        break
                    self.teach(why)  # a move the lesson does not want is explained, never played
                    action = self.ask(show=False, again=True)
                if action is None:
                    return False
                mover = "You"
            elif self.tutorial is not None:  # the lesson's computer players play its line
                action = self.tutorial.bot_move(st)
                mover = self.names()(p, cap=True)
            else:
                action = self.think(agent, p)
                mover = self.names()(p, cap=True)
            text = st.action_seen_by(action, self.seat)
            if (
                mover
                and not getattr(self.render, "NARRATES_MOVES", False)
                and text not in getattr(self.render, "NARRATED_ACTIONS", ())
            ):
                self.say(f"{mover} played {pretty(text)}.")
            st.apply_action(action)
            self.narrate()
            shown = False
        self.status = "over"
        self.say()
        self.show()
        self.say(textwrap.fill(self.result(), 79, subsequent_indent="  "))
        if self.tutorial is not None:
            self.say()
            self.teach(closing(self.tutorial, st))
        return True

    def think(self, agent: Agent, p: int) -> int:
        """The agent's move, with a "thinking…" line if it takes more than a moment."""
        who = self.names()(p, cap=True)
        if self.render is not None and hasattr(self.render, "to_move"):
            who = self.render.to_move(self.state.observation(self.seat), self.names())
        timer = threading.Timer(THINKING_AFTER, lambda: self.say(f"  ({who} is thinking…)"))
        timer.daemon = True
        timer.start()
        try:
            return agent.step(View(self.state, p))
        finally:
            timer.cancel()

    def result(self) -> str:
        """Who won and by how much, in words."""
        st = self.state
        if self.render is not None and hasattr(self.render, "final"):
            text: str = self.render.final(st.observation(self.seat), self.names())
            return text
        nm = self.base_names
        r = st.returns()
        sc = st.scores()
        best = max(r)
        winners = [p for p, x in enumerate(r) if x == best]
        scores = ", ".join(f"{nm(p)} {sc[p]}" for p in range(len(sc)))
        if len(winners) == len(r):
            return f"Game over: a draw. Final scores: {scores}."
        if self.seat in winners:
            others = [q for q in winners if q != self.seat]
            head = "You won" + (f" with {' and '.join(nm(q) for q in others)}" if others else "")
        else:
            head = " and ".join(nm(q, cap=i == 0) for i, q in enumerate(winners)) + " won"
        margin = ""
        if len(sc) == 2 and len(winners) == 1:
            w = winners[0]
            margin = f", by {sc[w] - sc[1 - w]} points ({sc[w]} to {sc[1 - w]})"
        return f"Game over: {head}{margin}. Final scores: {scores}."

    # -- the person's turn -------------------------------------------------------------------
    def read(self) -> str | None:
        try:
            return self.inp("> ").strip()
        except EOFError:
            self.say("\nEnd of input: leaving the game.")
            self.status = "eof"
            return None

    def ask(self, show: bool = True, again: bool = False) -> int | None:
        """The person's move (``again``: asked once more after the lesson refused one)."""
        st = self.state
        if show:
            self.say()
            self.show()
        legal = st.legal_actions()
        names = st.legal_action_strings()  # one pass: Pentyrch overpay positions hold 100,000+ moves
        if self.tutorial is not None and not again:
            note = coach(self.tutorial, st)
            if note is not None and note.text:
                self.teach(note.text)
        if self.hint_agent is not None and not again:
            self.hint()
        groups = None
        if self.render is not None and hasattr(self.render, "move_groups"):
            groups = self.render.move_groups(names)
        self.list_moves(names, groups)
        while True:
            raw = self.read()
            if raw is None:
                return None
            if not raw:
                continue
            low = raw.lower()
            if low in ("quit", "exit", "q"):
                self.status = "quit"
                return None
            if low in ("help", "?", "h"):
                self.say(getattr(self.render, "HELP", "Write a move as the game's notation."))
                self.say(COMMANDS_HELP)
                continue
            if low == "board":
                self.show()
                self.list_moves(names, groups)
                continue
            if low == "hint":
                self.hint()
                continue
            if low in ("moves", "list"):
                self.list_moves(names, groups)
                continue
            if raw.isdigit():
                i = int(raw)
                count = len(groups) if groups is not None else len(legal)
                if not 1 <= i <= count:
                    self.say(f"There is no move number {i}: choose 1 to {count}.")
                    continue
                if groups is None:
                    return legal[i - 1]
                chosen = self.pay(groups[i - 1], legal)
                if chosen is None:
                    if self.status != "playing":
                        return None
                    self.list_moves(names, groups)
                    continue
                return chosen
            try:
                action = st.string_to_action(raw)
            except IllegalActionError as e:  # read, and already refused by a rule (Pentyrch's steps)
                self.say(f"Not allowed: {player_message(str(e), self.seat)}.")
                continue
            except GameError as e:
                self.say(
                    f"Not understood: {player_message(str(e), self.seat)}. Type 'help' for the notation."
                )
                continue
            if action not in legal:
                self.say(f"Not allowed: {explain_refusal(st, action, self.seat)}")
                continue
            return action

    def list_moves(self, names: list[str], groups: Any) -> None:
        if groups is None:
            self.say(listing("Your moves: ", [f"[{i + 1}] {pretty(n)}" for i, n in enumerate(names)]))
        else:
            self.say("Your moves (court card, then where to; you choose the payment next):")
            for line in self.render.format_groups(groups):  # type: ignore[union-attr]
                self.say(line)

    def pay(self, group: Any, legal: list[int]) -> int | None:
        """The second step of a Pentyrch choice: the payment, when there is more than one."""
        if len(group.moves) == 1:
            return int(legal[group.moves[0][0]])
        for line in self.render.format_payments(group):  # type: ignore[union-attr]
            self.say(line)
        while True:
            raw = self.read()
            if raw is None:
                return None
            low = raw.lower()
            if low in ("back", "b", ""):
                return None
            if low in ("quit", "exit", "q"):
                self.status = "quit"
                return None
            if raw.isdigit() and 1 <= int(raw) <= len(group.moves):
                return int(legal[group.moves[int(raw) - 1][0]])
            self.say(f"Choose a payment 1 to {len(group.moves)}, or 'back'.")

    def hint(self) -> None:
        if self.hint_agent is None and self.hint_factory is not None:
            self.say("  (asking the strongest computer player…)")
            self.hint_agent = self.hint_factory()
        if self.hint_agent is None:
            self.say("No hint is available for this game.")
            return
        view = View(self.state, self.seat)
        info: dict[str, Any] | None = self.hint_agent.evaluate(view)
        if info is None:
            a = self.hint_agent.step(view)
            self.say(f"Hint: {pretty(self.state.action_to_string(a))}.")
            return
        msg = f"Hint: {pretty(self.state.action_to_string(info['action']))}"
        if info.get("win_probability") is not None:
            msg += f" (estimated chance of winning {100 * info['win_probability']:.0f}%)"
        self.say(msg + ".")
