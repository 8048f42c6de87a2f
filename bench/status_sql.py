"""Interface A: SQL statements per request at two data sizes, and the query plan of each statement.

    .venv/bin/python bench/status_sql.py --label sqlite \
        --small sqlite:///bench/out/status_1k.db --large sqlite:///bench/out/status.db

Runs the real app in-process (Starlette's TestClient) against each database, records every
statement the driver executes (SQLAlchemy's before_cursor_execute) for each benchmarked request,
with the answer cache on (hits) and off (misses), and shows that the count does not depend on the
data size. Then, on the large database, it runs
each recorded statement again under EXPLAIN QUERY PLAN (SQLite) or EXPLAIN (ANALYZE, BUFFERS)
(PostgreSQL, inside a rolled-back transaction) with the very parameters the app used, and flags
full scans of the reports table. Writes bench/out/status_sql_<label>.md.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import string
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import event
from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from status_load import ENDPOINTS, SAMPLE_POST  # noqa: E402
from status_nocache_app import switch_off  # noqa: E402

from sathub.app import create_app  # noqa: E402
from sathub.config import Settings  # noqa: E402
from sathub.db import create_engine  # noqa: E402
from sathub.status.revision import RevisionProbe  # noqa: E402


def post_body(callsign: str) -> dict:
    return dict(SAMPLE_POST, callsign=callsign, reported_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


def requests_to_make() -> list[tuple[str, str, str, dict | None]]:
    """The benchmarked requests; the POST twice in the same slot (insert, then replacement)."""
    made = [(label, method, path, None) for label, method, path in ENDPOINTS if method == "GET"]
    callsign = "K1" + "".join(random.choices(string.ascii_uppercase, k=3))  # most likely a fresh slot
    made.append(("POST (new slot)", "POST", "/api/v1/reports.php", post_body(callsign)))
    made.append(("POST (replaces)", "POST", "/api/v1/reports.php", post_body(callsign)))
    return made


def record(url: str, cache: bool) -> tuple[object, dict[str, list[tuple[str, object]]]]:
    """{label: [(statement, parameters)...]} for one request of each kind, after a warm-up;
    with cache=False the app's answer cache is off, so every read runs its queries."""
    engine = create_engine(url)
    app = create_app(Settings.from_env(database_url=url), engine=engine)
    if not cache:
        switch_off(app)
    original = RevisionProbe._read

    def counted(self):
        """The revision probe runs on a raw DBAPI cursor, which SQLAlchemy's events do not see."""
        if seen is not None:
            seen.append((RevisionProbe.QUERY, ()))
        return original(self)

    RevisionProbe._read = counted
    seen: list | None = None

    @event.listens_for(engine, "before_cursor_execute")
    def remember(conn, cursor, statement, parameters, context, executemany):
        if seen is not None:
            seen.append((statement, parameters))

    recorded = {}
    with TestClient(app) as client:
        for label, method, path, body in requests_to_make():
            if method == "GET":
                client.get(path)  # warm-up: pooled connection, SQLAlchemy's compiled cache
            seen = []
            response = client.request(method, path, json=body)
            assert response.status_code in (200, 201), (label, response.status_code, response.text[:200])
            recorded[label], seen = seen, None
    RevisionProbe._read = original
    return engine, recorded


def explain(engine, statement: str, parameters) -> tuple[str, bool, float]:
    """The plan text, whether it reads the whole reports table, and the median wall time (ms) of
    5 runs of the statement with its rows fetched (SELECTs only; 0 for writes)."""
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        times = []
        if statement.lstrip().upper().startswith(("SELECT", "WITH")):
            for _ in range(5):
                began = time.perf_counter()
                cursor.execute(statement, parameters)
                cursor.fetchall()
                times.append((time.perf_counter() - began) * 1000)
        if engine.dialect.name == "sqlite":
            cursor.execute("EXPLAIN QUERY PLAN " + statement, parameters)
            lines = [row[3] for row in cursor.fetchall()]
            full = any(re.match(r"SCAN reports(?! USING)", line) for line in lines)
        else:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + statement, parameters)
            lines = [row[0] for row in cursor.fetchall()]
            full = any("Seq Scan on reports" in line for line in lines)
        return "\n".join(lines), full, statistics.median(times) if times else 0.0
    finally:
        raw.rollback()  # EXPLAIN ANALYZE of an INSERT really runs it
        raw.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--small", required=True, help="database URL of the small dataset (1k reports)")
    parser.add_argument("--large", required=True, help="database URL of the large dataset (1M reports)")
    args = parser.parse_args()
    _, small_hit = record(args.small, cache=True)
    _, large_hit = record(args.large, cache=True)
    _, small = record(args.small, cache=False)
    large_engine, large = record(args.large, cache=False)

    lines = [f"### Statements per request — {args.label}", "",
             "Cache hit: the answer cache holds the answer (repeat request, no write since). "
             "Cache miss: the cache is off, every request queries.", "",
             "| request | hit, 1k | hit, 1M | miss, 1k | miss, 1M | equal |", "|---|---:|---:|---:|---:|:-:|"]
    for label in large:
        counts = [len(small_hit[label]), len(large_hit[label]), len(small[label]), len(large[label])]
        equal = counts[0] == counts[1] and counts[2] == counts[3]
        lines.append(f"| {label} | " + " | ".join(map(str, counts)) + f" | {'yes' if equal else '**NO**'} |")
    lines += ["", "Statements of a miss at 1M reports (BEGIN is the SQLite read transaction):", ""]
    for label, statements in large.items():
        lines.append(f"- {label}: " + "; ".join(f"`{' '.join(s.split())[:70]}`" for s, _ in statements))
    lines += ["", f"### Query plans at 1M reports — {args.label}", ""]
    for label, statements in large.items():
        for statement, parameters in statements:
            if not statement.lstrip().upper().startswith(("SELECT", "INSERT", "WITH")):
                continue  # BEGIN / pragmas: nothing to plan
            plan, full, took = explain(large_engine, statement, parameters)
            flat = " ".join(statement.split())
            lines += [f"**{label}**{' — FULL SCAN of reports' if full else ''}"
                      + (f" — {took:.2f} ms (median of 5, rows fetched)" if took else ""), "",
                      f"```sql\n{flat[:600]}{' …' if len(flat) > 600 else ''}\n```", "",
                      f"```\n{plan}\n```", ""]
    text = "\n".join(lines)
    (OUT / f"status_sql_{args.label}.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
