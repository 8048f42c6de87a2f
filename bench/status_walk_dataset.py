"""The /api/v2 walk's dataset: bench.status_dataset's reports (the same generator and bulk load),
loaded with the reports table's own triggers set aside and their tables rebuilt after.

Why: a history of a million reports is imported once, not submitted one by one, and the row
triggers that keep the hourly counts and the push events (migrations 0004/0007, 0009) cost a few
milliseconds a row on a shared machine: over an hour for a million rows. The hourly counts are
rebuilt from the rows in one statement; the events table stays empty (an import is not news,
and the walk does not read it).

    python -m bench.status_walk_dataset --database-url sqlite:///bench/out/status_walk.db [--if-missing]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from datetime import UTC, datetime

import sqlalchemy as sa

from bench.common import recreate_database, report_count
from bench.status_dataset import bulk_load, generate
from sathub.db import normalize_url

REBUILD_HOURS = (
    "INSERT INTO report_hours (day, hour, name, report, report_count, revision) "
    "SELECT day, hour, name, report, count(*), (SELECT revision FROM data_revision WHERE id = 1) "
    "FROM reports GROUP BY day, hour, name, report"
)


def set_aside_triggers(url: sa.URL) -> list[str]:
    """Remove (SQLite) or disable (PostgreSQL) the reports table's triggers; what restores them."""
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        if url.get_backend_name() == "postgresql":
            conn.execute(sa.text("ALTER TABLE reports DISABLE TRIGGER USER"))
            restore = ["ALTER TABLE reports ENABLE TRIGGER USER"]
        else:
            triggers = conn.execute(
                sa.text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'reports'")
            ).all()
            for name, _ in triggers:
                conn.execute(sa.text(f'DROP TRIGGER "{name}"'))
            restore = [sql for _, sql in triggers]
    engine.dispose()
    return restore


def restore_triggers(url: sa.URL, restore: list[str]) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM report_hours"))
        conn.execute(sa.text(REBUILD_HOURS))
        for statement in restore:
            conn.execute(sa.text(statement))
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--reports", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20260523)
    parser.add_argument("--if-missing", action="store_true")
    args = parser.parse_args()
    if args.if_missing and report_count(args.database_url) >= args.reports:
        print(f"{args.database_url}: {report_count(args.database_url):,} reports already, kept")
        return
    url = normalize_url(args.database_url)
    started = time.monotonic()
    rows, totals = generate(args.reports, args.seed, datetime.now(UTC).replace(tzinfo=None), args.days)
    recreate_database(args.database_url)
    for command in (["db", "upgrade"], ["catalog", "load"]):
        subprocess.run(
            [sys.executable, "-m", "sathub", *command, "--database-url", args.database_url],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    restore = set_aside_triggers(url)
    bulk_load(url, rows, totals)
    restore_triggers(url, restore)
    print(f"{len(rows):,} reports over {args.days} days loaded in {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()
