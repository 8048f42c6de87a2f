"""Concurrency across processes (issue 14): N `sathub serve --workers 1` processes, started at the
same moment on one fresh PostgreSQL database (each migrates and loads the default catalog), then
C keep-alive connections spread over their ports send P report POSTs, 30 % into 500 hot slots
that replace each other. Checks: every process started; stored rows = distinct slots sent; each
slot holds the report of its last acknowledged POST (highest acknowledged id, same value); 0 5xx,
0 unanswered. Prints a markdown table; exit status 1 when a check fails.

    python -m bench.faults.multiprocess            # 4 processes, 64 connections, 20,000 POSTs
    python -m bench.faults.multiprocess --posts 100000 --processes 8
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from bench.clients import HttpConnection, HttpError
from bench.common import OUT, Server, code_version, now_utc, percentile, scratch_postgres, write_out
from bench.faults.ledger import POST_HEADERS, Ledger, Slots, body_bytes, stored_rows, verify


async def load(ports: list[int], connections: int, posts: int, ledger: Ledger, slots: Slots) -> list[float]:
    latencies: list[float] = []
    remaining = [posts]

    async def client(number: int) -> None:
        conn = HttpConnection(ports[number % len(ports)])
        while remaining[0] > 0:
            remaining[0] -= 1
            slot, body = slots.next()
            ledger.record_sent(slot)
            started = time.monotonic()
            try:
                status, _, data = await conn.request(
                    "POST", "/api/v1/reports.php", body_bytes(body), POST_HEADERS, timeout=30
                )
            except HttpError:
                ledger.record(slot, None, None)
                continue
            latencies.append((time.monotonic() - started) * 1000)
            ledger.record(slot, status, data)
        await conn.close()

    await asyncio.gather(*(client(n) for n in range(connections)))
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--posts", type=int, default=20_000)
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()

    OUT.mkdir(parents=True, exist_ok=True)
    url, drop = scratch_postgres("multi")
    (OUT / "faults_multiprocess.log").write_text("")
    servers = [
        Server.sathub(
            url, workers=1, log="faults_multiprocess", env={"SATHUB_DB_POOL_SIZE": "5", "SATHUB_DB_MAX_OVERFLOW": "5"}
        )
        for _ in range(args.processes)
    ]
    version = code_version()
    started_ok, exits = 0, []
    try:
        for server in servers:  # all at once on the empty database
            server.start()
        for server in servers:
            try:
                server.wait_up()
                started_ok += 1
            except RuntimeError as error:
                exits.append(str(error))
        if exits:
            print("\n".join(exits), file=sys.stderr)
        ports = [s.port for s in servers if s.process.poll() is None]
        ledger, slots = Ledger(), Slots()
        began = time.monotonic()
        latencies = asyncio.run(load(ports, args.connections, args.posts, ledger, slots))
        elapsed = time.monotonic() - began
        for server in servers:
            server.stop()
        result = verify(ledger, stored_rows(url))
    finally:
        for server in servers:
            server.stop()
        if not args.keep_database:
            drop()

    five = sum(n for status, n in ledger.statuses.items() if isinstance(status, int) and status >= 500)
    unanswered = ledger.statuses.get("no answer", 0)
    checks = {
        "processes up": started_ok == args.processes,
        "stored rows = distinct slots sent": result["stored"] == result["distinct_sent"],
        "every slot = its last acknowledged POST": result["missing"] == 0 and result["wrong"] == 0,
        "no duplicate slot rows": result["duplicates"] == 0,
        "0 5xx, 0 unanswered": five == 0 and unanswered == 0,
    }
    statuses = ", ".join(f"{k}: {v:,}" for k, v in sorted(ledger.statuses.items(), key=str))
    lines = [
        f"**Concurrency across processes** — PostgreSQL, {args.processes} × `sathub serve --workers 1` "
        f"(pool 5 + overflow 5) started together on a fresh database; {args.connections} keep-alive "
        f"connections spread over the ports; {args.posts:,} POSTs, 30 % into 500 hot slots; code {version}; "
        f"{now_utc()}.",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| processes started / asked | {started_ok} / {args.processes} |",
        f"| POSTs sent | {sum(ledger.sent.values()):,} |",
        f"| answers by status | {statuses} |",
        f"| POST/s (all processes) | {args.posts / elapsed:,.0f} |",
        f"| latency p50 / p99 ms | {percentile(latencies, 50):.1f} / {percentile(latencies, 99):.1f} |",
        f"| distinct slots sent / rows stored | {result['distinct_sent']:,} / {result['stored']:,} |",
        f"| slots acknowledged | {result['acked_slots']:,} |",
        "| slot rows ≠ last acknowledged POST (missing / other id or value) | "
        f"{result['missing']} / {result['wrong']} |",
        f"| duplicate rows in a slot | {result['duplicates']} |",
        *(f"| check: {name} | {'ok' if ok else '**FAILED**'} |" for name, ok in checks.items()),
    ]
    text = "\n".join(lines)
    write_out("faults_multiprocess.md", text)
    if result["examples"] or ledger.errors:
        print("examples:", result["examples"], ledger.errors[:5], file=sys.stderr)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
