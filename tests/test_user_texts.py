"""What users read names the project's own docs, never files they do not have (the
maintainers' reference notes, cited as ``reference/…`` or by section sign)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tfpolicy.cli import COMMANDS, cli
from tfpolicy.stages.keys import RECORD, RECORDS

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [ROOT / ".pre-commit-hooks.yaml", *sorted((ROOT / "policies").glob("*.yaml")),
           *sorted(p for p in (ROOT / "plugins").rglob("*") if p.is_file())]
# The docs a message points at (recommend's header names docs/recommend.md, "The recommender").
DOCS = [ROOT / "README.md", ROOT / "examples" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _cites_notes(text: str) -> list[str]:
    return [line for line in text.splitlines() if "reference/" in line or "§" in line]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_texts_cite_no_reference_notes(command: str) -> None:
    done = CliRunner().invoke(cli, [command, "--help"])
    assert done.exit_code == 0, done.output
    assert _cites_notes(done.output) == []


@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(ROOT)) for p in SHIPPED])
def test_shipped_files_cite_no_reference_notes(path: Path) -> None:
    assert _cites_notes(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_docs_cite_no_reference_notes(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert _cites_notes(text) == []
    assert [line for line in text.splitlines() if "DESIGN §" in line] == []


def test_the_rollback_policy_names_the_record_the_stages_write() -> None:
    text = (ROOT / "policies" / "rollback.yaml").read_text(encoding="utf-8")
    named = {word.strip("();,.") for word in text.split() if word.lstrip("(").startswith("tfpolicy.dev/original")}
    assert RECORD in named and named <= set(RECORDS)
