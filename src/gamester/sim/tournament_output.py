"""What a tournament writes: the terminal table, ``summary.json``, ``records.jsonl`` and
``chart.png`` (docs/tournaments.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from gamester.core.columns import WIDTH, fit, labelled, table


def letters(i: int) -> str:
    """The label of the ``i``-th agent (from 0) in the table: ``A`` to ``Z``, then ``AA``, ``AB``…"""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("A") + r) + out
    return out


def format_table(summary: dict[str, Any], width: int = WIDTH) -> str:
    """The tournament for a terminal, in three blocks that fit ``width`` columns whatever the agents
    are called: the agents, each under a letter, with its rating and thinking time (a spec too long
    for the line wraps under itself); the results of each agent and each agent in each role; the
    paired comparisons on the same deals (docs/tournaments.md, The table)."""
    names = list(summary["agents"])
    label = {a: letters(i) for i, a in enumerate(names)}

    def role(text: str) -> str:  # "defender vs rollout:worlds=30" -> "defender vs B"
        head, sep, other = text.rpartition(" vs ")
        return f"{head} vs {label[other]}" if sep and other in label else text

    def iv(x: dict[str, float], pct: bool) -> str:
        if pct:
            return f"{100 * x['mean']:5.1f}% [{100 * x['low']:5.1f}, {100 * x['high']:5.1f}]"
        return f"{x['mean']:+.3f} [{x['low']:+.3f}, {x['high']:+.3f}]"

    lines = [
        fit(
            f"{summary['game']}: {summary['deals']} deals x {len(summary['seatings'])} seatings "
            f"= {summary['games']} games (duplicate deals)",
            width,
        ),
        "95% intervals over per-deal means; paired X - Y: X's mean return minus Y's.",
        "",
    ]
    legend: list[tuple[str, ...]] = [("", "rating", "sigma", "s/move", "agent")]
    for a, e in summary["agents"].items():
        rt = e.get("rating")
        legend.append(
            (
                label[a],
                f"{rt['mu']:.1f}" if rt else "-",
                f"{rt['sigma']:.1f}" if rt else "-",
                f"{e['seconds_per_move']:.3f}",
                a,
            )
        )
    # The specs go last, so a long one only wraps within its own column.
    shown = table([(*r[:-1], "") for r in legend], right=(1, 2, 3))
    indent = max(len(x) for x in shown) + 2
    lines += [labelled(head.ljust(indent), row[-1], width) for row, head in zip(legend, shown, strict=True)]
    rows: list[tuple[str, ...]] = [("", "games", "win rate [95% CI]", "mean return [95% CI]")]
    for a, e in summary["agents"].items():
        rows.append((label[a], str(e["games"]), iv(e["win_rate"], True), iv(e["mean_return"], False)))
        # In the order of their labels: "as defender vs A" before "as defender vs B".
        for shown_role, r in sorted((role(k), v) for k, v in e["by_role"].items()):
            rows.append(
                (
                    f"  as {shown_role}",
                    str(r["games"]),
                    iv(r["win_rate"], True),
                    iv(r["mean_return"], False),
                )
            )
    lines += ["", *table(rows, right=(1,))]
    paired = summary.get("paired", [])
    if paired:
        rows = [("paired", "on the same deals", "deals", "return difference [95% CI]")]
        cells = [
            (
                f"{label[p['agent']]} - {label[p['baseline']]}",
                "same seat" if p["role"] == "same seat" else f"as {role(p['role'])}",
                str(p["deals"]),
                iv(p["return_difference"], False),
            )
            for p in paired
        ]
        lines += ["", *table(rows + sorted(cells, key=lambda c: (len(c[0]), c[0], c[1])), right=(2,))]
    return "\n".join(lines)


def write_outputs(out_dir: str, summary: dict[str, Any], results: Iterable[dict[str, Any]]) -> list[str]:
    """Write the summary, the records and (with matplotlib) the chart; return the files written."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    with open(os.path.join(out_dir, "records.jsonl"), "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    written = ["summary.json", "records.jsonl"]
    if write_chart(os.path.join(out_dir, "chart.png"), summary):
        written.append("chart.png")
    return written


def missing_extras() -> list[str]:
    """What the ``sim`` extra would add here and is missing: ``openskill`` (ratings), ``matplotlib``
    (chart.png)."""
    import importlib.util

    return [m for m in ("openskill", "matplotlib") if importlib.util.find_spec(m) is None]


SIM_HINT = "pip install 'gamester[sim]'"


def write_chart(path: str, summary: dict[str, Any]) -> bool:
    """A bar chart of win rates and mean returns with their intervals; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = list(summary["agents"])
    fig, axes = plt.subplots(1, 2, figsize=(4 + 1.6 * len(names), 4))
    for ax, key, title in ((axes[0], "win_rate", "win rate"), (axes[1], "mean_return", "mean return")):
        vals = [summary["agents"][a][key] for a in names]
        means = [v["mean"] for v in vals]
        err = [
            [m - v["low"] for m, v in zip(means, vals, strict=True)],
            [v["high"] - m for m, v in zip(means, vals, strict=True)],
        ]
        ax.bar(range(len(names)), means, yerr=err, capsize=6, color="#4878a8")
        ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
        ax.set_title(f"{title} (95% CI)")
        ax.axhline(0 if key == "mean_return" else 1 / summary["num_players"], color="grey", lw=0.8)
    fig.suptitle(f"{summary['game']}: {summary['games']} games on {summary['deals']} duplicate deals")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


# -- command line ----------------------------------------------------------------------------
