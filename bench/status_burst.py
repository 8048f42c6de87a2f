"""Write bursts (issue 14): 64 connections POST reports as fast as they can for a few seconds,
30 % of them into slots that already hold a report, against `sathub serve --workers 2` on the
1M-report dataset, while one more wrk reads summary.php. Checks that every acknowledged report
was stored (rows added = new slots sent, each hot slot one row) and prints a markdown table,
with the CPU time per request served (the server's processes and PostgreSQL's), the POSTs per
move of the data revision, and how the POST connections fell on the workers. --no-writes runs
the reader alone (the read p99 to compare the burst's with), --no-reads the burst alone.

    .venv/bin/python bench/status_burst.py --database-url sqlite:///bench/out/status.db --label sqlite
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from status_load import (  # noqa: E402
    BIN,
    OUT,
    ROOT,
    code_version,
    database_facts,
    group_cpu_seconds,
    postgres_cpu_seconds,
    start,
    stop,
    wait_until_up,
)

sys.path.insert(0, str(ROOT / "src"))
from sathub import db  # noqa: E402
from sathub.status.revision import RevisionProbe  # noqa: E402
from sathub.status.rules import period_of_minute  # noqa: E402
from sathub.status.store import reports as report_store  # noqa: E402

BURST_LUA = ROOT / "bench" / "wrk" / "status_burst.lua"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def hot_callsign(slot: int) -> str:
    """As status_burst.lua names the 500 hot slots."""
    letters, n = "", slot
    for _ in range(3):
        letters = LETTERS[n % 26] + letters
        n //= 26
    return f"Q{slot % 10}{letters}"


def prepare(engine, instant: datetime) -> None:
    """Clear the bench's own callsigns, then store one report in each hot slot."""
    with db.connect(engine, write=True) as conn:
        conn.execute(sa.text("DELETE FROM reports WHERE callsign LIKE 'Q%' OR callsign LIKE 'Z%'"))
        for slot in range(500):
            report_store.insert_or_replace_report(
                conn, name="AO-91", day=instant.date(), hour=instant.hour, period=period_of_minute(instant.minute),
                callsign=hot_callsign(slot), report="Heard", grid_square="EM48")


def counts(engine) -> tuple[int, int]:
    with db.connect(engine) as conn:
        new = conn.execute(sa.text("SELECT count(*) FROM reports WHERE callsign LIKE 'Z%'")).scalar()
        hot = conn.execute(sa.text("SELECT count(*) FROM reports WHERE callsign LIKE 'Q%'")).scalar()
    return new, hot


def revision(engine) -> int:
    with db.connect(engine) as conn:
        return conn.execute(sa.text(RevisionProbe.QUERY)).scalar()


def burst(base: str, seconds: int, connections: int, instant: str) -> tuple[dict, int, int]:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s",
               "-s", str(BURST_LUA), f"{base}/api/v1/reports.php", "--", instant]
    wrk = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    time.sleep(seconds / 2)
    spread = connections_per_worker(int(base.rsplit(":", 1)[1]), wrk.pid)
    text = wrk.communicate()[0]
    if wrk.returncode:
        raise RuntimeError(f"wrk exited {wrk.returncode}")
    hot, new = map(int, re.search(r"SENT hot=(\d+) new=(\d+)", text).groups())
    return {**parse(text), "spread": spread}, hot, new


def connections_per_worker(port: int, client_pid: int) -> str:
    """How the POSTing wrk's connections fell on the server's worker processes, e.g. "27/37": each
    worker accepts whatever connections arrive while it is the first awake, and the spread decides
    much of a round's p99 (bench/README.md, "Seventh session")."""
    lines = subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True, text=True).stdout
    ours, workers = set(), {}
    for line in lines.splitlines():
        local, peer = line.split()[2:4]
        owner = re.search(r"pid=(\d+)", line)
        if owner and int(owner.group(1)) == client_pid:
            ours.add(local)
        elif owner and local.endswith(f":{port}"):
            workers[peer] = owner.group(1)
    counts: dict[str, int] = {}
    for peer, worker in workers.items():
        if peer in ours:
            counts[worker] = counts.get(worker, 0) + 1
    return "/".join(str(n) for n in sorted(counts.values())) or "?"


