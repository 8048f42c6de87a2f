"""The folder tree is the architecture (docs/design.md, "Layout"): these rules keep it so.

The import graph is read from the source (every `import` and `from ... import`, function-level
ones included), so a cycle cannot hide behind an import inside a function."""

import ast
from pathlib import Path

import sathub

ROOT = Path(sathub.__file__).parent
STATUS_CORE = {"tables", "rules", "times", "cache", "revision", "csrf", "rate_limit", "templating"}
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_modules() -> dict[str, Path]:
    return {module_name(path): path for path in ROOT.rglob("*.py") if "migrations" not in path.parts}


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The sathub modules a module imports (a `from package import module` names the module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                      for alias in node.names}
    return {name for name in found if name in modules}


def import_graph() -> dict[str, set[str]]:
    modules = source_modules()
    return {name: imports_of(path, set(modules)) - {name} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules that import each other (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_interfaces_never_import_each_other():
    for name, targets in import_graph().items():
        for this, other in (("sathub.status", "sathub.archive"), ("sathub.archive", "sathub.status")):
            if name.startswith(this + "."):
                assert not {t for t in targets if t.startswith(other)}, name


def test_the_status_core_never_imports_the_rooms_above_it():
    rooms = ("store", "api", "pages", "admin", "migrate", "routes", "commands")
    for name, targets in import_graph().items():
        if name.removeprefix("sathub.status.") in STATUS_CORE:
            above = {t for t in targets if t.startswith(tuple(f"sathub.status.{room}" for room in rooms))}
            assert not above, f"{name} imports {above}"


def test_only_the_store_writes_sql():
    """Handlers and rules never build SQL: sqlalchemy's query builders appear only in the stores,
    the tables, the database layer and the migrations."""
    allowed = ("sathub.db", "sathub.cli_options", "sathub.status.tables", "sathub.archive.tables",
               "sathub.status.store", "sathub.archive.store", "sathub.status.migrate.sources")
    for name, path in source_modules().items():
        if name.startswith(allowed):
            continue
        text = path.read_text(encoding="utf-8")
        assert "sa.select(" not in text and "sa.text(" not in text and ".insert()" not in text, name


def test_no_module_is_longer_than_one_can_read_whole():
    long = {name: count for name, path in source_modules().items()
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
