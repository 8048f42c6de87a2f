"""Interface A: SQL statements per request at two data sizes, and the query plan of each statement.

    python -m bench.status_sql --small sqlite:///bench/out/status_1k.db --large sqlite:///bench/out/status.db

Runs the real app in-process (the ASGI app called directly) against each database, records every
statement the driver executes (SQLAlchemy's before_cursor_execute, and the revision probe, which
runs on a raw cursor) for each benchmarked request, as a hit (the same request again, no write
between) and as a miss (bench/status_miss_app.py: the answer computed for the request), and shows
that the count does not depend on the data size. Then, on the large database, it runs
each recorded statement again under EXPLAIN QUERY PLAN (SQLite) or EXPLAIN (ANALYZE, BUFFERS)
(PostgreSQL, inside a rolled-back transaction) with the very parameters the app used, and flags
full scans of the reports table. Writes bench/out/status_sql_<backend>.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import string
import time
from datetime import UTC, datetime

from sqlalchemy import event

from bench.clients import asgi_request
from bench.common import backend_of, label, write_out
from bench.status_load import ENDPOINTS, SAMPLE_POST
from bench.status_miss_app import forgetful, with_miss
from sathub.app import create_app
from sathub.config import Settings
from sathub.db import create_engine
from sathub.db.revision_probe import RevisionProbe


def post_body(callsign: str) -> dict:
    return dict(SAMPLE_POST, callsign=callsign, reported_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


def requests_to_make() -> list[tuple[str, str, str, dict | None]]:
    """The benchmarked requests; the POST twice in the same slot (insert, then replacement)."""
    made = [(name, method, path, None) for name, method, path in ENDPOINTS if method == "GET"]
    callsign = "K1" + "".join(random.choices(string.ascii_uppercase, k=3))  # most likely a fresh slot
    made.append(("POST (new slot)", "POST", "/api/v1/reports.php", post_body(callsign)))
    made.append(("POST (replaces)", "POST", "/api/v1/reports.php", post_body(callsign)))
    return made


def record(url: str, cache: bool) -> tuple[object, dict[str, list[tuple[str, object]]]]:
    """{label: [(statement, parameters)...]} for one request of each kind, after a warm-up;
    with cache=False every read computes its answer (a miss)."""
    engine = create_engine(url)
    app = create_app(Settings.from_env(database_url=url), engine=engine)
    if not cache:
        forgetful(app)
    original = RevisionProbe.read

    def counted(self):
        """The revision probe runs on a raw DBAPI cursor, which SQLAlchemy's events do not see."""
        if seen is not None:
            seen.append((RevisionProbe.QUERY, ()))
        return original(self)

    RevisionProbe.read = counted
    seen: list | None = None

    @event.listens_for(engine, "before_cursor_execute")
    def remember(conn, cursor, statement, parameters, context, executemany):
        if seen is not None:
            seen.append((statement, parameters))

    recorded = {}
    headers = [(b"host", b"bench.example"), (b"content-type", b"application/json")]

    async def each() -> None:
        nonlocal seen
        for name, method, path, body in requests_to_make():
            if method == "GET":
                await asgi_request(app, method, path)  # warm-up: pooled connection, SQLAlchemy's compiled cache
                if not cache:  # a request of its own, which the replay of whole answers cannot answer
                    path = with_miss(path, "sql")
            seen = []
            status, answer = await asgi_request(app, method, path, json.dumps(body).encode() if body else b"", headers)
            assert status in (200, 201), (name, status, answer[:200])
            recorded[name], seen = seen, None

    try:
        asyncio.run(each())
    finally:
        RevisionProbe.read = original
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
    parser.add_argument("--small", required=True, help="database URL of the small dataset (1k reports)")
    parser.add_argument("--large", required=True, help="database URL of the large dataset (1M reports)")
    args = parser.parse_args()
    _, small_hit = record(args.small, cache=True)
    _, large_hit = record(args.large, cache=True)
    _, small = record(args.small, cache=False)
    large_engine, large = record(args.large, cache=False)

    backend = backend_of(args.large)
    lines = [
        label(
            f"**status_sql, {backend}** — statements per request; hit: the same request again, no "
            "write since; miss: the answer computed for the request (bench/status_miss_app.py)"
        ),
        "",
        "| request | hit, 1k | hit, 1M | miss, 1k | miss, 1M | equal |",
        "|---|---:|---:|---:|---:|:-:|",
    ]
    for name in large:
        counts = [len(small_hit[name]), len(large_hit[name]), len(small[name]), len(large[name])]
        equal = counts[0] == counts[1] and counts[2] == counts[3]
        lines.append(f"| {name} | " + " | ".join(map(str, counts)) + f" | {'yes' if equal else '**NO**'} |")
    lines += ["", "Statements of a miss at 1M reports (BEGIN is the SQLite read transaction):", ""]
    for name, statements in large.items():
        lines.append(f"- {name}: " + "; ".join(f"`{' '.join(s.split())[:70]}`" for s, _ in statements))
    lines += ["", f"### Query plans at 1M reports — {backend}", ""]
    for name, statements in large.items():
        for statement, parameters in statements:
            if not statement.lstrip().upper().startswith(("SELECT", "INSERT", "WITH")):
                continue  # BEGIN / pragmas: nothing to plan
            plan, full, took = explain(large_engine, statement, parameters)
            flat = " ".join(statement.split())
            lines += [
                f"**{name}**{' — FULL SCAN of reports' if full else ''}"
                + (f" — {took:.2f} ms (median of 5, rows fetched)" if took else ""),
                "",
                f"```sql\n{flat[:600]}{' …' if len(flat) > 600 else ''}\n```",
                "",
                f"```\n{plan}\n```",
                "",
            ]
    write_out(f"status_sql_{backend}.md", "\n".join(lines))


if __name__ == "__main__":
    main()
