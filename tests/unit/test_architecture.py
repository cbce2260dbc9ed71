"""The shape of the source tree, read with `ast` (nothing is imported): small modules, the
domain at the bottom, no reach into another module's private names, no import cycle, and
wallet adapters that are ports, not wrappers (STYLE.md; issue 22's "Done when")."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.repo_paths import REPO

PACKAGES = ("domain", "infrastructure", "projections")
MAX_LINES = 450
# Compiled or generated numerical code, kept whole on purpose: the numba kernel, whose loops
# must sit in one compiled unit, and the exact-RTP calculator.
LONG_BY_NATURE = ("domain/game/kernel.py", "domain/game/calculator/")


# What the read models import of infrastructure: the store, logging, and the sessions' keys
# (stored classes, imported so a reader that never built the write side decodes their events).
READ_MODELS_TAKE = (
    "infrastructure.store", "infrastructure.logging", "infrastructure.sessions.keys"
)


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the module named by the import statement
    names: tuple[str, ...]  # the names taken from it (`from target import a, b`); () for `import`
    line: int
    at_load: bool  # run when the module loads (not inside a function, nor under TYPE_CHECKING)


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def sources() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
        if "__pycache__" not in path.parts  # generated at run time (the tilted kernel's source)
    }


def ours(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def walk(node: ast.AST, at_load: bool) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        inside = at_load and not isinstance(
            child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        )
        if isinstance(child, ast.If) and is_type_checking(child.test):
            for part in child.body:
                yield part, False
                yield from walk(part, False)
            for part in child.orelse:
                yield part, inside
                yield from walk(part, inside)
            continue
        yield child, inside
        yield from walk(child, inside)


@cache
def imports() -> tuple[Import, ...]:
    found: list[Import] = []
    for module, path in sources().items():
        tree = ast.parse(path.read_text(), str(path))
        is_package = path.name == "__init__.py"
        for node, at_load in walk(tree, True):
            if isinstance(node, ast.Import):
                found += [Import(module, a.name, (), node.lineno, at_load) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                target = absolute(module, is_package, node)
                names = tuple(a.name for a in node.names)
                found.append(Import(module, target, names, node.lineno, at_load))
    return tuple(found)


def where(found: Import) -> str:
    return f"{sources()[found.module].relative_to(REPO)}:{found.line}"


def imported_by(found: Import) -> set[str]:
    """Our modules an import names: the submodules `from package import submodule` takes, and
    the target itself for anything else (the packages above a module are left out: a package
    that re-exports its submodules is no cycle)."""
    modules = sources()
    submodules = {f"{found.target}.{name}" for name in found.names} & set(modules)
    takes_names = len(submodules) < len(found.names) or not found.names
    named = submodules | ({found.target} if takes_names else set())
    return {m for m in named if m in modules and m != found.module}


def test_no_source_module_is_over_450_lines_but_the_kernel_and_the_calculator() -> None:
    long = {
        str(path.relative_to(REPO)): lines
        for path in sources().values()
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
        and not str(path.relative_to(REPO)).startswith(LONG_BY_NATURE)
    }
    assert long == {}


def test_the_domain_imports_nothing_of_ours_outside_the_domain() -> None:
    outside = [
        f"{where(i)} imports {i.target}"
        for i in imports()
        if i.module.startswith("domain") and ours(i.target) and not i.target.startswith("domain")
    ]
    assert outside == []


def test_the_read_models_take_only_the_store_and_logging_and_only_the_entry_points_take_them(
) -> None:
    reach = [
        f"{where(i)} imports {i.target}"
        for i in imports()
        if i.module.startswith("projections") and i.target.startswith("infrastructure")
        and not i.target.startswith(READ_MODELS_TAKE)
    ]
    importers = {
        i.module for i in imports()
        if i.target.startswith("projections") and not i.module.startswith("projections")
    }
    assert reach == []
    assert importers <= {"infrastructure.bootstrap", "infrastructure.cli"}


def test_no_module_imports_another_modules_private_name() -> None:
    private = [
        f"{where(i)} imports {name} from {i.target}"
        for i in imports()
        for name in (*i.names, *i.target.split("."))
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
    ]
    assert private == []


def test_no_import_cycle_among_our_modules() -> None:
    graph: dict[str, set[str]] = {module: set() for module in sources()}
    for found in imports():
        if found.at_load:
            graph[found.module] |= imported_by(found)
    cycles = strongly_connected(graph)
    assert cycles == []


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, by Tarjan's algorithm (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1 or node in graph[node]:
                        groups.append(sorted(group))
    return groups


def wallet_classes() -> Iterator[tuple[str, ast.ClassDef]]:
    for module, path in sources().items():
        if module.startswith("infrastructure.wallet"):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    yield f"{path.relative_to(REPO)}:{node.lineno} {node.name}", node


def test_no_wallet_class_forwards_attributes() -> None:
    forwarding = [
        f"{name}.{item.name}"
        for name, cls in wallet_classes()
        for item in cls.body
        if isinstance(item, ast.FunctionDef) and item.name in ("__getattr__", "__getattribute__")
    ]
    assert forwarding == []


def test_no_wallet_class_reads_another_objects_private_members() -> None:
    reach_ins = [
        f"{name} line {node.lineno}: {ast.unparse(node)}"
        for name, cls in wallet_classes()
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    assert reach_ins == []


def test_the_architecture_rules_see_what_they_judge() -> None:
    """The rules above read the tree they are meant to (an empty walk would pass them all)."""
    modules = sources()
    assert {"domain.ledger.player", "infrastructure.bootstrap", "projections"} <= set(modules)
    cyclic = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(cyclic) == [["a", "b", "c"]]
    late = [i for i in imports() if i.module == "infrastructure.cli" and not i.at_load]
    assert late  # the CLI's commands import their functions inside themselves
