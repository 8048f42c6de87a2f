"""Interface A under load: wrk (1 thread, 64 connections) against three servers, endpoint by
endpoint, interleaved so that the machine's noise hits them alike:

- cached: `sathub serve` as shipped; nothing writes during a read run, so after the first request
  every answer is a hit (the replay of whole answers, else the answer cache);
- miss: the same app with every answer computed from the database for the request asking
  (bench/status_miss_app.py: the replay is defeated by a query parameter of each request's own,
  the answer cache by one that keeps nothing; checked before the run), which is what the first
  read of an answer costs after a write;
- static: the same bytes from a bare ASGI app under the same HTTP edge (the ceiling).

    python -m bench.status_load --database-url sqlite:///bench/out/status.db [--duration 3 --rounds 2]
    python -m bench.status_load --database-url URL --only POST --api-rate-per-minute 1000000000

The cached server counts no POST (its clients, all on 127.0.0.1, stand for many) unless
--api-rate-per-minute gives it a limit: a large one counts every POST as a deployment does.

Figures are medians over the rounds; ratios are to the static server's req/s of the same rounds.
CPU is the server processes' CPU time per request, which the machine's other jobs disturb less
than req/s. wrk shares the 2 cores with the servers (and PostgreSQL): read ratios, not absolutes.
Writes bench/out/status_load_<backend>.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import urllib.request
from datetime import UTC, datetime

from bench.common import (
    OUT,
    Server,
    backend_of,
    database_facts,
    group_cpu_seconds,
    label,
    require_wrk,
    write_out,
    wrk,
)
from bench.status_miss_app import check

POPULAR = "AO-91"
# (label, method, path): what clients really call (clients.md: Wavelog asks limit=500&hours=24).
ENDPOINTS = [
    ("sat_info", "GET", f"/api/v1/sat_info.php?name={POPULAR}&hours=72"),
    ("reports 100/72h", "GET", "/api/v1/reports.php?hours=72&limit=100"),
    ("reports 500/24h", "GET", "/api/v1/reports.php?limit=500&hours=24"),
    ("catalog+stats", "GET", "/api/v1/catalog.php?include_stats=true"),
    ("summary 24h", "GET", "/api/v1/summary.php?hours=24"),
    ("POST report", "POST", "/api/v1/reports.php"),
]
# One captured POST for the static body; wrk/status_post.lua sends varying ones.
SAMPLE_POST = {"name": POPULAR, "report": "Heard", "callsign": "W1AW", "grid_square": "FN31"}
KINDS = ("cached", "miss", "static")


def capture(base: str, method: str, path: str) -> dict:
    """The real server's answer: status, headers and body text. Not the per-request date, nor the
    `connection: close` answered to urllib's own `Connection: close` (replayed to wrk it would make
    the static server close every connection, a ceiling far below keep-alive's)."""
    data, headers = None, {}
    if method == "POST":
        body = dict(SAMPLE_POST, reported_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        data, headers = json.dumps(body).encode(), {"Content-Type": "application/json"}
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request) as response:
        headers = [[k.lower(), v] for k, v in response.getheaders() if k.lower() not in ("date", "connection")]
        return {"status": response.status, "headers": headers, "body": response.read().decode("utf-8")}


