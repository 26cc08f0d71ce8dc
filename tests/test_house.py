"""House rules over the whole repository: the project explains itself in its own files.

Nothing tracked may send a reader to a contract that is not in the repository (a specification file or
a folder beside the checkout): the contracts the project keeps are written in ``README.md`` and ``docs/``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Built from pieces so this file does not match itself.
_SPEC = "SP" + "EC"
_SHARED = "sha" + "red"  # spelt apart, like _SPEC, so this file cites nothing itself
OUTSIDE_CITATION = re.compile(
    "|".join(
        [
            rf"{_SPEC}\.md",
            r"\.\./shared",
            r"/work/shared",
            rf"\b{_SPEC}(?=[,:;)]|'s)",  # "SPEC: ...", "(SPEC)", "the SPEC's messages"
            rf"\(\s*{_SPEC}\b",
            rf"\b(?:the|as in|see) {_SPEC}\b",
        ]
    )
)


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    return [ROOT / name for name in out.decode("utf-8").split("\0") if name]


def outside_citations(text: str) -> list[tuple[int, str]]:
    """(line number, line) for each line of ``text`` that cites a contract outside the repository."""
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if OUTSIDE_CITATION.search(line)]


def test_no_tracked_file_cites_a_contract_outside_the_repository() -> None:
    files = tracked_files()
    assert any(p.name == "README.md" for p in files), "the scan must see the real tree"
    problems: list[str] = []
    for path in files:
        if path == Path(__file__).resolve() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # images and other binary files
        for n, line in outside_citations(text):
            problems.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not problems, "cite docs/ or README.md instead:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "line",
    [
        f"see {_SPEC}.md, Records",
        f'Outputs (`--out DIR`, {_SPEC}.md "Analysis"):',
        f"the rulings in ../{_SHARED}/rules/penneech.md",
        f"# {_SPEC}: a spectator knows no hand",
        f"in the order the game uses them ({_SPEC}).",
        f"by the {_SPEC}'s messages",
    ],
)
def test_a_citation_is_caught(line: str) -> None:
    assert outside_citations(line)


@pytest.mark.parametrize(
    "line",
    [
        'ap.add_argument("--best", metavar="GAME=' + _SPEC + '")',
        f"[--skill-ladder {_SPEC}] [--info-agent {_SPEC}]",
        f"MAX_{_SPEC} = 200",
        "see docs/records.md",
    ],
)
def test_an_ordinary_use_is_not_a_citation(line: str) -> None:
    assert not outside_citations(line)
