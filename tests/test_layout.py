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
            found |= {
                f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                for alias in node.names
            }
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
    allowed = (
        "sathub.db",
        "sathub.cli_options",
        "sathub.status.tables",
        "sathub.archive.tables",
        "sathub.status.store",
        "sathub.archive.store",
        "sathub.status.migrate.sources",
    )
    for name, path in source_modules().items():
        if name.startswith(allowed):
            continue
        text = path.read_text(encoding="utf-8")
        assert "sa.select(" not in text and "sa.text(" not in text and ".insert()" not in text, name


FRONT_DOOR = {
    "sathub",
    "sathub.__main__",
    "sathub.cli",
    "sathub.cli_options",
    "sathub.app",
    "sathub.config",
    "sathub.web",
}
SHARED_PACKAGES = {"db", "server"}  # what truly belongs to both interfaces
INTERFACES = ("status", "archive")
# The rooms both interfaces have, for the same jobs (docs/design.md, "Layout").
COMMON_ROOMS = {"api", "pages", "store"}
COMMON_MODULES = {"tables", "routes", "commands"}
# Modules that turn requests into answers: they ask a store and never hold SQL or SQLAlchemy.
HANDLERS = (
    "sathub.status.api",
    "sathub.status.pages",
    "sathub.status.admin",
    "sathub.status.routes",
    "sathub.archive.api",
    "sathub.archive.pages",
    "sathub.archive.mailman.endpoints",
    "sathub.archive.routes",
    "sathub.archive.edge",
    "sathub.archive.access",
)


def test_the_top_of_the_package_is_the_front_door_and_what_both_interfaces_share():
    top = {
        name
        for name in source_modules()
        if name.count(".") <= 1 and name.removeprefix("sathub.") not in (*INTERFACES, *SHARED_PACKAGES)
    }
    assert top == FRONT_DOOR
    folders = {path.name for path in ROOT.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert folders == {*INTERFACES, *SHARED_PACKAGES, "migrations", "data"}


def test_both_interfaces_have_the_same_rooms_for_the_same_jobs():
    for interface in INTERFACES:
        folder = ROOT / interface
        assert {path.name for path in folder.iterdir() if (path / "__init__.py").exists()} >= COMMON_ROOMS
        assert {path.stem for path in folder.glob("*.py")} >= COMMON_MODULES


def test_the_shared_layers_never_import_the_interfaces_or_the_front_door():
    above = ("sathub.status", "sathub.archive", "sathub.app", "sathub.cli", "sathub.web")
    for name, targets in import_graph().items():
        if name.startswith(("sathub.db", "sathub.server", "sathub.config")):
            assert not {t for t in targets if t.startswith(above)}, name


def test_the_interfaces_never_import_the_app_or_the_command_line():
    for name, targets in import_graph().items():
        if name.startswith(tuple(f"sathub.{interface}" for interface in INTERFACES)):
            assert not targets & {"sathub.app", "sathub.cli"}, name


def test_handlers_hold_no_sqlalchemy():
    """Handlers name a connection's types through sathub.db; SQLAlchemy itself stays in the stores,
    the tables and the database layer."""
    for name, path in source_modules().items():
        if name.startswith(HANDLERS):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
            imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
            assert not {module for module in imported if module.split(".")[0] == "sqlalchemy"}, name


def test_no_module_is_longer_than_one_can_read_whole():
    long = {
        name: count
        for name, path in source_modules().items()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
