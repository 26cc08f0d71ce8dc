"""A progress bar: tqdm when installed, a plain one-line counter on stderr otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], total: int, desc: str, enabled: bool = True) -> Iterator[T]:
    if not enabled:
        yield from items
        return
    try:
        from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        tqdm = None
    if tqdm is not None:
        yield from tqdm(items, total=total, desc=desc, unit="game", file=sys.stderr)
        return
    start = time.monotonic()
    for i, item in enumerate(items, 1):
        yield item
        if i == total or i % max(1, total // 50) == 0:
            rate = i / max(1e-9, time.monotonic() - start)
            print(f"\r{desc}: {i}/{total} ({rate:.1f}/s)", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
