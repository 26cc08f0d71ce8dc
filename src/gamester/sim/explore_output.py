"""What ``gamester explore`` writes (docs/explore.md): ``explore.json``, ``rounds.json``, the records
of every reading (``records/READING.jsonl``), a plot of the scores (``explore.png``) and ``report.md``."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from gamester.core.registry import game_class
from gamester.sim.explore import SCORE_PARTS, Exploration, Reading, paired_gap, score_name
from gamester.sim.plots import have_matplotlib
from gamester.sim.report import _cell


def write_exploration(
    out_dir: str,
    e: Exploration,
    doc: dict[str, Any],
    rs: Sequence[Reading],
    refused: Sequence[tuple[str, str]],
    history: Sequence[dict[str, Any]],
    wall: float,
) -> list[str]:
    """Every file of the exploration; the paths written."""
    os.makedirs(os.path.join(out_dir, "records"), exist_ok=True)
    written = []
    path = os.path.join(out_dir, "explore.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    written.append(path)
    path = os.path.join(out_dir, "rounds.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(list(history), f, indent=2)
        f.write("\n")
    written.append(path)
    for r in rs:
        path = os.path.join(out_dir, "records", f"{r.key or 'default'}.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for res in r.results:
                f.write(json.dumps(res["record"], separators=(",", ":")) + "\n")
        written.append(path)
    ranked = _ranked(doc, rs)
    written += write_plot(out_dir, doc, ranked)
    written.append(write_report(out_dir, e, doc, ranked, refused, history, wall))
    return written


def _ranked(doc: dict[str, Any], rs: Sequence[Reading]) -> list[Reading]:
    """The readings in the document's order (best first)."""
    by_options = {json.dumps(r.game.options_json(), sort_keys=True): r for r in rs}
    return [by_options[json.dumps(x["options"], sort_keys=True)] for x in doc["readings"]]


