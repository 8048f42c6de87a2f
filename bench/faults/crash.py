"""Crash (issue 14): under full write load (C concurrent keep-alive POSTs, 30 % into 500 hot slots,
every 201 and its body recorded), `kill -9` the `sathub serve` process group K times at random
moments, restarting it each time while the load goes on; then stop it cleanly. Checks: every
acknowledged report is stored (per slot the highest acknowledged id with its value, or a later id
only when a request to that slot went unanswered at a crash); no duplicate slot rows; the database
opens cleanly (SQLite `PRAGMA integrity_check` = ok, PostgreSQL a count works); no 5xx.

    python -m bench.faults.crash                       # SQLite and PostgreSQL, 10 kills each
    python -m bench.faults.crash --backend sqlite --kills 50 --workers 1
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import time

import sqlalchemy as sa

from bench.clients import HttpConnection, HttpError
from bench.common import OUT, Server, code_version, now_utc, scratch_postgres, scratch_sqlite, write_out
from bench.faults.ledger import POST_HEADERS, Ledger, Slots, body_bytes, stored_rows, verify
from sathub import db


async def run(
    server: Server, clients: int, kills: int, interval: tuple[float, float], tail: float, ledger: Ledger
) -> dict:
    slots, stop = Slots(seed=random.randrange(1 << 30)), asyncio.Event()
    restarts: list[float] = []
    acks_at_kill: list[int] = []

    async def client() -> None:
        conn = HttpConnection(server.port)
        while not stop.is_set():
            slot, body = slots.next()
            ledger.record_sent(slot)
            try:
                status, _, data = await conn.request(
                    "POST", "/api/v1/reports.php", body_bytes(body), POST_HEADERS, timeout=15
                )
            except HttpError:
                ledger.record(slot, None, None)
                await asyncio.sleep(0.05)
                continue
            ledger.record(slot, status, data)
        await conn.close()

    tasks = [asyncio.create_task(client()) for _ in range(clients)]
    for _ in range(kills):
        before = ledger.acks
        await asyncio.sleep(random.uniform(*interval))
        if ledger.acks == before:
            raise RuntimeError("no POST acknowledged between two crashes: the load is not running")
        acks_at_kill.append(ledger.acks)
        await asyncio.to_thread(server.kill9)
        await asyncio.to_thread(server.start)
        restarts.append(await asyncio.to_thread(server.wait_up))
    await asyncio.sleep(tail)
    stop.set()
    await asyncio.gather(*tasks)
    return {"restarts": restarts, "acks_at_kill": acks_at_kill}


def opens_cleanly(url: str) -> str:
    if url.startswith("sqlite"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
            count = conn.execute("SELECT count(*) FROM reports").fetchone()[0]
        if integrity != "ok":
            return f"**integrity_check {integrity}**"
        return f"integrity_check ok; {count:,} rows"
    engine = db.create_engine(url)
    try:
        with engine.connect() as conn:
            count = conn.execute(sa.text("SELECT count(*) FROM reports")).scalar()
            conn.execute(sa.text("SELECT count(*) FROM report_totals")).scalar()
        return f"count ok; {count:,} rows"
    finally:
        engine.dispose()


def one_backend(backend: str, args) -> tuple[list[str], bool]:
    drop = None
    if backend == "sqlite":
        url = scratch_sqlite("crash")
    else:
        url, drop = scratch_postgres("crash")
    server = Server.sathub(url, workers=args.workers, log=f"faults_crash_{backend}")
    server.log.write_text("")
    ledger = Ledger()
    began = time.monotonic()
    try:
        server.start()
        server.wait_up()
        facts = asyncio.run(
            run(server, args.clients, args.kills, (args.min_interval, args.max_interval), args.tail, ledger)
        )
        server.stop()
        elapsed = time.monotonic() - began
        clean = opens_cleanly(url)
        result = verify(ledger, stored_rows(url))
    finally:
        server.stop()
        if drop:
            drop()
    five = sum(n for status, n in ledger.statuses.items() if isinstance(status, int) and status >= 500)
    tracebacks = server.log.read_text(errors="replace").count("Traceback")
    checks = {
        "every acknowledged report present": result["missing"] == 0 and result["wrong"] == 0,
        "no duplicate slot rows": result["duplicates"] == 0,
        "database opens cleanly": "**" not in clean,
        "0 5xx": five == 0,
    }
    statuses = ", ".join(f"{k}: {v:,}" for k, v in sorted(ledger.statuses.items(), key=str))
    restarts = facts["restarts"]
    lines = [
        f"| {backend} | {len(restarts)} | {elapsed:.0f} | {ledger.acks:,} | {statuses} | "
        f"{result['acked_slots']:,} | {result['missing']} / {result['wrong']} | {result['later_unacked']} | "
        f"{result['unacked_stored']} | {result['duplicates']} | {clean} | "
        f"{min(restarts):.1f} / {max(restarts):.1f} | {tracebacks} | "
        + ("ok" if all(checks.values()) else "**FAILED: " + ", ".join(n for n, ok in checks.items() if not ok) + "**")
        + " |"
    ]
    if result["examples"] or ledger.errors:
        print(backend, "examples:", result["examples"], ledger.errors[:5], file=sys.stderr)
    return lines, all(checks.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers of the killed server")
    parser.add_argument("--min-interval", type=float, default=1.0, help="seconds of load before a kill (min)")
    parser.add_argument("--max-interval", type=float, default=3.0)
    parser.add_argument("--tail", type=float, default=2.0, help="seconds of load after the last restart")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    version = code_version()
    rows, ok = [], True
    for backend in ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]:
        lines, passed = one_backend(backend, args)
        rows += lines
        ok &= passed
    text = "\n".join(
        [
            f"**Crash** — `sathub serve --workers {args.workers}` under {args.clients} concurrent keep-alive POSTs "
            f"(30 % into 500 hot slots), `kill -9` of its process group {args.kills} times after "
            f"{args.min_interval:g}–{args.max_interval:g} s of load each, restarted at once, load continued, "
            f"{args.tail:g} s more, clean stop; SQLite WAL + synchronous=NORMAL; code {version}; {now_utc()}.",
            "",
            "| backend | kills | s | 201s | answers by status | slots acknowledged "
            "| acknowledged slot missing / other id or value | slot replaced by an unanswered request "
            "| unacknowledged slot stored | duplicate slot rows | database after "
            "| restart s min / max | tracebacks in log | check |",
            "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|---:|---|",
            *rows,
        ]
    )
    write_out(f"faults_crash_{args.backend}.md", text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
