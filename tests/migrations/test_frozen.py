"""Migrations are frozen (STYLE.md): each holds its own SQL and imports no other, so editing an old
migration cannot change what a newer one does on a fresh database. Read from each migration's
syntax tree (every import, function-level ones included, and every dynamic import), then checked
by loading each one alone."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

from sathub.db.schema import MIGRATIONS

VERSIONS = sorted((MIGRATIONS / "versions").glob("*.py"))
PACKAGE = "sathub.migrations.versions"

# Modules through which one migration could reach another's code: the project itself (the other
# migrations, and the tables and rules that change with the code) and the machinery of imports.
FORBIDDEN_MODULES = {"sathub", "importlib", "imp", "runpy", "zipimport", "pkgutil"}
FORBIDDEN_NAMES = {"__import__", "exec", "eval", "compile"}
FORBIDDEN_ATTRIBUTES = {"import_module", "spec_from_file_location", "load_module", "exec_module", "run_path"}


def offences(path: Path) -> list[str]:
    """What in the migration at `path` reaches outside it for code, each with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.append(f"{where} imports from its own package (from {'.' * node.level}{node.module or ''})")
            modules = [node.module or ""]
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            found.append(f"{where} uses {node.id}")
            continue
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRIBUTES:
            found.append(f"{where} calls {node.attr}")
            continue
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "migrations.versions" in node.value:
            found.append(f"{where} names another migration ({node.value!r})")
            continue
        else:
            continue
        found += [f"{where} imports {module}" for module in modules if module.split(".")[0] in FORBIDDEN_MODULES]
    return found


def test_the_migrations_are_all_read():
    assert len(VERSIONS) >= 16
    assert VERSIONS[0].name == "0001_status.py"


def test_no_migration_imports_another_nor_the_import_machinery():
    found = [offence for path in VERSIONS for offence in offences(path)]
    assert found == [], "migrations must hold their own SQL (STYLE.md, frozen):\n" + "\n".join(found)


def test_each_migration_loads_alone():
    """Each migration, loaded on its own, brings no other migration (nor any sathub module) with it."""
    loaded_before = {name: sys.modules.pop(name) for name in list(sys.modules) if name.startswith(PACKAGE)}
    try:
        for path in VERSIONS:
            before = set(sys.modules)
            probe = f"frozen_probe_{path.stem}"
            spec = importlib.util.spec_from_file_location(probe, path)
            assert spec is not None and spec.loader is not None
            spec.loader.exec_module(importlib.util.module_from_spec(spec))
            brought = sorted(name for name in set(sys.modules) - before if name.split(".")[0] == "sathub")
            assert brought == [], f"{path.name} loads {brought}"
    finally:
        for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
            del sys.modules[name]
        sys.modules.update(loaded_before)
