"""The folder tree is the architecture (docs/design.md, "Layout"): these rules keep it so.

Every rule is read from the source's syntax trees (every `import` and `from ... import`,
function-level ones included, and the attributes called on a connection), never from strings, so
that a cycle, an upward arrow or a statement cannot hide behind an import inside a function or a
driver call. Each rule was broken once on purpose and seen red (docs/design.md, "Layout")."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import sathub

ROOT = Path(sathub.__file__).parent
TESTS = Path(__file__).parent
MAX_LINES = 400
MIRRORED_SHARE = 0.80

FRONT_DOOR = {
    "sathub",
    "sathub.__main__",
    "sathub.cli",
    "sathub.cli_options",
    "sathub.app",
    "sathub.config",
    "sathub.web",
    # the admin session and the CSRF rules: the admin pages and the archive's removal pages share them
    "sathub.admin_sessions",
    "sathub.csrf",
}
SHARED_PACKAGES = {"db", "server"}  # what truly belongs to both interfaces
INTERFACES = ("status", "archive")
COMMON_ROOMS = {"api", "pages", "store"}  # both interfaces have them, for the same jobs
COMMON_MODULES = {"tables", "routes", "commands"}

# Each interface's modules by layer, lowest first; a module takes the layer of its longest prefix
# here. An arrow may run down, or within one room; never up, nor sideways into another room of the
# same layer unless SIDEWAYS names it with its reason.
CORE, STORE, GROUND, ROOM, TOP = range(5)
LAYERS = {
    "status": {
        # the pure rules and the tables: no I/O but the data revision's read
        **dict.fromkeys(("tables", "rules", "times", "grid", "records", "locators", "csrf"), CORE),
        **dict.fromkeys(("rate_limit", "templating", "cache"), CORE),
        # where the satellites are: the element sets, the sky over a place and the check of a report
        # against it, used by the writer
        **dict.fromkeys(("orbits.elements", "orbits.sky", "orbits.visibility"), CORE),
        # pass predictions: /api/v2/passes and the satellite pages compute them alike
        "orbits.passes": CORE,
        # the status-change rule and the Atom feeds' rendering: the stream, the feeds, the pages and
        # the webhooks say a change, and a satellite's feed, in the same words
        **dict.fromkeys(("notify.changes", "notify.atom"), CORE),
        # the webhooks' rules (what may be registered, signing, addresses): the store, the admin
        # pages and the command line check a hook as the deliverer does
        "notify.webhook_rules": CORE,
        "store": STORE,
        # the doors: /api/v1, /api/v2, the stream, the pages, administration, the legacy import
        **dict.fromkeys(("api", "api.v2", "stream", "pages", "admin", "migrate"), ROOM),
        # the orbits' doors: the elements loader and its refresh, pass predictions
        "orbits": ROOM,
        # notifications: the feeds of /api/v2, the webhooks
        "notify": ROOM,
        **dict.fromkeys(("routes", "commands"), TOP),
    },
    "archive": {
        # the pure rules: mail, the search language, the tables
        **dict.fromkeys(("tables", "mail", "edge", "links"), CORE),
        # a client address's turns at the doors, which the edge takes for every read
        "turns": CORE,
        **dict.fromkeys(("search.query", "search.expressions", "search.facets", "search.snippets"), CORE),
        "search.text": CORE,
        # OVER's fields: the writers keep them with each email (migration 0030), the NNTP server reads them
        "nntp.overview": CORE,
        "store": STORE,
        # what every door stands on: the private-list check, the web door, the one search reader
        **dict.fromkeys(("access", "web_door", "search.request", "caching"), GROUND),
        # the costly doors' per-client budgets: searches and exports spend from them
        "budgets": GROUND,
        **dict.fromkeys(("api", "pages", "feeds", "export", "search", "ingest", "mailman"), ROOM),
        # robots.txt and the sitemaps: what crawlers may walk, and what there is to walk
        "crawlers": ROOM,
        # taking mail out: hide, unhide, delete, their command line, pages and audit log
        "removal": ROOM,
        # the read-only NNTP server: newsgroups of the public lists, their articles by number
        "nntp": ROOM,
        # public-inbox's URL forms over the archive, for b4, lei and lore's links (docs/public-inbox.md)
        "public_inbox": ROOM,
        **dict.fromkeys(("routes", "commands"), TOP),
    },
}
SIDEWAYS = {
    # /api/v2 answers errors in version 1's envelope, through v1's error shape (api-v2.md)
    ("status", "api.v2", "api"),
    # the stream is a door of /api/v2: its parameters, errors and headers are v2's (api-v2.md)
    ("status", "stream", "api"),
    ("status", "stream", "api.v2"),
    # the Atom feeds are doors of /api/v2 too: its names, errors and headers (api-v2.md)
    ("status", "notify", "api"),
    ("status", "notify", "api.v2"),
    # /api/v2/passes is a door of /api/v2: its parameters, names, errors and headers (api-v2.md)
    ("status", "orbits", "api"),
    ("status", "orbits", "api.v2"),
    # a webhook is sent the stream's event (its builder) and wakes as the stream does (its wake-ups)
    ("status", "notify", "stream"),
    # search's JSON answers are the read API's: its endpoint, paging and email objects
    ("archive", "search", "api"),
    # Mailman's live archiving goes through the one ingest path, as the import does
    ("archive", "mailman", "ingest"),
    # the message and thread pages show removal's buttons to those it allows
    ("archive", "pages", "removal"),
    # a list's owners and moderators may remove its mail: removal asks Mailman's roster
    ("archive", "removal", "mailman"),
    # public-inbox's Atom feeds are the archive's Atom, with public-inbox's links (feeds/render.py)
    ("archive", "public_inbox", "feeds"),
    # public-inbox's search is the archive's search (its finder, deadline and limits) and its mbox
    # an export's stream (its slots, sending and Retry-After): lei's `POST ?q=…&x=m`
    ("archive", "public_inbox", "search"),
    ("archive", "public_inbox", "export"),
}

# Who may speak to a database driver or build SQL: the database layer, the stores, the tables,
# the migrations and the legacy import's reader of the old MariaDB (status/migrate/legacy_sources).
DRIVERS = ("sqlalchemy", "psycopg", "pymysql", "sqlite3", "alembic")
SQL_ROOMS = (
    "sathub.db",
    "sathub.status.tables",
    "sathub.archive.tables",
    "sathub.status.store",
    "sathub.archive.store",
    "sathub.status.migrate.legacy_sources",
)
# Outside them, only config.py reads a database URL with SQLAlchemy's parser (to check the setting);
# every other module names connections and errors through sathub.db.
URL_PARSING = {"sqlalchemy.engine": {"make_url"}, "sqlalchemy.exc": {"ArgumentError"}}
STATEMENT_CALLS = {"execute", "exec_driver_sql", "executemany", "scalar", "scalars", "cursor", "execution_options"}
# What the database layer offers everyone; its other names (the group commit's lock, deadlines,
# the listener's connection) are its own and its stores'.
DB_PUBLIC = {
    "sathub.db": None,  # the package's own names (db/__init__.py) are all public
    "sathub.db.engines": {"Connection", "Engine", "Row", "connect", "create_engine", "UNREACHABLE"}
    | {"DatabaseError", "DatabaseUnavailable", "OperationalError", "StatementError", "DBAPIError", "IntegrityError"},
    "sathub.db.dialect": {"MAX_INTEGER"},
    "sathub.db.group_commit": {"GroupCommit"},
    "sathub.db.revision_probe": {"RevisionProbe"},
    "sathub.db.listening": {"Listener"},
}


# -- the source, read once ------------------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def source_modules() -> dict[str, Path]:
    return {module_name(path): path for path in ROOT.rglob("*.py") if "migrations" not in path.parts}


@cache
def tree_of(name: str) -> ast.Module:
    return ast.parse(source_modules()[name].read_text(encoding="utf-8"))


def imported_names(name: str) -> set[tuple[str, str | None]]:
    """(module, name) for every `from module import name`, (module, None) for every `import module`."""
    found: set[tuple[str, str | None]] = set()
    for node in ast.walk(tree_of(name)):
        if isinstance(node, ast.Import):
            found |= {(alias.name, None) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {(node.module, alias.name) for alias in node.names}
    return found


def imports_of(name: str) -> set[str]:
    """The sathub modules a module imports (a `from package import module` names the module)."""
    modules = source_modules()
    found = {f"{module}.{item}" if f"{module}.{item}" in modules else module for module, item in imported_names(name)}
    return {target for target in found if target in modules} - {name}


@cache
def import_graph() -> dict[str, set[str]]:
    return {name: imports_of(name) for name in source_modules()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules that import each other (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
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


def place(name: str) -> tuple[str, str, int] | None:
    """(interface, room, layer) of an interface's module, by the longest prefix in LAYERS."""
    for interface in INTERFACES:
        inside = name.removeprefix(f"sathub.{interface}.")
        if inside == name:
            continue
        rooms = LAYERS[interface]
        for room in sorted(rooms, key=len, reverse=True):
            if inside == room or inside.startswith(room + "."):
                return interface, room, rooms[room]
        raise AssertionError(f"{name} is in no layer of LAYERS: give it one")
    return None


