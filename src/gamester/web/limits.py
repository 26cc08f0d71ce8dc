"""The limits that keep one client from taking a public server down (docs/web.md, On the internet).

``Limits`` holds every quota with its default; ``gamester serve --limits default|off|FILE`` picks
them (``load``). ``off`` lifts the per-address quotas (a load test from one address) and keeps the
limits on a request's size and time, which protect the process itself. A file is a JSON object with
any of the fields below, e.g. ``{"tables_per_minute": 5, "sockets_per_address": 16}``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Limits:
    tables_per_minute: int = 30
    """Tables one address may create a minute (then 429 rate_limited)."""
    sockets_per_address: int = 48
    """WebSockets one address may hold open at once."""
    connections_per_address: int = 64
    """HTTP connections one address may hold open at once (a browser uses about six)."""
    header_bytes: int = 16 * 1024
    """The request line and headers of one request (then 431)."""
    request_seconds: float = 10.0
    """Time a request may take to arrive, headers and body (then 408 and the connection closes)."""
    bots_per_address: int = 1
    """Bot workers the tables (and hints) of one address may hold at once; every address takes
    turns at them (web/fair.py)."""
    waiting_per_address: int = 8
    """Tables made from one address that may wait for players at once (then 429 rate_limited)."""
    unjoined_minutes: float = 60.0
    """A waiting table nobody but its creator has joined, and nobody watches, expires (is deleted)
    this long after it was made."""
    requests_per_second: float = 20.0
    """API requests (reads and writes alike: the health probe, the leaderboards, a table's page) one
    address may make a second, on average (then 429 rate_limited)."""
    request_burst: int = 200
    """API requests one address may make at once before ``requests_per_second`` holds it back."""
    per_address: bool = True
    """False (``--limits off``): no per-address quota."""

    def json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


OFF = Limits(per_address=False)

_RANGES: dict[str, tuple[float, float]] = {
    "tables_per_minute": (1, 100_000),
    "sockets_per_address": (1, 100_000),
    "connections_per_address": (1, 100_000),
    "header_bytes": (1024, 1024 * 1024),
    "request_seconds": (0.5, 600),
    "waiting_per_address": (1, 100_000),
    "unjoined_minutes": (1, 30 * 24 * 60),
    "bots_per_address": (1, 1000),
    "requests_per_second": (0.1, 100_000),
    "request_burst": (1, 1_000_000),
}


class LimitsError(ValueError):
    """A limits file or value that cannot be used (one line, naming it)."""


def load(spec: str) -> Limits:
    """``default``, ``off`` or the path of a JSON file of limits."""
    if spec == "default":
        return Limits()
    if spec == "off":
        return OFF
    path = Path(spec)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LimitsError(f"--limits {spec}: no such file (or give default or off)") from None
    except (OSError, UnicodeDecodeError) as e:
        raise LimitsError(f"--limits {spec}: cannot be read ({type(e).__name__})") from None
    except ValueError as e:
        raise LimitsError(f"--limits {spec}: not JSON ({e})") from None
    return from_json(data, spec)


def from_json(data: Any, where: str = "limits") -> Limits:
    if not isinstance(data, dict):
        raise LimitsError(f"{where}: expected a JSON object of limits")
    fields = {f.name: f for f in dataclasses.fields(Limits)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise LimitsError(f"{where}: unknown limit {unknown[0]!r}; limits: {', '.join(fields)}")
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name == "per_address":
            if not isinstance(value, bool):
                raise LimitsError(f"{where}: per_address: expected true or false")
            values[name] = value
            continue
        lo, hi = _RANGES[name]
        is_int = fields[name].type in ("int", int)
        ok_type = isinstance(value, int) if is_int else isinstance(value, int | float)
        if isinstance(value, bool) or not ok_type or not math.isfinite(value) or not lo <= value <= hi:
            kind = "a whole number" if is_int else "a number"
            raise LimitsError(f"{where}: {name}: expected {kind} from {lo:g} to {hi:g}")
        values[name] = value
    return Limits(**values)
