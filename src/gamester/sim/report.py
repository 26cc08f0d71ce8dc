"""``DIR/report.md`` of ``gamester analyse``: the numbers of ``summary.json`` in words a historian
can read, with what each metric means and which rule sets it tells apart."""

from __future__ import annotations

import os
from typing import Any

from gamester.core.registry import game_class
from gamester.sim.metrics import METRICS
from gamester.sim.plots import have_matplotlib

MEANING = {
    "completion": "share of games that end with a winner",
    "drawishness": "share of games in which every player ends level",
    "timeouts": "share of games stopped by a limit (Pentyrch's round limit) rather than by the rules' "
    "own end",
    "balance": "1 minus the largest gap between two seats' win rates: 1 is perfectly fair to every seat",
    "seat_win_rates": "how often each seat (and each role) wins",
    "duration_actions": "player actions in a game",
    "branching_factor": "legal choices at a decision, on average",
    "decision_moves": "share of decisions with a real choice (more than one legal action)",
    "lead_change": "how often the player who rates his own chances highest changes, per decision",
    "drama": "how far behind the eventual winner's own estimate was while someone else led",
    "decisiveness": "share of the game still to play when the winner's chances pass the best any "
    "loser ever had (high: decided early)",
    "stability": "how much the players' estimates of their chances move during a game (variance; 0 "
    "is perfectly steady)",
    "skill_trace": "0 to 1: how much doubling a player's thinking helps, rung by rung (0: luck "
    "decides, 1: the stronger always wins)",
    "info_value": "how much more often a player wins when shown every card (the value of the hidden "
    "information; analysis only)",
}


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.3f}" if abs(x) < 10 else f"{x:.1f}"


def cell_parts(entry: dict[str, Any] | None) -> list[str]:
    """A metric's value with its 95% interval; one part per key of a value by seat or role."""
    if not entry or entry.get("value") is None:
        return ["not measured"]
    v, ci = entry["value"], entry["ci"]
    if isinstance(v, dict):
        return [f"{k} {_fmt(x)} [{_fmt(ci[k][0])}, {_fmt(ci[k][1])}]" for k, x in v.items()]
    return [f"{_fmt(v)} [{_fmt(ci[0])}, {_fmt(ci[1])}]"]


def _cell(entry: dict[str, Any] | None) -> str:
    return "; ".join(cell_parts(entry))


def _comparison(metric: str, summary: dict[str, Any]) -> str:
    """Which rule sets this metric tells apart at this number of games (intervals that do not
    overlap), in one sentence."""
    rows = []
    for name, rs in summary["rulesets"].items():
        e = rs["metrics"].get(metric)
        if e and isinstance(e.get("value"), (int, float)) and None not in e["ci"]:
            rows.append((e["value"], e["ci"], name))
    if len(rows) < 2:
        return ""
    rows.sort()
    lo, hi = rows[0], rows[-1]
    if lo[0] == hi[0]:
        return f"{_fmt(lo[0])} in every reading."
    if lo[1][1] < hi[1][0]:
        return (
            f"Lowest in {lo[2]} ({_fmt(lo[0])}), highest in {hi[2]} ({_fmt(hi[0])}); their "
            "intervals do not overlap, so the readings differ here."
        )
    return (
        f"From {_fmt(lo[0])} ({lo[2]}) to {_fmt(hi[0])} ({hi[2]}); the intervals overlap, so "
        "these games cannot tell the readings apart on this metric."
    )


def write_report(out_dir: str, a: Any, summary: dict[str, Any], details: dict[str, Any], wall: float) -> str:
    names = list(summary["rulesets"])
    cls = game_class(summary["game"])
    lines = [f"# {cls.title}: what each rule reading does to the game", ""]
    games = {n: summary["rulesets"][n]["games"] for n in names}
    lines += [
        f"{', '.join(f'{n} ({g} games)' for n, g in games.items())}, played by "
        f"`{', '.join(summary['agents'])}` in every seat, seed {summary['seed']}; "
        f"{wall:.0f} s on the `{a.backend}` backend.",
        "",
        "Every number comes with its 95% interval in brackets: with more games the brackets narrow. "
        "Where two readings' brackets do not overlap, the difference is real at this sample size.",
        "",
        "The chances behind lead change, drama, decisiveness and stability are each player's own "
        f"estimate from what that player could see ({a.worlds} sampled deals of the unseen cards per "
        "player and decision, played on by heuristic players); no estimate ever looked at the true "
        "hidden cards.",
        "",
        "## The readings",
        "",
    ]
    for n in names:
        rs = cls.rulesets.get(n)
        opts = summary["rulesets"][n]["options"]
        if rs is not None:
            lines.append(f"- **{n}**: {rs.reading} (source: {rs.source}).")
        else:
            lines.append(f"- **{n}**: options {opts}.")
    lines += [
        "",
        "## The numbers",
        "",
        "| metric | what it measures | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for m in METRICS:
        cells = [_cell(summary["rulesets"][n]["metrics"].get(m)) for n in names]
        lines.append(f"| `{m}` | {MEANING[m]} | " + " | ".join(cells) + " |")
    lines += ["", "## Metric by metric", ""]
    for m in METRICS:
        text = _comparison(m, summary)
        if text:
            lines.append(f"- **{m}** ({MEANING[m]}). {text}")
    lines += ["", "## The probes", ""]
    for n in names:
        d = details.get(n, {})
        if "ladder" in d:
            gains = ", ".join(
                f"{d['ladder'][i + 1]} over {d['ladder'][i]}: "
                f"{_fmt(g['value'])} [{_fmt(g['ci'][0])}, {_fmt(g['ci'][1])}]"
                for i, g in enumerate(d["rung_gains"])
            )
            lines.append(
                f"- {n}, skill ladder (the stronger seat's wins minus a weaker seat's, per game): {gains}."
            )
        if "info_agent" in d:
            note = d.get("info_note", f"{d['info_draws']} sampled worlds replaced by the true deal")
            lines.append(f"- {n}, info value with `{d['info_agent']}`: {note}.")
    if not have_matplotlib():
        lines += ["", "No plots: matplotlib is not installed (`pip install 'gamester[sim]'`)."]
    else:
        lines += ["", "Plots: " + ", ".join(f"`{m}.png`" for m in METRICS) + "."]
    lines += ["", "Definitions and sources: `docs/analysis.md` in the gamester repository.", ""]
    path = os.path.join(out_dir, "report.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return path
