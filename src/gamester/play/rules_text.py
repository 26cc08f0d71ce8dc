"""``gamester rules GAME``: the rules in the project's words, then every option and rule set.

The prose is the game's ``docs/rules/<game>.md``, shipped inside its package as ``rules.md``; the
option table is generated from the options dataclass, so it cannot drift from the code.
"""

from __future__ import annotations

import sys
from importlib import resources

from gamester.core.options import describe_options
from gamester.core.registry import game_class


def rules_text(name: str) -> str:
    cls = game_class(name)
    package = sys.modules[cls.__module__].__package__ or cls.__module__
    try:
        prose = resources.files(package).joinpath("rules.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        prose = f"# {cls.title}\n\n{sys.modules[package].__doc__ or ''}"
    lines = [prose.rstrip(), "", "## Options (generated from the code)", ""]
    for opt, default, values, doc in describe_options(cls.options_class):
        lines.append(f"- {opt} (default {default!r}; {values}): {doc}")
    lines += ["", "## Rule sets", ""]
    for rs in cls.rulesets.values():
        settings = ", ".join(f"{k}={v}" for k, v in rs.options.items()) or "all defaults"
        lines.append(f"- {rs.name}: {settings}. {rs.reading}. Source: {rs.source}.")
    lines += [
        "",
        f'Choose one with load_game("{name}(ruleset=NAME)") or --option ruleset=NAME; '
        "explicit options override the rule set.",
    ]
    return "\n".join(lines)