def write_plot(out_dir: str, doc: dict[str, Any], ranked: Sequence[Reading]) -> list[str]:
    """``explore.png``: every reading's score with its 95% interval, best at the top, coloured by the
    round it reached."""
    if not have_matplotlib():
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = doc["readings"]
    n = len(rows)
    fig, ax = plt.subplots(figsize=(9.0, 1.4 + 0.22 * n))
    cmap = plt.get_cmap("viridis")
    top = max((r.reached for r in ranked), default=0)
    for i, (row, r) in enumerate(zip(rows, ranked, strict=True)):
        y = n - 1 - i
        v, (lo, hi) = row["score"], row["ci"]
        if v is None:
            continue
        colour = cmap(r.reached / top if top else 1.0)
        ax.errorbar(
            [v],
            [y],
            xerr=[[v - (lo if lo is not None else v)], [(hi if hi is not None else v) - v]],
            fmt="o",
            color=colour,
            capsize=2,
            markersize=4,
        )
        ax.annotate(
            f"{row['games']} games",
            (hi if hi is not None else v, y),
            fontsize=6,
            xytext=(4, -2),
            textcoords="offset points",
        )
    ax.set_yticks(range(n), [r.key or "default" for r in reversed(ranked)], fontsize=6 if n > 20 else 7)
    ax.set_xlabel("score (95% interval); colour: round of successive halving reached")
    ax.set_title(f"{doc['game']}: readings of the open space, best at the top", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out_dir, "explore.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return [path]


def _iv(x: Any) -> str:
    return _cell(x) if isinstance(x, dict) else "-"


def write_report(
    out_dir: str,
    e: Exploration,
    doc: dict[str, Any],
    ranked: Sequence[Reading],
    refused: Sequence[tuple[str, str]],
    history: Sequence[dict[str, Any]],
    wall: float,
) -> str:
    """``report.md``: the space and its sources, the score, the ranking, how the rounds went, and which
    readings the games tell apart from the leader."""
    cls = game_class(e.game)
    rows = doc["readings"]
    lines = [f"# Exploring the readings of {cls.title}", ""]
    agents = e.agents or "the best agent"
    fixed = ", ".join(f"{k}={v}" for k, v in e.options.items()) or "none"
    lines += [
        f"{len(ranked)} readings, {e.budget} games in all, played by {agents} in every seat, "
        f"{e.worlds} sampled worlds per estimate, seed {e.seed}, backend {e.backend}; fixed options: "
        f"{fixed}. Wall time {wall:.0f} s.",
        "",
        "## The open space",
        "",
        "| option | value | source |",
        "| --- | --- | --- |",
    ]
    for option, values in cls.open_space.items():
        if option in e.options:
            lines.append(f"| `{option}` | `{e.options[option]}` (fixed by --option) | |")
            continue
        for v in values:
            shown = v.value if isinstance(v.value, str) else json.dumps(v.value)
            lines.append(f"| `{option}` | `{shown}` | {v.source} |")
    if refused:
        lines += ["", f"{len(refused)} combinations are not games and are left out:", ""]
        reasons: dict[str, int] = {}
        for _, why in refused:
            reasons[why] = reasons.get(why, 0) + 1
        lines += [f"- {n} × {why}" for why, n in reasons.items()]
    lines += [
        "",
        "## The score",
        "",
        doc["score"] + ".",
        "",
        "## Ranking, best first",
        "",
        "| rank | reading | games | score [95%] | " + " | ".join(SCORE_PARTS) + " | lead_change | "
        "drama | duration_actions |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in SCORE_PARTS) + " | --- | --- | --- |",
    ]
    for i, (row, r) in enumerate(zip(rows, ranked, strict=True)):
        m = row["metrics"]
        cells = [_iv(m[k]) for k in (*SCORE_PARTS, "lead_change", "drama", "duration_actions")]
        score = _cell({"value": row["score"], "ci": row["ci"]})
        lines.append(
            f"| {i + 1} | `{r.key or 'default'}` | {row['games']} | {score} | " + " | ".join(cells) + " |"
        )
    lines += ["", "## Is the leader separated?", ""]
    if len(ranked) < 2:
        lines.append("Only one reading: nothing to compare.")
    else:
        lead = ranked[0]
        lines += [
            f"The leader, `{lead.key}`, against every other reading, on the games both played (the "
            "first seeds, the same deals), as the paired difference of scores with a bootstrap 95% "
            "interval over those deals. An interval above 0 means these games separate the two "
            "readings; readings dropped early share few games with the leader.",
            "",
            "| reading | common games | leader minus reading | separated |",
            "| --- | --- | --- | --- |",
        ]
        for r in ranked[1:]:
            gap = paired_gap(lead, r, e.seed, score_name(e, ranked) == "with-balance")
            lo = gap["ci"][0]
            sep = "yes" if lo is not None and lo > 0 else "no"
            common = min(len(lead.results), len(r.results))
            lines.append(f"| `{r.key}` | {common} | {_cell(gap)} | {sep} |")
    lines += ["", "## The rounds of successive halving", ""]
    for h in history:
        lines.append(
            f"- round {h['round']}: {len(h['readings'])} readings, {h['games_played']} games "
            f"(up to {max(x['games'] for x in h['readings'])} a reading); "
            + (f"{len(h['kept'])} kept" if h["kept"] else "the last round")
        )
    lines += [
        "",
        "Readings dropped in an early round were judged on few games: their scores are rough, and "
        "a reading dropped on a handful of games is not shown to be worse, only less promising than "
        "the half kept.",
        "",
        "Files: `explore.json` (every reading with its metrics), `rounds.json` (each round's scores), "
        "`records/READING.jsonl` (every game played under a reading, in seed order)"
        + (", `explore.png`" if have_matplotlib() else "")
        + ".",
        "",
    ]
    path = os.path.join(out_dir, "report.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return path
