"""The dependency rules of STYLE.md, held by walking the imports with ``ast``."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.conftest import ROOT
from tfpolicy.command_table import COMMANDS

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


def test_scheduler_imports_nothing_from_tfpolicy_but_the_record_base() -> None:
    for path in modules():
        if rel(path).startswith("scheduler/"):
            outside = {m for m in imports(path) if m.startswith("tfpolicy")
                       and not m.startswith("tfpolicy.scheduler") and m != "tfpolicy.records"}
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


# The import graph, module-level and function-level imports alike (an import under
# ``if TYPE_CHECKING:`` runs for mypy only). In the package graph a subpackage, or a module
# straight under tfpolicy, is one node (its "room"): docs/layout.md draws the floors.
Graph = Mapping[str, frozenset[str]]
GROUND = ("tfpolicy.errors", "tfpolicy.findings", "tfpolicy.edits", "tfpolicy.records",
          "tfpolicy.records_generic", "tfpolicy.digest", "tfpolicy.suggest", "tfpolicy.shapes")
def module_graph(package: Path) -> Graph:
    """Each module of ``package`` (a folder) and the modules of it that it imports."""
    names = {_dotted(p, package.parent): p for p in package.rglob("*.py")
             if "__pycache__" not in p.parts}
    return {name: frozenset(_resolved(path, name, names)) for name, path in names.items()}


def _dotted(path: Path, top: Path) -> str:
    parts = path.relative_to(top).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolved(path: Path, name: str, known: Mapping[str, Path]) -> Iterator[str]:
    for node in _run_imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:  # relative: counted from the module's own package
                here = name.split(".")[:len(name.split(".")) - (path.name != "__init__.py")]
                base = ".".join([*here[:len(here) - node.level + 1], *filter(None, [base])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                       for a in node.names]
        yield from (t for t in targets if t in known and t != name)


def _run_imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    elif isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
        for other in node.orelse:
            yield from _run_imports(other)
    else:
        for child in ast.iter_child_nodes(node):
            yield from _run_imports(child)


def room(module: str, alone: frozenset[str] = frozenset()) -> str:
    """The package (or module straight under the top one) that ``module`` belongs to."""
    return module if module in alone else ".".join(module.split(".")[:2])


def package_graph(graph: Graph, alone: frozenset[str] = frozenset()) -> Graph:
    """Which rooms import which; a module in ``alone`` counts as a room of its own."""
    out: dict[str, set[str]] = {}
    for module, imported in graph.items():
        out.setdefault(room(module, alone), set()).update(
            room(m, alone) for m in imported if room(m, alone) != room(module, alone))
    return {name: frozenset(to) for name, to in out.items()}


def within(graph: Graph, package: str) -> Graph:
    return {m: frozenset(t for t in to if room(t) == package)
            for m, to in graph.items() if room(m) == package}


def cycles(graph: Graph) -> set[tuple[str, ...]]:
    """Every simple cycle, each told from its least name."""
    found: set[tuple[str, ...]] = set()
    for start in sorted(graph):
        paths: list[tuple[str, ...]] = [(start,)]
        while paths:
            path = paths.pop()
            for to in graph.get(path[-1], frozenset()):
                if to == start and len(path) > 1:
                    found.add(path)
                elif to > start and to not in path:
                    paths.append((*path, to))
    return found


def above_ground(graph: Graph, ground: tuple[str, ...]) -> set[tuple[str, str]]:
    """Each import a ground-floor module makes of a module that is not on the ground floor."""
    return {(m, t) for m in ground for t in graph.get(m, ()) if t not in ground}


def imports_between(graph: Graph, package: str, forbidden: str) -> set[tuple[str, str]]:
    return {(m, t) for m, to in graph.items() if room(m) == package
            for t in to if room(t) == forbidden}


def verbs_imported(graph: Graph, package: str, verbs: set[str]) -> set[tuple[str, str]]:
    """Each import a module of ``package`` makes of a verb's module other than its own."""
    return {(m, t) for m, to in graph.items() if room(m) == package
            for t in to if t in verbs and t != m}


GRAPH = module_graph(PACKAGE)


def test_no_cycles_between_the_modules_of_a_package() -> None:
    for package in sorted({room(m) for m in GRAPH if m.count(".") > 1}):
        assert cycles(within(GRAPH, package)) == set(), package


def test_no_cycles_between_packages() -> None:
    assert cycles(package_graph(GRAPH)) == set()


def test_the_ground_floor_imports_nothing_above_it() -> None:
    assert set(GROUND) <= GRAPH.keys()
    assert above_ground(GRAPH, GROUND) == set()


def test_the_policy_core_imports_nothing_that_reads_files() -> None:
    assert imports_between(GRAPH, "tfpolicy.policy", "tfpolicy.files") == set()


VERBS = {f"tfpolicy.commands.{module}" for module, _ in COMMANDS.values()}


def test_no_module_of_commands_imports_another_verbs_module() -> None:
    """A verb stands on the floor below: when two verbs need one thing, both call the
    function below them; the shared option helpers are no verb."""
    assert GRAPH.keys() >= VERBS
    assert verbs_imported(GRAPH, "tfpolicy.commands", VERBS) == set()


FAKE = {  # a package breaking each rule once, and importing in every way the graph counts
    "__init__.py": "",
    "errors.py": "def fail():\n    from fake.a import one\n",  # the ground floor, looking up
    "a/__init__.py": "",
    "a/one.py": "from fake.a.two import y\nfrom fake.b import m\n",
    "a/two.py": "y = 1\n\n\ndef late():\n    from . import one\n",  # relative, in a function
    "b/__init__.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                     "    from fake.c import k\nelse:\n    import fake.errors\n",
    "b/m.py": "import fake.a.one\n",
    "c/__init__.py": "", "c/k.py": "from ..b import m\n",
}


def test_the_rules_find_what_they_forbid(tmp_path: Path) -> None:
    for name, text in FAKE.items():
        (tmp_path / "fake" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "fake" / name).write_text(text)
    graph = module_graph(tmp_path / "fake")
    assert graph["fake.b"] == {"fake.errors"}  # not what only mypy reads
    assert graph["fake.c.k"] == {"fake.b.m"}
    assert cycles(within(graph, "fake.a")) == {("fake.a.one", "fake.a.two")}
    assert cycles(package_graph(graph)) == {("fake.a", "fake.b"),
                                            ("fake.a", "fake.b", "fake.errors")}
    assert cycles(package_graph(graph, frozenset({"fake.a.two"}))) \
        == cycles(package_graph(graph)) | {("fake.a", "fake.a.two")}
    assert above_ground(graph, ("fake.errors",)) == {("fake.errors", "fake.a.one")}
    assert imports_between(graph, "fake.a", "fake.b") == {("fake.a.one", "fake.b.m")}
    assert verbs_imported(graph, "fake.a", {"fake.a.one", "fake.a.two"}) == {
        ("fake.a.one", "fake.a.two"), ("fake.a.two", "fake.a.one")}
    assert verbs_imported(graph, "fake.a", {"fake.a.one"}) == {("fake.a.two", "fake.a.one")}


def test_cycles_are_every_simple_cycle_once() -> None:
    graph = {"a": frozenset("b"), "b": frozenset("ac"), "c": frozenset("ab"), "d": frozenset("a")}
    assert cycles(graph) == {("a", "b"), ("a", "b", "c"), ("b", "c")}
    assert cycles({"a": frozenset("b"), "b": frozenset()}) == set()
