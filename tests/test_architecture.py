"""The dependency rules of STYLE.md, held by walking the imports with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "tfpolicy"
# Adapters read files, stdin or the environment, print, or exit; everything else is core.
ADAPTERS = ("cli.py", "commands/", "hosts/", "files/")


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def rel(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def uses(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text(), str(path))
    return any(isinstance(n, ast.Attribute) and ast.unparse(n).startswith(name)
               for n in ast.walk(tree))


def test_scheduler_imports_nothing_else_from_tfpolicy() -> None:
    for path in modules():
        if rel(path).startswith("scheduler/"):
            outside = {m for m in imports(path)
                       if m.startswith("tfpolicy") and not m.startswith("tfpolicy.scheduler")}
            assert not outside, (rel(path), outside)


def test_only_the_yaml_module_imports_yaml_libraries() -> None:
    for path in modules():
        if not rel(path).startswith("yamlio/"):
            found = {m for m in imports(path) if m.split(".")[0] in ("yaml", "ruamel")}
            assert not found, (rel(path), found)


def test_only_the_schema_module_imports_jsonschema() -> None:
    for path in modules():
        if rel(path) != "policy/schema.py":
            assert not {m for m in imports(path) if m.startswith("jsonschema")}, rel(path)


def test_the_core_never_touches_click_stdio_or_the_environment() -> None:
    for path in modules():
        if rel(path).startswith(ADAPTERS):
            continue
        assert "click" not in {m.split(".")[0] for m in imports(path)}, rel(path)
        for name in ("sys.stdin", "sys.stdout", "sys.stderr", "os.environ", "sys.exit"):
            assert not uses(path, name), (rel(path), name)


def test_modules_stay_small() -> None:
    too_big = {rel(p): n for p in modules() if (n := len(p.read_text().splitlines())) > 330}
    assert not too_big
