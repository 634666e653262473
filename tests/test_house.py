"""The house (docs/architecture.md) as tests: floors that import only downwards, no import
cycles (imports inside functions included), no module reaching into another's private
names, a registry layer that never starts a process, and rooms of a readable size."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "toolsel"

#: The floors, lowest first: a module imports its own floor and those below, never above.
#: The longest matching prefix places a module (`replay.lines` reads; `replay` analyses).
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ground", (
        "", "errors", "text", "timeparse", "jsontext", "jsonsyntax", "redact", "secrets",
        "deadline", "atomic", "acyclic", "suggest", "inputs", "schemas", "starter", "tfidf",
    )),
    ("read", (
        "registry", "catalogs", "sources", "live", "clients", "replay.lines",
        "replay.documents", "replay.formats", "replay.events", "replay.sizes",
        "replay.remote",
    )),
    ("analyse", (
        "lint", "diff", "ranking", "embed", "learn", "replay", "events", "graph", "ambiguity",
        "expansion", "validate", "evaluate", "golden", "select", "ledger", "misroutes",
        "misroute_evidence", "lock", "listing", "targets", "example_checks", "cases", "regex",
        "metaschema", "convert", "scaffold", "emit",
    )),
    ("render", ("render",)),
    ("doors", ("cli", "serve", "__main__")),
)  # fmt: skip
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60


@cache
def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


@cache
def tree(name: str) -> ast.Module:
    return ast.parse(modules()[name].read_text(encoding="utf-8"))


def _type_only(module: ast.Module) -> set[int]:
    """The nodes inside `if TYPE_CHECKING:` blocks (never run)."""
    return {
        id(sub)
        for node in ast.walk(module)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for sub in ast.walk(node)
    }


def imports(name: str) -> Iterator[tuple[str, str | None]]:
    """(module, name imported from it or None) of every import that runs, anywhere in it."""
    module = tree(name)
    skip = _type_only(module)
    package = name if modules()[name].name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(module):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            yield from ((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            yield from ((base, alias.name) for alias in node.names)


@cache
def graph() -> dict[str, frozenset[str]]:
    """Module -> the toolsel modules it imports (a submodule when one is imported by name)."""
    known = modules()
    edges = {}
    for name in known:
        targets = set()
        for module, imported in imports(name):
            if f"{module}.{imported}" in known:
                targets.add(f"{module}.{imported}")
            elif module in known:
                targets.add(module)
        edges[name] = frozenset(targets - {name})
    return edges


def within(name: str, *packages: str) -> bool:
    """Whether module `name` is one of `packages` or inside one."""
    return any(name == package or name.startswith(package + ".") for package in packages)


def floor(name: str) -> int:
    relative = name.removeprefix("toolsel").removeprefix(".")
    placed = [
        (len(prefix), number)
        for number, (_, prefixes) in enumerate(FLOORS)
        for prefix in prefixes
        if relative == prefix or (prefix and relative.startswith(prefix + "."))
    ]
    assert placed, f"{name} is on no floor: add it to FLOORS and docs/architecture.md"
    return max(placed)[1]


def test_every_floor_imports_only_its_own_and_those_below() -> None:
    upward = [
        f"{name} ({FLOORS[floor(name)][0]}) imports {target} ({FLOORS[floor(target)][0]})"
        for name, targets in graph().items()
        for target in targets
        if floor(target) > floor(name) and target != "toolsel"  # the root: __version__
    ]
    assert upward == []


def test_there_are_no_import_cycles() -> None:
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []
    for root in edges:  # Tarjan's strongly connected components, iteratively
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while (member := stack.pop()) != node:
                    group.append(member)
                if group:
                    cycles.append(sorted([node, *group]))
    assert cycles == []


def test_no_module_imports_another_modules_private_names() -> None:
    known = modules()
    private = [
        f"{name} imports {module}.{imported}"
        for name in known
        for module, imported in imports(name)
        if module.startswith("toolsel")
        and module != name
        and imported is not None
        and imported.startswith("_")
        and not imported.startswith("__")
        and f"{module}.{imported}" not in known
    ]
    assert private == []


def test_only_the_command_line_imports_the_command_line() -> None:
    outside = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        for target in targets
        if within(target, "toolsel.cli") and not within(name, "toolsel.cli", "toolsel.__main__")
    ]
    assert outside == []


def test_reading_a_registry_never_starts_a_process() -> None:
    """registry/ reads bytes it is handed: the -r grammar, config files and live servers
    are the sources/ layer's, above it."""
    above = ("toolsel.sources", "toolsel.live", "toolsel.cli", "toolsel.serve", "toolsel.config")
    reached = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        if within(name, "toolsel.registry")
        for target in targets
        if within(target, *above)
    ]
    assert reached == []


def test_every_module_and_function_is_of_a_readable_size() -> None:
    long_modules = []
    long_functions = []
    for name, path in modules().items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            long_modules.append(f"{name}: {lines} lines")
        for node in ast.walk(tree(name)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions.append(f"{name}.{node.name}: {length} lines")
    assert long_modules == [] and long_functions == []


def test_the_checks_see_what_they_check() -> None:
    """The graph is the package's: these checks would see a cycle, an upward import or a
    private name, were there one."""
    edges = graph()
    assert "toolsel.registry.model" in edges["toolsel.registry"] | edges["toolsel.lint.engine"]
    assert any(name.startswith("toolsel.cli") for name in edges["toolsel.__main__"])
    assert floor("toolsel.replay.lines") < floor("toolsel.replay.matcher") < floor("toolsel.cli")
    assert floor("toolsel.render.replay") < floor("toolsel.cli.replay")
