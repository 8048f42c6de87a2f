"""Reads while reports arrive: wrk reads one endpoint of `sathub serve` with 64 connections while a
writer posts reports at a steady rate, for each write rate. Every write moves the data revision,
so the first read of each answer after it is computed again; this measures what that does to
the readers, which the read-only runs of status_load.py cannot show.

    .venv/bin/python bench/status_mixed.py --database-url sqlite:///bench/out/status_live.db --label sqlite

A live service receives a report every few minutes (a few hundred a day); 1/s is a busy pass
over a popular satellite; 10/s is far beyond any day seen. Writes more reports into the database.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import threading
import time
from datetime import UTC, datetime, timedelta

from status_load import BIN, OUT, code_version, database_facts, start, stop, wait_until_up, wrk

READS = [
    ("sat_info", "/api/v1/sat_info.php?name=AO-91&hours=72"),
    ("reports 100/72h", "/api/v1/reports.php?hours=72&limit=100"),
    ("summary 24h", "/api/v1/summary.php?hours=24"),
    ("status page", "/"),
]


GZIP = ("Accept-Encoding: gzip",)  # as browsers and most HTTP libraries send


class Writer(threading.Thread):
    """POSTs a report every 1/rate seconds (new slots and replacements of a few hundred callsigns)."""

    def __init__(self, port: int, rate: float):
        super().__init__(daemon=True)
        self.port, self.rate = port, rate
        self.stopping = threading.Event()
        self.sent = self.failed = 0

    def run(self) -> None:
        rng = random.Random(self.rate)
        calls = [f"{rng.choice(['K', 'W', 'DL', 'G', 'JA'])}{rng.randint(0, 9)}{rng.choice('ABCDEFGH')}"
                 f"{rng.choice('ABCDEFGH')}{rng.choice('ABCDEFGH')}" for _ in range(300)]
        next_at = time.monotonic()
        while not self.stopping.is_set():
            when = datetime.now(UTC) - timedelta(seconds=rng.randrange(3600))
            body = json.dumps({"name": rng.choice(["AO-91", "AO-91", "ISS-FM", "SO-50", "RS-44"]),
                               "report": rng.choice(["Heard", "Heard", "Heard", "Not Heard"]),
                               "callsign": rng.choice(calls), "reported_at": when.strftime("%Y-%m-%dT%H:%M:%SZ")})
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            try:
                conn.request("POST", "/api/v1/reports.php", body, {"Content-Type": "application/json"})
                status = conn.getresponse().status
                self.sent += 1
                self.failed += status != 201
            except OSError:
                self.failed += 1
            finally:
                conn.close()
            next_at += 1 / self.rate
            self.stopping.wait(max(0.0, next_at - time.monotonic()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--label", required=True, help="names the output: bench/out/status_mixed_<label>.md")
    parser.add_argument("--rates", default="0,1,10", help="writes per second, comma-separated")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--port", type=int, default=8761)
    args = parser.parse_args()
    rates = [float(rate) for rate in args.rates.split(",")]
    facts = f"{database_facts(args.database_url)}; code {code_version()}"
    base = f"http://127.0.0.1:{args.port}"
    server = start([str(BIN / "sathub"), "serve", "--host", "127.0.0.1", "--port", str(args.port),
                    "--workers", "2", "--database-url", args.database_url], {"SATHUB_LOG_LEVEL": "warning"})
    lines = [f"**{args.label}** — {facts}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; `sathub serve --workers 2`; "
             f"wrk -t1 -c64 -d{args.duration}s with `Accept-Encoding: gzip` per read while one writer "
             "POSTs at the given rate.", "",
             "| read | writes/s | read req/s | p50 ms | p99 ms | non-2xx reads | writes sent | writes failed |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    try:
        wait_until_up(base + "/api/v1/health.php")
        for label, path in READS:
            wrk(base, "GET", path, 2, 64, 1, GZIP)  # warm-up
            for rate in rates:
                writer = Writer(args.port, rate) if rate else None
                if writer:
                    writer.start()
                result = wrk(base, "GET", path, args.duration, 64, 1, GZIP)
                if writer:
                    writer.stopping.set()
                    writer.join()
                line = (f"| `{path}` | {rate:g} | {result['rps']:,.0f} | {result['p50']:.1f} | {result['p99']:.1f} "
                        f"| {result['errors']} | {writer.sent if writer else 0} | {writer.failed if writer else 0} |")
                print(line, flush=True)
                lines.append(line)
    finally:
        stop(server)
    OUT.mkdir(exist_ok=True)
    (OUT / f"status_mixed_{args.label}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
