"""Progress bars: tqdm when installed, a plain counter on stderr otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


class PlainBar:
    """A dependency-free stand-in for tqdm: ``done/total (rate)`` on one line of stderr."""

    def __init__(self, total: int, desc: str) -> None:
        self.total = total
        self.desc = desc
        self.n = 0
        self.start = time.monotonic()

    def update(self, k: int = 1) -> None:
        self.n += k
        if self.n == self.total or self.n % max(1, self.total // 50) == 0:
            rate = self.n / max(1e-9, time.monotonic() - self.start)
            print(f"\r{self.desc}: {self.n}/{self.total} ({rate:.1f}/s)", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        print(file=sys.stderr)


def progress_bar(total: int, desc: str) -> Any:
    """An object with ``update(k)`` and ``close()``."""
    try:
        from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return PlainBar(total, desc)
    return tqdm(total=total, desc=desc, unit="game", file=sys.stderr)


def progress(items: Iterable[T], total: int, desc: str, enabled: bool = True) -> Iterator[T]:
    """``items``, updating a bar as each one is consumed."""
    if not enabled:
        yield from items
        return
    bar = progress_bar(total, desc)
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        bar.close()
