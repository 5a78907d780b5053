"""The admission package stays pure: no YAML, schema, CLI or I/O imports (STYLE)."""

from __future__ import annotations

import ast
from pathlib import Path

import tfpolicy.admission

PACKAGE = Path(tfpolicy.admission.__file__).parent
FORBIDDEN = {"ruamel", "jsonschema", "click", "yaml", "os", "sys", "io", "pathlib", "subprocess"}


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_io_or_adapter_imports() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        assert not imported(path) & FORBIDDEN, path.name


def test_no_print_or_open_calls() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        calls = {n.func.id for n in ast.walk(ast.parse(path.read_text()))
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not calls & {"print", "open", "input"}, path.name
