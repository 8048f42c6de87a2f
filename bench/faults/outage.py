"""Database outage (issue 14): `sathub serve` on PostgreSQL through a TCP proxy, under a steady
mix of health.php, catalog.php, reports.php GETs and report POSTs (keep-alive clients, each
waiting at most --client-timeout s). The proxy is cut for --outage s, then restored; sathub is
never restarted. Two kinds of cut:

- stopped: the proxy closes its port and every connection (PostgreSQL stopped or restarted:
  connects are refused at once) - the scenario issue 14 names;
- hung: the proxy keeps accepting and holding connections but forwards nothing (PostgreSQL
  frozen, or a network partition: packets vanish, nothing is refused).

Checks per kind: every request started during the outage answers within 1 s (none hangs, none
is another 5xx), and 503 with the error envelope `database_unavailable` (HTML or JSON) unless it
was answered after the restore; health.php's
first 503 within 1 s of the cut; after the restore every endpoint answers 2xx again within 2 s and
nothing fails after that; every 201 is stored. Prints a markdown table; exit 1 when a check fails.

    python -m bench.faults.outage                   # both kinds, 10 s outages
    python -m bench.faults.outage --kind stopped --outage 60 --workers 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from bench.clients import HttpConnection, HttpError
from bench.common import OUT, Server, code_version, free_port, now_utc, scratch_postgres, write_out
from bench.faults.ledger import POST_HEADERS, Ledger, Slots, body_bytes, stored_rows, verify
from sathub import db
from tests.tcp_proxy import TcpProxy

KINDS = {  # label: (method, path)
    "health": ("GET", "/api/v1/health.php"),
    "catalog": ("GET", "/api/v1/catalog.php?include_stats=true"),
    "reports": ("GET", "/api/v1/reports.php?hours=2&limit=50"),
    "POST": ("POST", "/api/v1/reports.php"),
}


def envelope_code(data: bytes) -> str | None:
    try:
        return json.loads(data)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


async def drive(port: int, clients_per_kind: int, timeout: float, schedule, ledger: Ledger) -> list[dict]:
    """Runs the load while `schedule` (a coroutine) cuts and restores the proxy."""
    records: list[dict] = []
    slots, stop = Slots(), asyncio.Event()

    async def client(kind: str) -> None:
        method, path = KINDS[kind]
        conn = HttpConnection(port)
        while not stop.is_set():
            body, slot = b"", None
            if method == "POST":
                slot, fields = slots.next()
                body = body_bytes(fields)
                ledger.record_sent(slot)
            started = time.monotonic()
            try:
                status, _, data = await conn.request(method, path, body, POST_HEADERS if body else None, timeout)
            except HttpError as error:
                status, data = None, str(error).encode()
            ended = time.monotonic()
            if slot is not None:
                ledger.record(slot, status, data if status else None)
            records.append(
                {
                    "kind": kind,
                    "start": started,
                    "end": ended,
                    "status": status,
                    "code": envelope_code(data) if status and status >= 400 else None,
                    "error": None if status else data.decode(),
                }
            )
            await asyncio.sleep(0.02)
        await conn.close()

    tasks = [asyncio.create_task(client(kind)) for kind in KINDS for _ in range(clients_per_kind)]
    await schedule()
    stop.set()
    await asyncio.gather(*tasks)
    return records


def analyse(records: list[dict], cut: float, restored: float) -> dict:
    during = [r for r in records if cut <= r["start"] < restored]
    # A request sent in the last moments of the outage may reach the database after the restore:
    # only those answered before the restore must be 503.
    bad_during = [
        r for r in during if r["end"] < restored and not (r["status"] == 503 and r["code"] == "database_unavailable")
    ]
    slow_during = [r for r in during if r["end"] - r["start"] > 1.0]
    health_503 = [r["end"] for r in records if r["kind"] == "health" and r["status"] == 503 and r["end"] >= cut]
    after = [r for r in records if r["start"] >= restored]
    failed_after = [r for r in after if r["status"] is None or r["status"] >= 400]
    first_ok = {
        kind: min(
            (r["end"] - restored for r in after if r["kind"] == kind and r["status"] and r["status"] < 400),
            default=None,
        )
        for kind in KINDS
    }
    return {
        "during": len(during),
        "statuses_during": _count(during),
        "bad_during": bad_during,
        "max_during": {
            kind: max((r["end"] - r["start"] for r in during if r["kind"] == kind), default=0.0) for kind in KINDS
        },
        "slow_during": len(slow_during),
        "health_first_503": (min(health_503) - cut) if health_503 else None,
        "recovered": max((r["end"] - restored for r in failed_after), default=0.0),
        "failed_after": len(failed_after),
        "first_ok": first_ok,
        "unanswered": sum(1 for r in records if r["status"] is None),
        "other_5xx": sum(1 for r in records if r["status"] and r["status"] >= 500 and r["status"] != 503),
    }


def _count(rows: list[dict]) -> str:
    counts: dict = {}
    for r in rows:
        key = f"{r['status'] or 'no answer'}" + (f" {r['code']}" if r["code"] else "")
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{k}: {v:,}" for k, v in sorted(counts.items()))


def one_kind(kind: str, args) -> tuple[list[str], bool]:
    url, drop = scratch_postgres("outage")
    target = db.normalize_url(url)
    proxy = TcpProxy(free_port(), (target.host or "127.0.0.1", target.port or 5432))
    proxy.start()
    proxied = target.set(host="127.0.0.1", port=proxy.port).render_as_string(False)
    server = Server.sathub(proxied, workers=args.workers, log=f"faults_outage_{kind}")
    server.log.write_text("")
    ledger = Ledger()
    moments: dict[str, float] = {}

    async def schedule() -> None:
        await asyncio.sleep(args.warm)
        proxy.stop() if kind == "stopped" else proxy.blackhole()
        moments["cut"] = time.monotonic()  # after the cut is complete: a request already sent may still commit
        await asyncio.sleep(args.outage)
        proxy.start() if kind == "stopped" else proxy.restore()
        moments["restored"] = time.monotonic()
        await asyncio.sleep(args.after)

    try:
        server.start()
        server.wait_up()
        records = asyncio.run(drive(server.port, args.clients, args.client_timeout, schedule, ledger))
        server.stop()
        proxy.stop()
        kept = verify(ledger, stored_rows(url))
    finally:
        server.stop()
        proxy.stop()
        drop()
    a = analyse(records, moments["cut"], moments["restored"])
    tracebacks = server.log.read_text(errors="replace").count("Traceback")
    checks = {
        "health 503 within 1 s": a["health_first_503"] is not None and a["health_first_503"] <= 1.0,
        "every request during the outage 503 database_unavailable": not a["bad_during"],
        "every request during the outage within 1 s": a["slow_during"] == 0,
        "recovered within 2 s": a["recovered"] <= 2.0 and all(v is not None for v in a["first_ok"].values()),
        "no 500, no hang": a["other_5xx"] == 0 and a["unanswered"] == 0,
        "every 201 stored": kept["missing"] == 0 and kept["wrong"] == 0,
    }
    health = "never" if a["health_first_503"] is None else f"{a['health_first_503']:.2f}"
    first_ok = " / ".join("never" if v is None else f"{v:.2f}" for v in a["first_ok"].values())
    row = (
        f"| {kind} | {args.outage:g} | {a['during']:,} | {a['statuses_during']} | {health} | "
        + " / ".join(f"{v:.2f}" for v in a["max_during"].values())
        + f" | {a['slow_during']} | {first_ok} | {a['recovered']:.2f} | {a['failed_after']} | {a['other_5xx']} | "
        f"{a['unanswered']} | {ledger.acks:,} / {kept['missing'] + kept['wrong']} | {tracebacks} | "
        + ("ok" if all(checks.values()) else "**FAILED: " + "; ".join(n for n, ok in checks.items() if not ok) + "**")
        + " |"
    )
    if a["bad_during"]:
        print(kind, "bad answers during the outage (first 5):", a["bad_during"][:5], file=sys.stderr)
    if a["unanswered"]:
        print(
            kind,
            "unanswered, seconds after the cut:",
            [
                (r["kind"], round(r["start"] - moments["cut"], 3), round(r["end"] - moments["cut"], 3), r["error"])
                for r in records
                if r["status"] is None
            ][:5],
            file=sys.stderr,
        )
    return [row], all(checks.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=["stopped", "hung", "both"], default="both")
    parser.add_argument("--outage", type=float, default=10.0, help="seconds the proxy stays cut")
    parser.add_argument("--warm", type=float, default=3.0)
    parser.add_argument("--after", type=float, default=5.0, help="seconds of load after the restore")
    parser.add_argument("--clients", type=int, default=2, help="keep-alive clients per endpoint")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--client-timeout", type=float, default=10.0, help="a request not answered within this is counted as a hang"
    )
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    version = code_version()
    rows, ok = [], True
    for kind in ["stopped", "hung"] if args.kind == "both" else [args.kind]:
        lines, passed = one_kind(kind, args)
        rows += lines
        ok &= passed
    text = "\n".join(
        [
            f"**Database outage** — `sathub serve --workers {args.workers}` on PostgreSQL through a TCP proxy; "
            f"{args.clients} keep-alive clients each on health.php, catalog.php?include_stats=true, "
            f"reports.php?hours=2&limit=50 and POST reports.php (20 ms pause between requests, "
            f"{args.client_timeout:g} s client timeout); proxy cut after {args.warm:g} s for the time shown, "
            f"then restored, {args.after:g} s more; sathub never restarted; code {version}; {now_utc()}. "
            "Times in seconds.",
            "",
            "| cut | outage s | requests during | answers during the outage | health first 503 after cut "
            "| max latency during: health / catalog / reports / POST | > 1 s | first 2xx after restore: "
            "health / catalog / reports / POST | last failure after restore | failures after restore | other 5xx "
            "| no answer | 201s / lost | tracebacks | check |",
            "|---|---:|---:|---|---:|---|---:|---|---:|---:|---:|---:|---|---:|---|",
            *rows,
        ]
    )
    write_out(f"faults_outage_{args.kind}.md", text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
