"""Regenerate the two word lists the web server ships (``src/gamester/web/data/``).

- ``common_passwords.txt``: the 10,000 most common passwords of at least 8 characters (the shortest
  the server takes), in order, from the password frequency list of ``zxcvbn`` (MIT; the Python port
  on PyPI), lower-cased, one a line. The server refuses them (``weak_password``).
- ``lookalikes.txt``: every character that Unicode's confusables data (UTS #39, as the
  ``confusable-homoglyphs`` package on PyPI ships it) says reads like a Latin letter or a digit, and
  that NFKC with case folding leaves as something else, with the letter it reads as: ``U+0430 a``
  (Cyrillic а). ``gamester.web.names.skeleton`` folds names through it.

Run with both packages installed (``pip install zxcvbn confusable-homoglyphs``; they are not
dependencies of gamester): ``python tests/make_web_lists.py``.
"""

from __future__ import annotations

import json
import string
import unicodedata
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "gamester" / "web" / "data"
MIN_PASSWORD = 8
KEEP = 10_000


def passwords() -> list[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-not-found]

    out: list[str] = []
    for p in FREQUENCY_LISTS["passwords"]:
        p = p.casefold()
        if len(p) >= MIN_PASSWORD and p.isprintable() and p not in out:
            out.append(p)
        if len(out) == KEEP:
            break
    return out


def lookalikes() -> dict[str, str]:
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    alnum = set(string.ascii_letters + string.digits)
    out: dict[str, str] = {}
    for key, entries in data.items():
        group = [key, *(e["c"] for e in entries)]
        latin = [c for c in group if len(c) == 1 and c in alnum]
        if not latin:
            continue
        target = latin[0].lower()
        for c in group:
            folded = unicodedata.normalize("NFKC", c).casefold()
            if len(folded) != 1 or folded in alnum:
                continue  # NFKC and case folding already make it a Latin letter or digit
            out.setdefault(folded, target)
    return dict(sorted(out.items()))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "common_passwords.txt").write_text("\n".join(passwords()) + "\n", encoding="utf-8")
    lines = [f"U+{ord(c):04X} {t}" for c, t in lookalikes().items()]
    (OUT / "lookalikes.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
