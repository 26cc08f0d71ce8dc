"""Terminal play: a person against computer players, in any game.

The loop is generic; each game supplies ``gamester.play.render_<game>`` with ``board(observation)``
and ``narrate(event, seat)``. Everything shown is built from the person's own observation and the
events meant for their seat, so the terminal cannot show a hidden card.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, TextIO

from gamester.agents.base import Agent, View
from gamester.core.errors import GameError
from gamester.core.protocol import State


def renderer(game_name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"gamester.play.render_{game_name}")
    except ModuleNotFoundError:
        return None


class TerminalGame:
    """One game between a person at ``seat`` and ``agents`` (one per player; ``None`` at the seat)."""

    def __init__(self, state: State, seat: int, agents: list[Agent | None], *,
                 inp: Callable[[str], str] = input, out: TextIO = sys.stdout,
                 hint_agent: Agent | None = None) -> None:
        self.state = state
        self.seat = seat
        self.agents = agents
        self.inp = inp
        self.out = out
        self.hint_agent = hint_agent
        self.render = renderer(state.game.name)

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def narrate(self) -> None:
        for ev in self.state.last_events():
            line = self.render.narrate(ev, self.seat) if self.render else json.dumps(ev)
            if line:
                self.say("  " + line)

    def show(self) -> None:
        obs = self.state.observation(self.seat)
        self.say(self.render.board(obs) if self.render else json.dumps(obs, indent=1))

    def run(self) -> bool:
        """Play to the end. Returns False if the person left early (Ctrl-C or end of input)."""
        st = self.state
        self.say(f"{st.game.title}: you are player {self.seat}. Type a move by number or in notation; "
                 f"'help' for more, 'quit' to leave.")
        self.narrate()
        try:
            while not st.is_terminal():
                p = st.current_player()
                agent = self.agents[p]
                if agent is None:
                    action = self.ask()
                    if action is None:
                        return False
                    who = "You"
                else:
                    action = agent.step(View(st, p))
                    who = f"Player {p}"
                text = st.action_seen_by(action, self.seat)
                st.apply_action(action)
                self.say(f"{who} played {text}.")
                self.narrate()
        except KeyboardInterrupt:
            self.say("\nLeaving the game.")
            return False
        self.say("Game over. Scores: " + ", ".join(str(s) for s in st.scores())
                 + ". Returns: " + ", ".join(f"{r:+g}" for r in st.returns()) + ".")
        return True

    def ask(self) -> int | None:
        st = self.state
        self.say()
        self.show()
        legal = st.legal_actions()
        names = [st.action_to_string(a) for a in legal]
        if self.hint_agent is not None:
            self.hint()
        self.say("Your moves: " + "  ".join(f"[{i + 1}] {n}" for i, n in enumerate(names)))
        while True:
            try:
                raw = self.inp("> ").strip()
            except EOFError:
                self.say("\nEnd of input: leaving the game.")
                return None
            if not raw:
                continue
            low = raw.lower()
            if low in ("quit", "exit", "q"):
                return None
            if low in ("help", "?"):
                self.say("Enter the number of a move or its notation (e.g. a card such as 7D or 10S). "
                         "'board' shows the table again, 'hint' asks the computer, 'quit' leaves.")
                continue
            if low == "board":
                self.show()
                continue
            if low == "hint":
                self.hint()
                continue
            if raw.isdigit():
                i = int(raw)
                if 1 <= i <= len(legal):
                    return legal[i - 1]
                self.say(f"There is no move number {i}: choose 1 to {len(legal)}.")
                continue
            try:
                action = st.string_to_action(raw)
            except GameError as e:
                self.say(f"Not understood: {e}")
                continue
            if action not in legal:
                try:
                    st.clone().apply_action(action)
                except GameError as e:
                    self.say(f"Not allowed: {e}")
                    continue
            return action

    def hint(self) -> None:
        if self.hint_agent is None:
            self.say("No hint agent is available.")
            return
        view = View(self.state, self.seat)
        info: dict[str, Any] | None = self.hint_agent.evaluate(view)
        if info is None:
            a = self.hint_agent.step(view)
            self.say(f"Hint: {self.state.action_to_string(a)}.")
            return
        msg = f"Hint: {self.state.action_to_string(info['action'])}"
        if info.get("win_probability") is not None:
            msg += f" (estimated chance of winning {100 * info['win_probability']:.0f}%)"
        self.say(msg + ".")