# -- the rules ------------------------------------------------------------------------------------


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_interfaces_never_import_each_other():
    for name, targets in import_graph().items():
        for this, other in (("sathub.status", "sathub.archive"), ("sathub.archive", "sathub.status")):
            if name.startswith(this + "."):
                assert not {t for t in targets if t.startswith(other)}, name


def upward_arrows() -> set[tuple[str, str]]:
    wrong = set()
    for name, targets in import_graph().items():
        here = place(name)
        if here is None:
            continue
        for target in targets:
            there = place(target)
            if there is None or there[1] == here[1]:
                continue
            # one layer's modules share its rules; only the rooms of the doors keep to themselves
            sideways = there[2] == here[2] == ROOM and (here[0], here[1], there[1]) not in SIDEWAYS
            if there[2] > here[2] or sideways:
                wrong.add((name, target))
    return wrong


def test_arrows_run_only_down_within_each_interface():
    assert upward_arrows() == set()


def test_only_the_database_layer_and_the_stores_speak_to_a_driver():
    for name in source_modules():
        if name.startswith(SQL_ROOMS):
            continue
        for module, item in imported_names(name):
            if module.split(".")[0] in DRIVERS:
                allowed = URL_PARSING.get(module, ()) if name == "sathub.config" else ()
                assert item in allowed, f"{name} imports {module}.{item or ''}"