def parse(text: str) -> dict:
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}

    def latency(percent: str) -> float:
        value, unit = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
        return float(value) * units[unit]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)), "p50": latency("50"),
            "p99": latency("99"), "requests": int(re.search(r"(\d+) requests in", text).group(1)),
            "errors": int(errors.group(1)) if errors else 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--duration", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=2,
                        help="seconds of POSTs before the first round, not measured: a server that has written "
                             "before, with its database connections open, as a burst after a pass finds it")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8761)
    parser.add_argument("--no-reads", action="store_true", help="the burst alone, without the summary.php reader")
    parser.add_argument("--no-writes", action="store_true",
                        help="the reader alone, no burst: the read p99 to compare the burst's with")
    parser.add_argument("--read-path", default="/api/v1/summary.php?hours=24",
                        help="what the reader GETs (statuses.php: an answer that needs no database)")
    args = parser.parse_args()

    engine = db.create_engine(args.database_url)
    base = f"http://127.0.0.1:{args.port}"
    server = start([str(BIN / "sathub"), "serve", "--workers", str(args.workers), "--port", str(args.port)],
                   {"SATHUB_DATABASE_URL": args.database_url, "SATHUB_LOG_LEVEL": "warning"})
    postgres = args.database_url.startswith("postgresql")

    def cpu_now() -> tuple[float, float]:
        return group_cpu_seconds(server.pid), postgres_cpu_seconds() if postgres else 0.0

    def prepared_instant() -> str:
        instant = (datetime.now(UTC) - timedelta(minutes=30)).replace(second=0, microsecond=0)
        prepare(engine, instant)
        return instant.strftime("%Y-%m-%dT%H:%M:%SZ")

    rows = []
    try:
        wait_until_up(f"{base}/api/v1/statuses.php")
        if args.warmup and not args.no_writes:
            burst(base, args.warmup, args.connections, prepared_instant())
            time.sleep(1)  # the writes in flight when wrk stopped land before the first round's count
        for _ in range(args.rounds):
            instant = prepared_instant()
            cpu, moves = cpu_now(), revision(engine)
            reads = None if args.no_reads else subprocess.Popen(
                ["wrk", "-t1", "-c4", f"-d{args.duration}s", "--latency", f"{base}{args.read_path}"],
                stdout=subprocess.PIPE, text=True)
            if args.no_writes:
                writes, hot_sent, new_sent = {"rps": 0.0, "p50": 0.0, "p99": 0.0, "errors": 0, "requests": 0,
                                              "spread": ""}, 0, 0
            else:
                writes, hot_sent, new_sent = burst(base, args.duration, args.connections, instant)
            read = parse(reads.communicate()[0]) if reads else {"rps": 0.0, "p99": 0.0, "errors": 0, "requests": 0}
            served = max(writes["requests"] + read["requests"], 1)
            cpu_us = [(now - before) * 1e6 / served for now, before in zip(cpu_now(), cpu)]
            moves = revision(engine) - moves
            new_rows, hot_rows = counts(engine)
            rows.append({**writes, "hot": hot_sent, "new": new_sent, "new_rows": new_rows, "hot_rows": hot_rows,
                         "read_rps": read["rps"], "read_p99": read["p99"], "read_errors": read["errors"],
                         "cpu_us": cpu_us, "per_move": writes["requests"] / max(moves, 1)})
    finally:
        stop(server)
        engine.dispose()

    lines = [f"**{args.label}** — {database_facts(args.database_url)}; code {code_version()}; "
             f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; `sathub serve --workers {args.workers}`; "
             f"wrk -t1 -c{args.connections} -d{args.duration}s POSTs (30 % into existing slots)"
             + (" alone." if args.no_reads else f" while wrk -c4 reads {args.read_path}.")
             + (" **No POSTs: the reader alone.**" if args.no_writes else "")
             + (f" {args.warmup} s of POSTs before round 1, not measured." if args.warmup and not args.no_writes else "")
             + " CPU: the server's processes" + (" / PostgreSQL's" if postgres else "")
             + ", per request served (POSTs and reads)."
             + (" POSTs/move: POSTs per move of the data revision, which moves once per statement that writes "
                "reports (about once per group-commit transaction)." if postgres else ""), "",
             "| round | POST/s | p50 ms | p99 ms | non-2xx | new slots sent / rows | hot sent / rows (500) "
             "| reads/s | read p99 ms | CPU µs/req |" + (" POSTs/move |" if postgres else "") + " POST conns per worker |",
             "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if postgres else "") + "---|"]
    for number, row in enumerate(rows, 1):
        # Requests still in flight when wrk stops (at most one per connection) may or may not be stored.
        complete = row["new"] - args.connections <= row["new_rows"] <= row["new"]
        stored = "ok" if row["errors"] == 0 and complete and row["hot_rows"] == 500 else "**LOST**"
        lines.append(f"| {number} | {row['rps']:,.0f} | {row['p50']:.1f} | {row['p99']:.1f} | {row['errors']} "
                     f"| {row['new']:,} / {row['new_rows']:,} {stored} | {row['hot']:,} / {row['hot_rows']} "
                     f"| {row['read_rps']:,.0f} | {row['read_p99']:.1f} "
                     f"| {' / '.join(f'{us:.0f}' for us in row['cpu_us'][:2 if postgres else 1])} |"
                     + (f" {row['per_move']:.1f} |" if postgres else "") + f" {row['spread']} |")
    text = "\n".join(lines)
    print(text)
    OUT.mkdir(exist_ok=True)
    suffix = "_alone" if args.no_reads else "_reads_alone" if args.no_writes else ""
    (OUT / f"status_burst_{args.label}{suffix}.md").write_text(text + "\n")


if __name__ == "__main__":
    main()
