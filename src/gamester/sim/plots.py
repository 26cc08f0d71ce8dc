"""Plots for ``gamester analyse``: one PNG per metric, the rule sets side by side with their 95%
intervals (matplotlib, from the ``sim`` extra; without it no plot is written and the caller says so)."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from gamester.sim.metrics import METRICS


def have_matplotlib() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def write_plots(out_dir: str, summary: dict[str, Any]) -> list[str]:
    """``DIR/METRIC.png`` for every metric with a value in some rule set; the paths written."""
    if not have_matplotlib():
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary["rulesets"])
    written = []
    for metric in METRICS:
        entries = [summary["rulesets"][n]["metrics"].get(metric) for n in names]
        fig, ax = plt.subplots(figsize=(2.2 + 1.4 * len(names), 3.6))
        if metric == "seat_win_rates":
            keys = list(dict.fromkeys(k for e in entries if e for k in e["value"]))
            width = 0.8 / max(1, len(keys))
            for i, key in enumerate(keys):
                xs, ys, lo, hi = [], [], [], []
                for j, e in enumerate(entries):
                    if e and e["value"].get(key) is not None:
                        v = e["value"][key]
                        c = e["ci"][key]
                        xs.append(j + (i - (len(keys) - 1) / 2) * width)
                        ys.append(v)
                        lo.append(v - c[0])
                        hi.append(c[1] - v)
                if xs:
                    ax.bar(xs, ys, width=width, yerr=[lo, hi], capsize=3, label=key)
            ax.legend(fontsize=7)
            ax.set_ylabel("win rate")
        else:
            xs, ys, lo, hi = [], [], [], []
            for j, e in enumerate(entries):
                if e and e["value"] is not None:
                    v = e["value"]
                    c0 = e["ci"][0] if e["ci"][0] is not None else v
                    c1 = e["ci"][1] if e["ci"][1] is not None else v
                    xs.append(j)
                    ys.append(v)
                    lo.append(max(0.0, v - c0))
                    hi.append(max(0.0, c1 - v))
            if not xs:
                plt.close(fig)
                continue
            ax.bar(xs, ys, yerr=[lo, hi], capsize=6, color="#4878a8")
            for x, y in zip(xs, ys, strict=True):
                ax.annotate(
                    f"{y:.3g}",
                    (x, y),
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    xytext=(8, 2),
                    textcoords="offset points",
                )
        ax.set_xticks(range(len(names)), names, rotation=15, ha="right", fontsize=8)
        ax.set_title(f"{summary['game']}: {metric} (95% CI)", fontsize=9)
        fig.tight_layout()
        path = os.path.join(out_dir, f"{metric}.png")
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written