def one_run(kind: str, server: Server, method: str, path: str, seconds: float, connections: int) -> dict:
    script = "status_post.lua" if method == "POST" else "miss.lua" if kind == "miss" else None
    cpu = group_cpu_seconds(server.pid)
    run = wrk(server.base + path, seconds, connections, script=script)
    run["cpu_us"] = (group_cpu_seconds(server.pid) - cpu) * 1e6 / max(run["requests"], 1)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--duration", type=float, default=3, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=2, help="wrk runs per endpoint and server (median)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--only",
        action="append",
        metavar="LABEL",
        help="only the endpoints whose label contains LABEL (repeatable), e.g. --only summary",
    )
    parser.add_argument("--no-miss", action="store_true", help="skip the miss server (a third of the time)")
    parser.add_argument(
        "--api-rate-per-minute",
        type=int,
        default=0,
        help="the cached server's limit of POSTs per client and minute (default 0: not counted; a large one "
        "counts every POST, as a deployment does, without refusing any)",
    )
    args = parser.parse_args()
    require_wrk()
    endpoints = [e for e in ENDPOINTS if not args.only or any(part in e[0] for part in args.only)]
    backend = backend_of(args.database_url)
    facts = database_facts(args.database_url)
    print(f"[status_load {backend}] {facts}", flush=True)
    if not args.no_miss:
        check(args.database_url, [path for _, method, path in endpoints if method == "GET"])

    servers = {
        "cached": Server.sathub(
            args.database_url,
            workers=args.workers,
            log=f"status_load_{backend}",
            env={"SATHUB_API_RATE_PER_MINUTE": str(args.api_rate_per_minute)},
        )
    }
    started: list[Server] = []
    try:
        started.append(servers["cached"].start())
        servers["cached"].wait_up("/api/v1/health.php")
        captured = {f"{m} {p}": capture(servers["cached"].base, m, p) for _, m, p in endpoints}
        responses = OUT / f"static_{backend}.json"
        responses.write_text(json.dumps(captured), encoding="utf-8")
        if not args.no_miss:
            servers["miss"] = Server.uvicorn(
                "bench.status_miss_app:create",
                workers=args.workers,
                log=f"status_load_miss_{backend}",
                env={"SATHUB_DATABASE_URL": args.database_url},
            )
        servers["static"] = Server.uvicorn(
            "bench.status_static_app:create",
            workers=args.workers,
            log=f"status_load_static_{backend}",
            env={"STATUS_STATIC_RESPONSES": str(responses)},
        )
        for kind in ("miss", "static"):
            if kind in servers:
                started.append(servers[kind].start())
                servers[kind].wait_up(endpoints[0][2])
        for _, method, path in endpoints:  # warm-up: pools, caches, the OS page cache, every server
            for kind, server in servers.items():
                if method == "GET" or kind != "miss":
                    one_run(kind, server, method, path, 1, args.connections)

        results = {name: {kind: [] for kind in KINDS} for name, _, _ in endpoints}
        for round_no in range(1, args.rounds + 1):
            for name, method, path in endpoints:
                for kind, server in servers.items():
                    if method == "POST" and kind == "miss":
                        continue  # a write computes nothing a cache keeps
                    run = one_run(kind, server, method, path, args.duration, args.connections)
                    results[name][kind].append(run)
                    print(
                        f"  round {round_no} {name:16} {kind:7} {run['rps']:8.0f} req/s p50 {run['p50']:7.2f} ms "
                        f"p99 {run['p99']:7.2f} ms CPU {run['cpu_us']:7.1f} µs/req"
                        + (f" non-2xx {run['errors']}" if run["errors"] else "")
                        + (f" socket errors: {run['socket']}" if run["socket"] else ""),
                        flush=True,
                    )
    finally:
        for server in started:
            server.stop()
    write_out(f"status_load_{backend}.md", table(args, facts, endpoints, captured, results))


def table(args, facts: str, endpoints: list, captured: dict, results: dict) -> str:
    def median(runs: list[dict], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    lines = [
        label(
            f"**status_load, {facts}** — `sathub serve --workers {args.workers}`; wrk -t1 "
            f"-c{args.connections} -d{args.duration:g}s, median of {args.rounds} rounds"
            + (f", {args.api_rate_per_minute:,} POSTs a client and minute" if args.api_rate_per_minute else "")
        ),
        "",
        "| endpoint | bytes | cached req/s | p50 ms | p99 ms | miss req/s | p50 ms | p99 ms | static req/s "
        "| p99 ms | cached / static | miss / static | CPU µs/req cached / miss / static |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, method, path in endpoints:
        runs = results[name]
        ceiling = median(runs["static"], "rps")
        cells, ratios, cpu = [], [], []
        for kind in ("cached", "miss"):
            if not runs[kind]:
                cells += ["—"] * 3
                ratios.append("—")
                cpu.append("—")
                continue
            rps = median(runs[kind], "rps")
            cells += [f"{rps:,.0f}", f"{median(runs[kind], 'p50'):.1f}", f"{median(runs[kind], 'p99'):.1f}"]
            ratios.append(f"{rps / ceiling:.0%}")
            cpu.append(f"{median(runs[kind], 'cpu_us'):.0f}")
        cpu.append(f"{median(runs['static'], 'cpu_us'):.0f}")
        errors = sum(run["errors"] for kind in ("cached", "miss") for run in runs[kind])
        size = len(captured[f"{method} {path}"]["body"].encode())
        lines.append(
            f"| `{method} {path.removeprefix('/api/v1/')}` | {size:,} | "
            + " | ".join(cells)
            + f" | {ceiling:,.0f} | {median(runs['static'], 'p99'):.1f} | "
            + " | ".join(ratios)
            + f" | {' / '.join(cpu)} |"
            + (f" **{errors} non-2xx**" if errors else "")
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
