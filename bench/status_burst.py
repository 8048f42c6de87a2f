"""Write bursts (issue 14): 64 connections POST reports as fast as they can for a few seconds,
30 % of them into slots that already hold a report, against `sathub serve --workers 2` on the
1M-report dataset, while one more wrk reads summary.php. Checks that every acknowledged report
was stored (rows added = new slots sent, each hot slot one row) and prints a markdown table,
with the CPU time per request served (the server's processes and PostgreSQL's), the POSTs per
move of the data revision, and how the POST connections fell on the workers. --no-writes runs
the reader alone (the read p99 to compare the burst's with), --no-reads the burst alone.

    python -m bench.status_burst --database-url sqlite:///bench/out/status.db [--rounds 2 --duration 5]

Writes bench/out/status_burst_<backend>[_alone|_reads_alone].md.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from bench.common import (
    Server,
    backend_of,
    database_facts,
    group_cpu_seconds,
    label,
    parse_wrk,
    postgres_cpu_seconds,
    require_wrk,
    vacuum_analyze,
    write_out,
    wrk_command,
)
from sathub import db
from sathub.db.revision_probe import RevisionProbe
from sathub.status.rules import period_of_minute
from sathub.status.store import writes as report_writes

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# The bench's own callsigns: Q<digit>… (the hot slots) and Z<digit>… (new slots, as wrk/status_burst.lua
# and status_after_write.py write them). Not LIKE 'Z%': the dataset's ZL callsigns (New Zealand) match that.
OURS = "substr(callsign, 2, 1) BETWEEN '0' AND '9' AND substr(callsign, 1, 1) IN ('Q', 'Z')"
NEW = "substr(callsign, 2, 1) BETWEEN '0' AND '9' AND substr(callsign, 1, 1) = 'Z'"
HOT = "substr(callsign, 2, 1) BETWEEN '0' AND '9' AND substr(callsign, 1, 1) = 'Q'"


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
        conn.execute(sa.text(f"DELETE FROM reports WHERE {OURS}"))
        for slot in range(500):
            report_writes.store_submitted(
                conn,
                [
                    dict(
                        name="AO-91",
                        day=instant.date(),
                        hour=instant.hour,
                        period=period_of_minute(instant.minute),
                        callsign=hot_callsign(slot),
                        report="Heard",
                        grid_square="EM48",
                    )
                ],
            )[0]
    vacuum_analyze(engine)  # the rounds before left dead rows and statistics behind


def counts(engine) -> tuple[int, int]:
    with db.connect(engine) as conn:
        new = conn.execute(sa.text(f"SELECT count(*) FROM reports WHERE {NEW}")).scalar()
        hot = conn.execute(sa.text(f"SELECT count(*) FROM reports WHERE {HOT}")).scalar()
    return new, hot


def revision(engine) -> int:
    with db.connect(engine) as conn:
        return conn.execute(sa.text(RevisionProbe.QUERY)).scalar()


def burst(base: str, seconds: int, connections: int, instant: str) -> tuple[dict, int, int]:
    command = wrk_command(
        f"{base}/api/v1/reports.php", seconds, connections, script="status_burst.lua", script_args=(instant,)
    )
    wrk = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    time.sleep(seconds / 2)
    spread = connections_per_worker(int(base.rsplit(":", 1)[1]), wrk.pid)
    text = wrk.communicate()[0]
    if wrk.returncode:
        raise RuntimeError(f"wrk exited {wrk.returncode}")
    hot, new = map(int, re.search(r"SENT hot=(\d+) new=(\d+)", text).groups())
    return {**parse_wrk(text), "spread": spread}, hot, new


def connections_per_worker(port: int, client_pid: int) -> str:
    """How the POSTing wrk's connections fell on the server's worker processes, e.g. "27/37": each
    worker accepts whatever connections arrive while it is the first awake, and the spread decides
    much of a round's p99."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--warmup",
        type=int,
        default=2,
        help="seconds of POSTs before the first round, not measured: a server that has written "
        "before, with its database connections open, as a burst after a pass finds it",
    )
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-reads", action="store_true", help="the burst alone, without the summary.php reader")
    parser.add_argument(
        "--no-writes", action="store_true", help="the reader alone, no burst: the read p99 to compare the burst's with"
    )
    parser.add_argument(
        "--read-path",
        default="/api/v1/summary.php?hours=24",
        help="what the reader GETs (statuses.php: an answer that needs no database)",
    )
    args = parser.parse_args()
    require_wrk()
    backend = backend_of(args.database_url)
    facts = database_facts(args.database_url)
    engine = db.create_engine(args.database_url)
    server = Server.sathub(args.database_url, workers=args.workers, log=f"status_burst_{backend}")
    base = server.base
    postgres = backend == "postgresql"

    def cpu_now() -> tuple[float, float]:
        return group_cpu_seconds(server.pid), postgres_cpu_seconds() if postgres else 0.0

    def prepared_instant() -> str:
        instant = (datetime.now(UTC) - timedelta(minutes=30)).replace(second=0, microsecond=0)
        prepare(engine, instant)
        return instant.strftime("%Y-%m-%dT%H:%M:%SZ")

    rows = []
    try:
        server.start().wait_up()
        if args.warmup and not args.no_writes:
            burst(base, args.warmup, args.connections, prepared_instant())
            time.sleep(1)  # the writes in flight when wrk stopped land before the first round's count
        for _ in range(args.rounds):
            instant = prepared_instant()
            cpu, moves = cpu_now(), revision(engine)
            reads = (
                None
                if args.no_reads
                else subprocess.Popen(
                    wrk_command(f"{base}{args.read_path}", args.duration, 4), stdout=subprocess.PIPE, text=True
                )
            )
            if args.no_writes:
                writes, hot_sent, new_sent = (
                    {"rps": 0.0, "p50": 0.0, "p99": 0.0, "errors": 0, "requests": 0, "spread": ""},
                    0,
                    0,
                )
            else:
                writes, hot_sent, new_sent = burst(base, args.duration, args.connections, instant)
            read = parse_wrk(reads.communicate()[0]) if reads else {"rps": 0.0, "p99": 0.0, "errors": 0, "requests": 0}
            served = max(writes["requests"] + read["requests"], 1)
            cpu_us = [(now - before) * 1e6 / served for now, before in zip(cpu_now(), cpu, strict=True)]
            moves = revision(engine) - moves
            new_rows, hot_rows = counts(engine)
            rows.append(
                {
                    **writes,
                    "hot": hot_sent,
                    "new": new_sent,
                    "new_rows": new_rows,
                    "hot_rows": hot_rows,
                    "read_rps": read["rps"],
                    "read_p99": read["p99"],
                    "read_errors": read["errors"],
                    "cpu_us": cpu_us,
                    "per_move": writes["requests"] / max(moves, 1),
                }
            )
    finally:
        server.stop()
        engine.dispose()

    what = (
        f"**status_burst, {facts}** — `sathub serve --workers {args.workers}`; wrk -t1 -c{args.connections} "
        f"-d{args.duration}s POSTs (30 % into existing slots)"
        + (" alone" if args.no_reads else f" while wrk -c4 reads {args.read_path}")
    )
    warmed = args.warmup and not args.no_writes
    notes = (
        (" **No POSTs: the reader alone.**" if args.no_writes else "")
        + (f" {args.warmup} s of POSTs before round 1, not measured." if warmed else "")
        + " CPU: the server's processes"
        + (" / PostgreSQL's" if postgres else "")
        + ", per request served (POSTs and reads)."
        + (
            " POSTs/move: POSTs per move of the data revision, which moves once per statement that writes "
            "reports (about once per group-commit transaction)."
            if postgres
            else ""
        )
    )
    lines = [
        label(what) + notes,
        "",
        "| round | POST/s | p50 ms | p99 ms | non-2xx | new slots sent / rows | hot sent / rows (500) "
        "| reads/s | read p99 ms | CPU µs/req |" + (" POSTs/move |" if postgres else "") + " POST conns per worker |",
        "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if postgres else "") + "---|",
    ]
    for number, row in enumerate(rows, 1):
        # Requests still in flight when wrk stops (at most one per connection) may or may not be stored.
        complete = row["new"] - args.connections <= row["new_rows"] <= row["new"]
        stored = "ok" if row["errors"] == 0 and complete and row["hot_rows"] == 500 else "**LOST**"
        lines.append(
            f"| {number} | {row['rps']:,.0f} | {row['p50']:.1f} | {row['p99']:.1f} | {row['errors']} "
            f"| {row['new']:,} / {row['new_rows']:,} {stored} | {row['hot']:,} / {row['hot_rows']} "
            f"| {row['read_rps']:,.0f} | {row['read_p99']:.1f} "
            f"| {' / '.join(f'{us:.0f}' for us in row['cpu_us'][: 2 if postgres else 1])} |"
            + (f" {row['per_move']:.1f} |" if postgres else "")
            + f" {row['spread']} |"
        )
    suffix = "_alone" if args.no_reads else "_reads_alone" if args.no_writes else ""
    write_out(f"status_burst_{backend}{suffix}.md", "\n".join(lines))


if __name__ == "__main__":
    main()
