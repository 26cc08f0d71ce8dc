"""Not a benchmark: finds the deal and the line of a lesson being written (docs/tutorials.md, How a
lesson is built).

For each seed it plays the lesson's game from that deal with the ``heuristic`` agent in every seat
(the pupil taking the moves a step asks for; Pentyrch's second lesson prefers trapping, covering on
the free space and protecting when it can), then keeps the seeds whose line teaches every step and
prints, for each, how many of the pupil's decisions leave it free, how many the lesson narrows, the
pupil's return, and the line to paste into the lesson::

    python benchmarks/lesson_lines.py penneech-2 --seeds 0:300
"""

from __future__ import annotations

import argparse
import dataclasses
import random
from typing import Any

from gamester.agents import agent_seed, make_agent
from gamester.agents.base import View
from gamester.core.lesson import Lesson, coach, current, free_decisions, guided_line, lesson, line_of_play
from gamester.core.protocol import State
from gamester.core.registry import game_part


def chooser(t: Lesson) -> Any:
    game = t.new_state().game
    agents = {p: make_agent("heuristic", game=game, seed=agent_seed(t.seed, p)) for p in range(t.players())}
    part = game_part(t.game, "lesson")
    prefer = (
        [getattr(part, n) for n in ("_trapping", "_centre", "_protecting")] if t.id == "pentyrch-2" else []
    )

    def choose(state: State, asked: list[str]) -> str:
        p = state.current_player()
        now = current(t, state) if p == t.seat and not asked and prefer else None
        for pick in prefer if now else []:
            found = pick(now[0])
            if found:
                return str(found[0])
        return state.action_to_string(agents[p].step(View(state, p)))

    return choose


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lesson")
    ap.add_argument("--seeds", default="0:100", help="FIRST:END")
    ap.add_argument("--pupils", type=int, default=30, help="random pupils to count the lesson's refusals")
    args = ap.parse_args()
    base = lesson(args.lesson)
    first, end = (int(x) for x in args.seeds.split(":"))
    for seed in range(first, end):
        draft = dataclasses.replace(base, seed=seed, line=())
        t = dataclasses.replace(draft, line=line_of_play(draft, chooser(draft)))
        state, seen = guided_line(t)
        if {r for _, n in seen for r in n.rules} != {s.rule for s in t.steps}:
            continue
        decided = [n for m, n in seen if len(m.legal) > 1]
        free = len(free_decisions(t, list(t.line)))
        asked = sum(1 for n in decided if n.asker)
        rng = random.Random(seed)
        wins = 0
        for _ in range(args.pupils):
            s = t.new_state()
            while not s.is_terminal():
                if s.current_player() == t.seat:
                    note = coach(t, s)
                    move = rng.choice((note.expect if note else []) or s.legal_action_strings())
                    s.apply_action(s.string_to_action(move))
                else:
                    s.apply_action(t.bot_move(s))
            wins += s.returns()[t.seat] > 0
        print(
            f"seed {seed}: {len(decided)} decisions, {free} free, {len(decided) - free - asked} narrowed, "
            f"{asked} asked; the line's return {state.returns()[t.seat]:+g}; random pupils win "
            f"{wins}/{args.pupils}\n  line={t.line!r}",
            flush=True,
        )


if __name__ == "__main__":
    main()
