"""What SQLite's stream event triggers (migrations 0009 and 0012) cost a stored report, and what
variants of their SQL would cost, measured without a migration (on copies of a scratch database).

    python -m bench.status_stream_triggers [--reports 2000] [--rounds 7]

Reports as bench/status_stream.py POSTs them (nine satellites, times of the last 24 hours, a slot
each), 8 to a transaction (a group commit's batch), inserted with sqlite3 into copies of one
migrated database, each copy with its variant of the event triggers (0007's tally triggers remade
after them, so that they fire first, as 0012 has it); after a warm-up of 4,000 reports (tens a
cell), rounds alternate the variants. The figure is the CPU time of the inserting thread per
report (inserts and commits). Each variant is first checked to record the same events as the
triggers of today (every column but stored_at) and the same current cells.

Writes bench/out/status_stream_triggers.md.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.common import OUT, label, scratch_sqlite, write_out
from bench.status_stream import NAMES, VALUES
from sathub import db

BATCH = 8
EVENTS = ("reports_insert_events", "reports_update_events")
INSERT = "INSERT INTO reports (name, day, hour, period, callsign, report, grid_square) VALUES (?, ?, ?, ?, ?, ?, ?)"
TAKE_ID = (
    "UPDATE data_revision SET last_event_id = last_event_id + 1 WHERE id = 1 AND EXISTS "
    "(SELECT 1 FROM report_events e WHERE e.id = data_revision.last_event_id + 1);"
)


def one_counter_update(sql: str) -> str:
    """The counter moved once per report, after both events: the cell's event takes the id after
    the report's, and changes() (the rows the cell's INSERT made: 0 or 1) says by how much."""
    assert sql.count(TAKE_ID) == 2
    first = sql.index(TAKE_ID)
    sql = sql[:first] + sql[first + len(TAKE_ID) :]
    cell_id = "SELECT (SELECT last_event_id FROM data_revision WHERE id = 1) + {}, 'cell'"
    assert sql.count(cell_id.format(1)) == 1
    sql = sql.replace(cell_id.format(1), cell_id.format(2))
    return sql.replace(TAKE_ID, "UPDATE data_revision SET last_event_id = last_event_id + 1 + changes() WHERE id = 1;")


def no_temp_btrees(sql: str) -> str:
    """The cell's query without its ORDER BY and GROUP BY (each a temporary B-tree): max() picks
    the newest candidate (SQLite gives a bare column the row of the max), and the one block is
    one group."""
    newest = "candidates ORDER BY day DESC, hour DESC LIMIT 1) b"
    grouped = " GROUP BY b.day, b.hour HAVING sum(t.report_count) > 0) c"
    assert sql.count(newest) == 1 and sql.count(grouped) == 1
    sql = sql.replace(
        "(SELECT day, hour FROM (SELECT NEW.day AS day",
        "(SELECT day, hour, max(day || '/' || printf('%02d', hour)) FROM (SELECT NEW.day AS day",
    )
    return sql.replace(newest, "candidates) b").replace(grouped, " HAVING sum(t.report_count) > 0) c")


def report_events_only(sql: str) -> str:
    """Not a candidate (no cell events): what the report's own event costs."""
    end = sql.index(TAKE_ID) + len(TAKE_ID)
    return sql[:end] + " END"


VARIANTS = {
    "before 0009 (no event triggers)": None,
    "0009 + 0012 (today)": lambda sql: sql,
    "today, one counter UPDATE a report": one_counter_update,
    "today, the cell's query without temporary B-trees": no_temp_btrees,
    "the report's event only (no cell events; not a candidate)": report_events_only,
}


def rows(start: int, count: int) -> list[tuple]:
    now = datetime.now(UTC)
    made = []
    for n in range(start, start + count):
        when = now - timedelta(minutes=(n * 7919) % (24 * 60))
        made.append(
            (
                NAMES[n % len(NAMES)],
                when.date().isoformat(),
                when.hour,
                when.minute // 15,
                f"K{n}X",
                VALUES[n % 4],
                "FN31",
            )
        )
    return made


def copy_with(source: Path, path: Path, variant) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    stored = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'reports'"))
    for name in EVENTS:
        conn.execute(f"DROP TRIGGER {name}")
        if variant is not None:
            conn.execute(variant(stored[name]))
    for name, sql in stored.items():  # the tally's made last: they fire first
        if name.endswith("_tally"):
            conn.execute(f"DROP TRIGGER {name}")
            conn.execute(sql)
    conn.close()


def insert(path: Path, start: int, count: int) -> float:
    """CPU seconds of this thread per report."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = NORMAL")  # as db/engines.py sets it
    spent = 0.0
    for first in range(start, start + count, BATCH):
        batch = rows(first, BATCH)
        began = time.thread_time()
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(INSERT, batch)
        conn.execute("COMMIT")
        spent += time.thread_time() - began
    conn.close()
    return spent / count


def recorded(path: Path) -> tuple[list, list]:
    with sqlite3.connect(path) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(report_events)") if row[1] != "stored_at"]
        events = conn.execute(f"SELECT {', '.join(columns)} FROM report_events ORDER BY id").fetchall()
        last = conn.execute("SELECT last_event_id FROM data_revision").fetchone()[0]
        assert [event[0] for event in events] == list(range(1, last + 1)), "ids not gap-free up to the counter"
        return events, conn.execute("SELECT * FROM report_event_cells ORDER BY name").fetchall()


def main(args) -> None:
    url = scratch_sqlite("stream_triggers")
    engine = db.create_engine(url)
    db.upgrade(engine)
    engine.dispose()
    source = Path(db.normalize_url(url).database)
    paths = {name: OUT / f"scratch_stream_triggers_{n}.db" for n, name in enumerate(VARIANTS)}
    today = None
    for name, variant in VARIANTS.items():
        copy_with(source, paths[name], variant)
        insert(paths[name], 0, 4000)
        if variant is not None and name != "the report's event only (no cell events; not a candidate)":
            made = recorded(paths[name])
            today = today or made
            assert made == today, f"{name}: not the events of today's triggers"
    spent: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for round_ in range(args.rounds):
        for name in VARIANTS:
            spent[name].append(insert(paths[name], 10**6 * (round_ + 1), args.reports) * 1e6)
    lines = [
        f"### SQLite's stream event triggers ({label('status_stream_triggers')})",
        "",
        f"µs of CPU per report stored ({BATCH} a transaction, {args.reports} a round, {args.rounds} rounds "
        "alternating; median, then each round):",
        "",
        "| event triggers | µs / report | rounds |",
        "|---|---|---|",
        *(
            f"| {name} | {statistics.median(values):.0f} | {', '.join(f'{v:.0f}' for v in values)} |"
            for name, values in spent.items()
        ),
    ]
    write_out("status_stream_triggers.md", "\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reports", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    main(parser.parse_args())
