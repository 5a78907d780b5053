"""The stages cite what a reader can open: docs/ pages, NexusGPU/tensor-fusion and Kubernetes
files at their lines, never ``DESIGN §…``, ``reference/…`` or an issue number."""

from __future__ import annotations

import re

from tests.conftest import ROOT
from tests.yamlio.test_yaml_code_citations import unopenable


def test_every_citation_can_be_opened() -> None:
    assert unopenable("stages") == []


def test_tensor_fusion_facts_name_their_file_and_line() -> None:
    text = "".join(p.read_text() for p in (ROOT / "tfpolicy" / "stages").glob("*.py"))
    cited = re.findall(r"(?:internal|pkg)/[\w/]+\.go:\d+", text)
    assert len(cited) >= 10, cited
