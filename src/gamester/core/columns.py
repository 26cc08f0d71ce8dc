"""Lines that fit a standard terminal: every line the command line prints for a person is at most
:data:`WIDTH` columns (README.md, The command line). Terminal play, ``gamester rules``, the replay, the
tournament table, analyses and error messages all wrap with these.

>>> listing("wrote ", ["a.json", "b.jsonl", "c.png"], width=20, sep=", ")
'wrote a.json,\\n      b.jsonl, c.png'
>>> wrap_value("rollout:worlds=30,seconds=0.5", 20)
['rollout:worlds=30,', 'seconds=0.5']
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Container, Sequence
from typing import TextIO

WIDTH = 80
"""Columns every line printed for a person fits in (a standard terminal's width)."""


def fit(text: str, width: int = WIDTH) -> str:
    """``text`` with each line wider than ``width`` wrapped, its continuation indented two columns
    more than the line itself (a renderer's help is written as indented lines of any length)."""
    out = []
    for line in text.splitlines():
        if len(line) <= width:
            out.append(line)
            continue
        lead = line[: len(line) - len(line.lstrip())]
        out.append(
            textwrap.fill(
                line.strip(),
                width,
                initial_indent=lead,
                subsequent_indent=lead + "  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


def listing(head: str, items: Sequence[str], width: int = WIDTH, sep: str = "  ") -> str:
    """``head`` then the items ``sep`` apart, on as many lines of ``width`` as they need, each
    continuation lined up under the first item; an item is never split (a line that breaks after a
    separator keeps its visible part, e.g. the comma of ``", "``)."""
    lines: list[str] = []
    line, empty = head, True
    for item in items:
        candidate = line + item if empty else line + sep + item
        if empty or len(candidate) <= width:
            line, empty = candidate, False
        else:
            lines.append(line + sep.rstrip())
            line = " " * len(head) + item
    lines.append(line.rstrip())
    return "\n".join(lines)


def wrap_value(text: str, width: int) -> list[str]:
    """A value typed by a person or made by a program (an agent spec, a reading's options, a move
    with its payment) in pieces of at most ``width`` columns: broken after a comma, a ``+`` or a
    space where it can be, and inside a piece only where one piece alone is wider than ``width``.

    >>> wrap_value("QC d5-c5 2C+2D+2H+2S+AD+AS", 16)
    ['QC d5-c5 2C+2D+', '2H+2S+AD+AS']
    """
    width = max(1, width)
    lines: list[str] = []
    line = ""
    for piece in re.findall(r"[^,+ ]*[,+ ]|[^,+ ]+$", text):
        if len(line) + len(piece.rstrip(" ")) <= width:
            line += piece
            continue
        if line.rstrip(" "):
            lines.append(line.rstrip(" "))
        while len(piece.rstrip(" ")) > width:
            lines.append(piece[:width])
            piece = piece[width:]
        line = piece
    if line.rstrip(" ") or not lines:
        lines.append(line.rstrip(" "))
    return lines


def table(
    rows: Sequence[Sequence[str]],
    right: Container[int] = (),
    wrap: Sequence[int] = (),
    width: int = WIDTH,
) -> list[str]:
    """Rows as columns two spaces apart, each as wide as its widest cell (``right``: aligned right).
    When that is wider than ``width``, the columns in ``wrap`` (values such as moves or specs) are
    narrowed, the widest first, and their cells continue on the next lines within their column.

    >>> print("\\n".join(table([("#", "move", "chance"), ("3", "JH a4-b4 3S+5D+7C", "40%")],
    ...     right=(0, 2), wrap=(1,), width=28)))
    #  move               chance
    3  JH a4-b4 3S+5D+7C     40%
    >>> print("\\n".join(table([("#", "move", "chance"), ("3", "JH a4-b4 3S+5D+7C", "40%")],
    ...     right=(0, 2), wrap=(1,), width=20)))
    #  move       chance
    3  JH a4-b4      40%
       3S+5D+7C
    """
    n = len(rows[0])
    widths = [max(len(r[i]) for r in rows) for i in range(n)]
    least = {i: max(8, len(rows[0][i])) for i in wrap}
    while sum(widths) + 2 * (n - 1) > width:
        shrinkable = [i for i in wrap if widths[i] > least[i]]
        if not shrinkable:
            break
        widths[max(shrinkable, key=lambda i: widths[i])] -= 1
    out = []
    for r in rows:
        cells = [wrap_value(c, widths[i]) if i in wrap else [c] for i, c in enumerate(r)]
        for k in range(max(len(c) for c in cells)):
            parts = [c[k] if k < len(c) else "" for c in cells]
            out.append(
                "  ".join(
                    p.rjust(widths[i]) if i in right else p.ljust(widths[i]) for i, p in enumerate(parts)
                ).rstrip()
            )
    return out


def labelled(head: str, value: str, width: int = WIDTH) -> str:
    """``head`` then ``value``; a value too long for the rest of the line continues on the next
    lines lined up under its start (:func:`wrap_value`), so whatever a person typed, nothing before
    it moves.

    >>> print(labelled("agent: ", "ismcts:iterations=50,c=0.3", width=28))
    agent: ismcts:iterations=50,
           c=0.3
    """
    pieces = wrap_value(value, width - len(head))
    return "\n".join([head + pieces[0], *(" " * len(head) + p for p in pieces[1:])])


def say_error(text: str, stream: TextIO | None = None) -> None:
    """Print a one-line message about bad input on ``stream`` (standard error). On a terminal it is
    wrapped to :data:`WIDTH` columns; to a pipe or a file it stays one line, which scripts rely on."""
    stream = stream or sys.stderr
    isatty = getattr(stream, "isatty", None)
    print(fit(text) if callable(isatty) and isatty() else text, file=stream, flush=True)
