"""The game registry under concurrent first use."""

from __future__ import annotations

from typing import Any

import pytest

from gamester.core import registry


def test_a_reader_during_the_first_scan_still_sees_every_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second thread asking for the games while the first scan is under way must not see an empty
    registry (the web server answered "unknown game 'penneech'" to its first concurrent requests)."""
    real = registry.entry_points
    seen_meanwhile: list[list[str]] = []
    calls = [0]

    def slow_entry_points(**kw: Any) -> Any:
        # Another caller arrives while the first is reading the entry points.
        calls[0] += 1
        if calls[0] == 1:
            seen_meanwhile.append(registry.game_names())
        return real(**kw)

    monkeypatch.setattr(registry, "entry_points", slow_entry_points)
    monkeypatch.setattr(registry, "_SCANNED", False)
    monkeypatch.setattr(registry, "_ENTRY_POINTS", {})
    monkeypatch.setattr(registry, "_GAMES", {})
    assert {"penneech", "piquesept", "pentyrch"} <= set(registry.game_names())
    assert {"penneech", "piquesept", "pentyrch"} <= set(seen_meanwhile[0])
