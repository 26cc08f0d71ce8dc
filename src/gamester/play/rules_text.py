"""``gamester rules GAME``: the game's rules text, rewrapped for a terminal.

The text is the game's own (``Game.rules_text``: its ``rules.md``, shipped inside its package, then
the options and rule sets generated from the code); the web serves that Markdown as it is. The
terminal gets it through :func:`for_terminal`, which rewraps it to 80 columns.
"""

from __future__ import annotations

import re
import textwrap

from gamester.core.registry import game_class


def rules_text(name: str) -> str:
    """The rules text of the registered game ``name`` (``Game.rules_text``)."""
    return game_class(name).rules_text()


_ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_TABLE_GAP = "  "


def _fill(text: str, width: int, first: str, rest: str) -> list[str]:
    return textwrap.wrap(
        " ".join(text.split()),
        width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def _table_at(lines: list[str], k: int) -> bool:
    """A Markdown table starts at line ``k``: a row of cells, then its rule (``| --- | --- |``)."""
    return k + 1 < len(lines) and "|" in lines[k] and bool(_TABLE_RULE.match(lines[k + 1]))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().removeprefix("|").removesuffix("|").split("|")]


def _table(rows: list[list[str]], width: int) -> list[str]:
    """A Markdown table as aligned columns, the last one wrapped within its column; as one item per
    row ("heading: cell; heading: cell") when even the columns before the last leave it too little room."""
    n = max(len(r) for r in rows)
    rows = [r + [""] * (n - len(r)) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(n - 1)]
    lead = sum(widths) + len(_TABLE_GAP) * (n - 1)
    if width - lead < 20:
        head, body = rows[0], rows[1:]
        out = []
        for r in body:
            text = "; ".join(f"{h}: {c}" if h else c for h, c in zip(head, r, strict=True) if c)
            out += _fill(text, width, "- ", "  ")
        return out
    drawn = []
    for r in rows:
        left = _TABLE_GAP.join(c.ljust(w) for c, w in zip(r, widths, strict=False))
        last = _fill(r[-1], width - lead, "", "") if r[-1] else [""]
        drawn.append([((left + _TABLE_GAP if n > 1 else "") + last[0]).rstrip()])
        drawn[-1] += [" " * lead + x for x in last[1:]]
    rule = "-" * max(len(x) for lines in drawn for x in lines)
    return [*drawn[0], rule, *(x for lines in drawn[1:] for x in lines)]


def for_terminal(markdown: str, width: int = 80) -> str:
    """``markdown`` rewrapped to ``width`` columns for a terminal: each paragraph and list item is
    filled (continuations indented under the item's text, notation never split), each table drawn as
    aligned columns; headings and code blocks are kept as written."""
    lines = markdown.splitlines()
    out: list[str] = []
    i = 0

    def block_start(k: int) -> bool:
        line = lines[k]
        return (
            not line.strip()
            or line.startswith(("#", "```"))
            or bool(_ITEM.match(line))
            or _table_at(lines, k)
        )

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out += lines[i : j + 1]
            i = j + 1
        elif not line.strip() or line.startswith("#"):
            out.append(line.rstrip())
            i += 1
        elif _table_at(lines, i):
            rows = [_cells(line)]
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(_cells(lines[i]))
                i += 1
            out += _table(rows, width)
        else:
            item = _ITEM.match(line)
            j = i + 1
            while j < len(lines) and not block_start(j):
                j += 1
            text = " ".join(x.strip() for x in lines[i:j])
            if item:
                mark = item.group(0)
                text = text[len(mark.strip()) :].strip()
                out += _fill(text, width, mark, " " * len(mark))
            else:
                indent = line[: len(line) - len(line.lstrip())]
                out += _fill(text, width, indent, indent)
            i = j
    return "\n".join(out)
