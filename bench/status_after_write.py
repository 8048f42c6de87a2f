"""What readers see in the second after a write. `sathub serve` as shipped (replay, answer cache) is
read by --readers keep-alive connections (a closed loop of a small asyncio client on uvloop) while
one more connection POSTs a report every --write-every seconds. Every write moves the data
revision, so the next read of each answer in each worker computes it again (the replay and the
cache answer nothing older), and the reads of that answer arriving meanwhile wait for it.

Each read is timed and counted by when it was sent: "after a write" from the moment a POST is
sent until one second after its 201, "other" for the rest of the run. Both groups come from the
same run, side by side; the difference is what a write costs the readers.

    python -m bench.status_after_write --database-url sqlite:///bench/out/status.db [--duration 6]
    python -m bench.status_after_write --database-url sqlite:///bench/out/status_live.db --only page

`page` (the status page, gzip) is left out unless asked: on the 30-day benchmark dataset it is a
28 MB page; the live-density dataset (`status_dataset --days 3000`) is the one for it.
Writes bench/out/status_after_write_<backend>[_<only>].md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from datetime import UTC, datetime

import uvloop

from bench.clients import HttpConnection, HttpError
from bench.common import Server, backend_of, database_facts, label, percentile, write_out

READS = [  # (label, path, headers)
    ("sat_info", "/api/v1/sat_info.php?name=AO-91&hours=72", {}),
    ("reports 100/72h", "/api/v1/reports.php?hours=72&limit=100", {}),
    ("reports 500/24h", "/api/v1/reports.php?limit=500&hours=24", {}),
    ("catalog+stats", "/api/v1/catalog.php?include_stats=true", {}),
    ("summary 24h", "/api/v1/summary.php?hours=24", {}),
]
PAGE = ("page", "/", {"Accept-Encoding": "gzip"})
AFTER = 1.0  # seconds after a write's 201 that count as "the second after a write"


async def measure(port: int, path: str, headers: dict, seconds: float, readers: int, every: float | None) -> dict:
    """Reads for `seconds`, and a write every `every` seconds (None: no write)."""
    reads: list[tuple[float, float]] = []  # (sent, ms)
    writes: list[tuple[float, float]] = []  # (sent, acknowledged)
    failures: list[str] = []
    stop = asyncio.Event()

    async def pause(seconds: float) -> None:
        try:
            await asyncio.wait_for(stop.wait(), seconds)
        except TimeoutError:
            pass

    async def reader() -> None:
        conn = HttpConnection(port)
        while not stop.is_set():
            sent = time.monotonic()
            try:
                status, _, _ = await conn.request("GET", path, headers=headers)
            except HttpError as error:
                failures.append(str(error))
                continue
            if status != 200:
                failures.append(str(status))
            reads.append((sent, (time.monotonic() - sent) * 1000))
        await conn.close()

    async def writer() -> None:
        conn, number = HttpConnection(port), 0
        await pause(every / 2)
        while not stop.is_set():
            number += 1
            body = json.dumps(
                {
                    "name": "AO-91",
                    "report": "Heard",
                    "callsign": f"Z{number % 10}AW{number % 26:02d}",
                    "grid_square": "EM48",
                    "reported_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            ).encode()
            sent = time.monotonic()
            try:
                status, _, _ = await conn.request(
                    "POST", "/api/v1/reports.php", body, {"Content-Type": "application/json"}
                )
            except HttpError as error:
                failures.append(f"POST {error}")
                continue
            if status != 201:
                failures.append(f"POST {status}")
            writes.append((sent, time.monotonic()))
            await pause(max(0.0, sent + every - time.monotonic()))
        await conn.close()

    tasks = [asyncio.create_task(reader()) for _ in range(readers)] + ([asyncio.create_task(writer())] if every else [])
    began = time.monotonic()
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks)
    after, other = [], []
    for sent, ms in reads:
        near = any(w_sent <= sent < acked + AFTER for w_sent, acked in writes)
        (after if near else other).append(ms)
    return {
        "after": after,
        "other": other,
        "writes": writes,
        "failures": failures,
        "rps": len(reads) / (time.monotonic() - began),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--duration", type=float, default=6, help="seconds per endpoint")
    parser.add_argument("--write-every", type=float, default=2.0, help="seconds between two writes")
    parser.add_argument("--readers", type=int, default=16, help="reading connections (closed loop)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--only",
        action="append",
        metavar="LABEL",
        help="only the reads whose label contains LABEL (repeatable); `page` for the status page",
    )
    args = parser.parse_args()
    reads = [r for r in [*READS, PAGE] if any(part in r[0] for part in args.only)] if args.only else READS
    backend = backend_of(args.database_url)
    facts = database_facts(args.database_url)
    lines = [
        label(
            f"**status_after_write, {facts}** — `sathub serve --workers {args.workers}`; "
            f"{args.readers} reading connections (closed loop) for {args.duration:g} s per read while one "
            f"more POSTs a report every {args.write_every:g} s; reads grouped by when they were sent: "
            f"from a POST until {AFTER:g} s after its 201, or other"
        ),
        "",
        "| read | reads/s | writes | reads after a write | p50 ms | p99 ms | max ms | other reads | p50 ms "
        "| p99 ms | max ms | failures |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    with Server.sathub(args.database_url, workers=args.workers, log=f"status_after_write_{backend}") as server:
        server.wait_up("/api/v1/health.php")
        for name, path, headers in reads:
            with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                runner.run(measure(server.port, path, headers, 1, args.readers, None))  # warm-up, no write
                result = runner.run(measure(server.port, path, headers, args.duration, args.readers, args.write_every))
            after, other = result["after"], result["other"]
            line = (
                f"| `{path}` | {result['rps']:,.0f} | {len(result['writes'])} | {len(after):,} | "
                f"{percentile(after, 50):.1f} | {percentile(after, 99):.1f} | {max(after, default=0):.1f} | "
                f"{len(other):,} | {percentile(other, 50):.1f} | {percentile(other, 99):.1f} | "
                f"{max(other, default=0):.1f} | {len(result['failures'])} |"
            )
            print(name, line, flush=True)
            if result["failures"]:
                print(name, "failures (first 5):", result["failures"][:5], flush=True)
            lines.append(line)
    suffix = "".join(f"_{part}" for part in args.only or [])
    write_out(f"status_after_write_{backend}{suffix}.md", "\n".join(lines))


if __name__ == "__main__":
    main()
