"""`sathub status import-legacy SOURCE`: move an existing deployment over.

From its MariaDB/MySQL database: the catalog (satellite_name) first, then the admin accounts
(users), then every report (satellite) in id order. From a CSV export: the reports only.
Reports are cleaned one by one (rows.py), collapsed per slot so the later row of a slot wins,
and stored in batches, each in its own transaction, so the service can keep running meanwhile.
Running it again changes nothing and says so."""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field

from tqdm import tqdm

from sathub import db
from sathub.db.engines import Connection, Engine
from sathub.status.migrate.legacy_sources import SourceError, open_source
from sathub.status.migrate.rows import SlotWindow, catalog_names, clean_report
from sathub.status.store import accounts, catalog, writes

__all__ = ["BATCH_SIZE", "ImportSummary", "SourceError", "Tally", "run"]

# Reports per INSERT statement: 8 bound values each stays far below SQLite's and PostgreSQL's limits.
BATCH_SIZE = 1000


@dataclass
class Tally:
    """What became of the catalog entries or admin accounts of the source."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    kept: int = 0  # an account that exists here with another password
    skipped: int = 0  # no name (or password), or a name longer than our column

    def describe(self) -> str:
        others = (
            (self.updated, "updated"),
            (self.unchanged, "unchanged"),
            (self.kept, "kept as they are here (another password)"),
            (self.skipped, "skipped"),
        )
        return ", ".join([f"{self.added} added"] + [f"{count} {label}" for count, label in others if count])


@dataclass
class ImportSummary:
    source: str
    rows_read: int = 0
    stored_new: int = 0
    already_present: int = 0
    replaced: int = 0  # its slot held a different report (a second run after upstream changed it)
    superseded: int = 0  # a later row of the same slot in the source won
    skipped: Counter = field(default_factory=Counter)
    satellites: Tally | None = None  # None: the source has no catalog (a CSV export)
    users: Tally | None = None
    elapsed: float = 0.0

    def describe(self) -> str:
        rate = self.rows_read / self.elapsed if self.elapsed > 0 else 0.0
        lines = [
            f"Imported from {self.source} in {self.elapsed:.1f} s ({rate:,.0f} rows/s).",
            f"Report rows read:   {self.rows_read}",
            f"  stored new:       {self.stored_new}",
            f"  already present:  {self.already_present}",
            f"  replaced:         {self.replaced} (the slot held a different report)",
            f"  superseded:       {self.superseded} (a later row of the same slot won)",
            f"  skipped:          {sum(self.skipped.values())}",
        ]
        lines += [f"    {reason}: {count}" for reason, count in sorted(self.skipped.items())]
        lines += [f"Satellites:     {_describe(self.satellites)}", f"Administrators: {_describe(self.users)}"]
        return "\n".join(lines)


def _describe(tally: Tally | None) -> str:
    return "none in the source" if tally is None else tally.describe()


def run(engine: Engine, source: str, *, progress: bool = False, batch_size: int = BATCH_SIZE) -> ImportSummary:
    """Import SOURCE (a mysql:// URL or a CSV path) into the migrated database of `engine`.

    Raises SourceError when the source cannot be read at all; a bad row is skipped and counted."""
    started = time.monotonic()
    with contextlib.closing(open_source(source)) as reader:
        summary = ImportSummary(source=reader.label)
        with db.connect(engine, write=True) as conn:
            if entries := reader.catalog():
                summary.satellites = _import_catalog(conn, entries)
            if source_accounts := reader.users():
                summary.users = _import_users(conn, source_accounts)
            api_names = catalog_names(catalog.catalog_with_aliases(conn))
        window = SlotWindow(batch_size)
        total = reader.count_reports() if progress else None
        with tqdm(total=total, unit=" rows", unit_scale=True, disable=not progress, smoothing=0.1) as bar:
            for rows in reader.report_batches(batch_size):
                summary.rows_read += len(rows)
                for row in rows:
                    report = clean_report(row, api_names)
                    if isinstance(report, str):
                        summary.skipped[report] += 1
                    elif ready := window.add(report):
                        _store(engine, ready, summary)
                bar.update(len(rows))
            _store(engine, window.drain(), summary)
        summary.superseded = window.superseded
    summary.elapsed = time.monotonic() - started
    return summary


def _store(engine: Engine, batch: list[dict], summary: ImportSummary) -> None:
    if not batch:
        return
    with db.connect(engine, write=True) as conn:
        outcome = writes.store_imported(conn, batch)
    summary.stored_new += outcome.new
    summary.already_present += outcome.unchanged
    summary.replaced += outcome.replaced


def _import_catalog(conn: Connection, entries: list[dict]) -> Tally:
    """Upstream's catalog through catalog.load_catalog (keyed by API name, case-insensitive; a
    later upstream duplicate of an API name overwrites the earlier, as load_catalog does)."""
    tally = Tally()
    wanted = {}
    for entry in entries:
        api_name = (entry["name"] or "").strip()
        if api_name:
            wanted[api_name.lower()] = entry
        else:
            tally.skipped += 1
    if not wanted:
        return tally
    before = _catalog_state(conn)
    catalog.load_catalog(conn, list(wanted.values()))
    after = _catalog_state(conn)
    for key in wanted:
        if key not in before:
            tally.added += 1
        elif before[key] != after[key]:
            tally.updated += 1
        else:
            tally.unchanged += 1
    return tally


def _catalog_state(conn: Connection) -> dict[str, tuple]:
    return {row.api_name.lower(): (row.api_name, row.display_name, row.website) for row in catalog.catalog(conn)}


def _import_users(conn: Connection, source_accounts: list[dict]) -> Tally:
    """Admin accounts with their bcrypt hashes as they are ($2y$ is accepted at login). An account
    that already exists here keeps its password: a re-run must not undo a password change."""
    tally = Tally()
    for account in source_accounts:
        username, password = (account["username"] or "").strip(), account["password"] or ""
        email = (account["email"] or "").strip()
        if not password or accounts.name_problem(username) or accounts.email_problem(email):
            tally.skipped += 1
            continue
        existing = accounts.password_hash_of(conn, username)
        if existing is None:
            accounts.save_user(conn, username, password, email)
            tally.added += 1
        elif existing == password:
            tally.unchanged += 1
        else:
            tally.kept += 1
    return tally