def test_only_the_database_layer_and_the_stores_run_statements():
    """A statement needs a connection's `execute` (or its driver's cursor): outside the stores and
    db/, no module calls one, whatever built the statement."""
    for name in source_modules():
        if name.startswith(SQL_ROOMS):
            continue
        called = {node.attr for node in ast.walk(tree_of(name)) if isinstance(node, ast.Attribute)}
        assert not called & STATEMENT_CALLS, f"{name} calls {called & STATEMENT_CALLS}"


def test_the_database_layers_internals_stay_in_it_and_its_stores():
    for name in source_modules():
        if name.startswith(SQL_ROOMS):
            continue
        for module, item in imported_names(name):
            if module.startswith("sathub.db"):
                public = DB_PUBLIC.get(module, set())
                assert public is None or item in public, f"{name} imports {module}.{item}"


def test_nobody_imports_another_modules_private_names():
    for name in source_modules():
        private = {(module, item) for module, item in imported_names(name) if item and item.startswith("_")}
        assert private <= {("__future__", "annotations")}, f"{name} imports {private}"
        modules = {alias for module, alias in imported_names(name) if alias and f"{module}.{alias}" in source_modules()}
        reached = {
            f"{node.value.id}.{node.attr}"
            for node in ast.walk(tree_of(name))
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
        }
        assert reached == set(), f"{name} reaches into {reached}"


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


def test_no_module_is_longer_than_one_can_read_whole():
    long = {
        name: count
        for name, path in source_modules().items()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def mirrored(path: Path) -> bool:
    """src/sathub/X/Y.py is tested by tests/X/test_Y.py or by the tests in a folder tests/X/Y/."""
    relative = path.relative_to(ROOT)
    folder = TESTS.joinpath(*relative.parts[:-1])
    return (folder / f"test_{path.stem}.py").is_file() or any((folder / path.stem).glob("test_*.py"))


def unmirrored() -> list[str]:
    paths = [path for path in source_modules().values() if path.name != "__init__.py"]
    return sorted(str(path.relative_to(ROOT)) for path in paths if not mirrored(path))


def test_the_tests_mirror_the_source_tree():
    modules = [path for path in source_modules().values() if path.name != "__init__.py"]
    missing = unmirrored()
    assert 1 - len(missing) / len(modules) >= MIRRORED_SHARE, missing
