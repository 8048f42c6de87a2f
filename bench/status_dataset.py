"""Interface A benchmark dataset: N reports (default 1,000,000) over ~60 catalog satellites and the
last 30 days (or --days), skewed towards the popular satellites, loaded in bulk into SQLite or PostgreSQL.

    python -m bench.status_dataset --database-url sqlite:///bench/out/status.db [--if-missing]
    python -m bench.status_dataset --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench

The database is recreated from scratch: the SQLite file is deleted, the PostgreSQL database is
dropped and created again. Schema and catalog come from the real commands (`sathub db upgrade`,
`sathub catalog load`), so the benchmark runs against exactly what a deployment has.

Why the shapes below:
- reports are spread uniformly over [now - 30 days, now), so the 24/72-hour windows of the read
  endpoints hit today's data (~1/30 of the table per day), like a live service;
- satellites follow a Zipf law (s = 1.1) in catalog order, whose first rows are the popular ones
  (AO-91, ISS, SO-50, RS-44, FO-29...): the top satellite holds ~20 % of all reports;
- callsigns come from a pool of 30,000 realistic ones (US, European, Asian prefixes), each with a
  home grid (4 or 6 characters, some empty), and follow their own Zipf law (active operators);
- report values are mostly Heard; Crew Active only on ISS entries;
- the slot (name, day, hour, period, callsign) is unique, as the unique index demands: duplicates
  drawn by chance are simply skipped;
- ids grow with time (rows are inserted in time order), as they do in production;
- report_totals (per lower(name): count, newest day/hour) is computed from the same rows, because
  catalog.php?include_stats=true reads it instead of scanning reports.

Speed: the reports indexes are dropped, the rows bulk-loaded (SQLite: one transaction with
executemany; PostgreSQL: COPY), then the indexes are recreated from their own saved DDL.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import itertools
import random
import string
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

import sathub
from bench.common import recreate_database, report_count, vacuum_analyze
from sathub.db import normalize_url
from sathub.status import rules

CATALOG = Path(sathub.__file__).parent / "data" / "catalog.csv"

SATELLITES = 60
DAYS = 30
CALLSIGNS = 30_000
REPORT_WEIGHTS = {"Heard": 0.78, "Telemetry Only": 0.08, "Not Heard": 0.14}
ISS_REPORT_WEIGHTS = {"Heard": 0.55, "Telemetry Only": 0.05, "Not Heard": 0.15, "Crew Active": 0.25}

# (prefix pattern, weight): roughly the mix of a real satellite-operator population.
PREFIXES = [
    ("K", 8),
    ("W", 8),
    ("N", 6),
    ("A", 3),
    ("KB", 2),
    ("KD", 2),
    ("KE", 2),
    ("KC", 2),
    ("VE", 3),
    ("G", 3),
    ("M", 2),
    ("DL", 4),
    ("DK", 2),
    ("F", 3),
    ("EA", 3),
    ("I", 2),
    ("IK", 2),
    ("PA", 2),
    ("ON", 1),
    ("OH", 1),
    ("SP", 2),
    ("OK", 1),
    ("HA", 1),
    ("YO", 1),
    ("JA", 3),
    ("JH", 2),
    ("VK", 2),
    ("ZL", 1),
    ("PY", 2),
    ("LU", 1),
    ("XE", 1),
    ("CT", 1),
    ("EI", 1),
    ("LA", 1),
    ("SM", 1),
    ("OZ", 1),
    ("9A", 1),
    ("S5", 1),
    ("UA", 2),
    ("BG", 1),
]
# Grid fields per region (first two letters of the locator), so a DL call gets a JO grid.
FIELDS = {
    "K": "EM FN DM CN EN",
    "W": "EM FN DM CN EN",
    "N": "EM FN DM CN EN",
    "A": "EM FN DM",
    "KB": "EM FN",
    "KD": "EM DM",
    "KE": "FN EN",
    "KC": "CN DM",
    "VE": "FN EN DO CO",
    "G": "IO JO",
    "M": "IO",
    "DL": "JO JN",
    "DK": "JO JN",
    "F": "JN IN",
    "EA": "IN IM JN",
    "I": "JN",
    "IK": "JN",
    "PA": "JO",
    "ON": "JO",
    "OH": "KP",
    "SP": "JO KO",
    "OK": "JN JO",
    "HA": "JN KN",
    "YO": "KN",
    "JA": "PM QM",
    "JH": "PM",
    "VK": "QF QG PF",
    "ZL": "RF",
    "PY": "GG GH",
    "LU": "GF FF",
    "XE": "EK DL",
    "CT": "IM IN",
    "EI": "IO",
    "LA": "JO JP",
    "SM": "JO JP",
    "OZ": "JO",
    "9A": "JN",
    "S5": "JN",
    "UA": "KO LO",
    "BG": "OM OL",
}


def zipf_cumulative(n: int, s: float) -> list[float]:
    return list(itertools.accumulate(1 / (k**s) for k in range(1, n + 1)))


def pick(cumulative: list[float], rng: random.Random) -> int:
    return bisect.bisect(cumulative, rng.random() * cumulative[-1])


def make_callsigns(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """`count` distinct valid callsigns, each with a home grid ('' for ~10 %)."""
    prefixes = [p for p, _ in PREFIXES]
    cumulative = list(itertools.accumulate(w for _, w in PREFIXES))
    seen: set[str] = set()
    result = []
    while len(result) < count:
        prefix = prefixes[pick(cumulative, rng)]
        suffix = "".join(rng.choices(string.ascii_uppercase, k=rng.choice((2, 3, 3, 3))))
        call = f"{prefix}{rng.randint(0, 9)}{suffix}"
        if call in seen or not rules.is_valid_callsign(call):
            continue
        seen.add(call)
        roll = rng.random()
        if roll < 0.10:
            grid = ""
        else:
            grid = rng.choice(FIELDS[prefix].split()) + f"{rng.randint(0, 99):02d}"
            if roll < 0.45:  # some give the 6-character locator
                grid += rng.choice("abcdefghijklmnopqrstuvwx") + rng.choice("abcdefghijklmnopqrstuvwx")
        result.append((call, grid))
    return result


def generate(count: int, seed: int, now: datetime, days: int = DAYS) -> tuple[list[tuple], dict]:
    """Rows (name, day, hour, period, callsign, report, grid) in time order, and report_totals."""
    rng = random.Random(seed)
    with open(CATALOG, newline="", encoding="utf-8") as handle:
        names = [row["name"] for row in csv.DictReader(handle)][:SATELLITES]
    sat_cum = zipf_cumulative(len(names), 1.1)
    calls = make_callsigns(rng, CALLSIGNS)
    call_cum = zipf_cumulative(len(calls), 0.8)
    values = {}
    for i, name in enumerate(names):
        weights = ISS_REPORT_WEIGHTS if name.upper().startswith("ISS") else REPORT_WEIGHTS
        values[i] = (list(weights), list(itertools.accumulate(weights.values())))
    start = now - timedelta(days=days)
    span = int((now - start).total_seconds())
    slots: set[tuple] = set()
    rows = []
    while len(rows) < count:
        sat = pick(sat_cum, rng)
        call = pick(call_cum, rng)
        instant = start + timedelta(seconds=rng.randrange(span))
        day, hour, period = instant.date(), instant.hour, rules.period_of_minute(instant.minute)
        key = (sat, day, hour, period, call)
        if key in slots:  # the slot is taken: the unique index allows one report
            continue
        slots.add(key)
        labels, cumulative = values[sat]
        report = labels[pick(cumulative, rng)]
        callsign, grid = calls[call]
        rows.append((names[sat], day, hour, period, callsign, report, grid))
    rows.sort(key=lambda r: (r[1], r[2], r[3]))  # ids grow with time, as in production
    totals: dict[str, list] = {}
    for name, day, hour, *_ in rows:
        entry = totals.setdefault(name.lower(), [0, day, hour])
        entry[0] += 1
        if (day, hour) > (entry[1], entry[2]):
            entry[1], entry[2] = day, hour
    return rows, totals


# The reports table's own triggers (the hourly counts of 0004/0007, the push events of 0009) cost a
# few milliseconds a row on a shared machine: over an hour for a million. A history is imported
# once, not submitted: the triggers are set aside while it loads, the hourly counts rebuilt from the
# rows in one statement after, and the events table stays empty (an import is not news).
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


def bulk_load(url: sa.URL, rows: list[tuple], totals: dict) -> None:
    engine = sa.create_engine(url)
    postgres = url.get_backend_name() == "postgresql"
    with engine.begin() as conn:
        if postgres:
            indexes = conn.execute(
                sa.text(
                    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'reports' "
                    "AND indexname <> 'reports_pkey'"
                )
            ).all()
        else:
            indexes = conn.execute(
                sa.text(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reports' "
                    "AND sql IS NOT NULL"
                )
            ).all()
        for name, _ in indexes:
            conn.execute(sa.text(f'DROP INDEX "{name}"'))
        raw = conn.connection.driver_connection
        if postgres:
            copy_in = "COPY reports (name, day, hour, period, callsign, report, grid_square) FROM STDIN"
            with raw.cursor() as cursor, cursor.copy(copy_in) as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            raw.executemany(
                "INSERT INTO reports (name, day, hour, period, callsign, report, grid_square) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                ((n, d.isoformat(), h, p, c, r, g) for n, d, h, p, c, r, g in rows),
            )
        conn.execute(sa.text("DELETE FROM report_totals"))
        conn.execute(
            sa.text(
                "INSERT INTO report_totals (name_key, report_count, latest_day, latest_hour) VALUES (:k, :c, :d, :h)"
            ),
            [{"k": k, "c": c, "d": d.isoformat(), "h": h} for k, (c, d, h) in totals.items()],
        )
        for _, ddl in indexes:
            conn.execute(sa.text(ddl))
    # Statistics for the planner: PostgreSQL's autovacuum would gather them on its own after a
    # load this size; SQLite never does unless asked, and the app does not ask.
    vacuum_analyze(engine)
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--reports", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20260523)
    parser.add_argument(
        "--days",
        type=int,
        default=DAYS,
        help="days the reports are spread over (3000: a live service's density, "
        "~2,000 reports in the status page's 6-day window)",
    )
    parser.add_argument(
        "--if-missing",
        action="store_true",
        help="do nothing when the database already holds at least --reports reports",
    )
    args = parser.parse_args()
    if args.if_missing and report_count(args.database_url) >= args.reports:
        print(f"{args.database_url}: {report_count(args.database_url):,} reports already, kept")
        return
    url = normalize_url(args.database_url)
    started = time.monotonic()
    now = datetime.now(UTC).replace(tzinfo=None)
    rows, totals = generate(args.reports, args.seed, now, args.days)
    generated = time.monotonic()
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
    top = sorted(totals.items(), key=lambda kv: -kv[1][0])[:4]
    print(
        f"{len(rows):,} reports, {len(totals)} satellites, generated in {generated - started:.1f}s, "
        f"loaded in {time.monotonic() - generated:.1f}s; top: " + ", ".join(f"{k} {v[0]:,}" for k, v in top)
    )


if __name__ == "__main__":
    main()
