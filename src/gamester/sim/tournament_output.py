"""What a tournament writes: the terminal table, ``summary.json``, ``records.jsonl`` and
``chart.png`` (docs/tournaments.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any


def format_table(summary: dict[str, Any]) -> str:
    rows = [("agent", "games", "win rate [95% CI]", "mean return [95% CI]", "rating mu±sigma", "s/move")]

    def iv(x: dict[str, float], pct: bool) -> str:
        if pct:
            return f"{100 * x['mean']:5.1f}% [{100 * x['low']:5.1f}, {100 * x['high']:5.1f}]"
        return f"{x['mean']:+.3f} [{x['low']:+.3f}, {x['high']:+.3f}]"

    for a, e in summary["agents"].items():
        rt = e.get("rating")
        rows.append(
            (
                a,
                str(e["games"]),
                iv(e["win_rate"], True),
                iv(e["mean_return"], False),
                f"{rt['mu']:.1f}±{rt['sigma']:.1f}" if rt else "-",
                f"{e['seconds_per_move']:.3f}",
            )
        )
        for role, r in e["by_role"].items():
            rows.append(
                (
                    f"  as {role}",
                    str(r["games"]),
                    iv(r["win_rate"], True),
                    iv(r["mean_return"], False),
                    "",
                    "",
                )
            )
    for p in summary.get("paired", []):
        rows.append(
            (
                f"{p['agent']} - {p['baseline']}",
                str(p["deals"]),
                f"as {p['role']}",
                iv(p["return_difference"], False),
                "(paired)",
                "",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        f"{summary['game']}: {summary['deals']} deals x {len(summary['seatings'])} seatings "
        f"= {summary['games']} games (duplicate deals; CI over per-deal means)"
    ]
    for j, r in enumerate(rows):
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
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
