"""The YAML layer's code cites what a reader can open (tests/README.md, STYLE practice 17):
a page of docs/ or an upstream file and line, never a document the repository does not hold
(``DESIGN §…``, ``reference/…``, ``STYLE §…``) nor an issue number."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

UNOPENABLE = re.compile(r"DESIGN\b|reference/|reference §|STYLE §|§|\b[Ii]ssue \d+")


def unopenable(package: str) -> list[str]:
    found = []
    for path in sorted((ROOT / "tfpolicy" / package).glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if UNOPENABLE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


@pytest.mark.parametrize("package", ["yamlio"])
def test_every_citation_can_be_opened(package: str) -> None:
    assert unopenable(package) == []


def test_the_docs_it_cites_exist() -> None:
    cited = {m for path in (ROOT / "tfpolicy" / "yamlio").glob("*.py")
             for m in re.findall(r"docs/[a-z-]+\.md", path.read_text())}
    assert cited and all((ROOT / doc).is_file() for doc in cited), cited
