"""Interface A load test: wrk against `sathub serve` and against a static server answering the same
bytes (the ceiling), endpoint by endpoint, interleaved so machine noise hits both alike.

    .venv/bin/python bench/status_load.py --database-url sqlite:///bench/out/status.db --label sqlite

For each endpoint and round: wrk on the real server (`sathub serve`), on the same app with its
answer cache off (bench/status_nocache_app.py: every request queries), then on the static one
(same uvicorn settings, same --workers). Figures are medians over the rounds; the ratio is real req/s / static
req/s of the same round set. Prints a markdown table and writes it to bench/out/status_<label>.md.

wrk runs on the same 2 cores as the servers (1 wrk thread, 64 connections): it takes CPU from both
the real and the static server, which is one more reason to read ratios rather than absolutes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
OUT = ROOT / "bench" / "out"
POST_LUA = ROOT / "bench" / "wrk" / "status_post.lua"
sys.path.insert(0, str(ROOT / "src"))

from sathub.db import normalize_url  # noqa: E402

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
# One captured POST for the static body; wrk's Lua script sends the varying ones.
SAMPLE_POST = {"name": POPULAR, "report": "Heard", "callsign": "W1AW", "grid_square": "FN31"}


def wait_until_up(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not come up")


def start(command: list[str], env: dict) -> subprocess.Popen:
    # Own process group, so stopping it stops the uvicorn workers too.
    return subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def capture(base: str, method: str, path: str) -> dict:
    """The real server's answer: status, headers and body text. Not the per-request date, nor the
    `connection: close` answered to urllib's own `Connection: close`: replayed to wrk, it would make
    the static server close every connection after one answer, a ceiling far below keep-alive's."""
    data, headers = None, {}
    if method == "POST":
        body = dict(SAMPLE_POST, reported_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        data, headers = json.dumps(body).encode(), {"Content-Type": "application/json"}
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request) as response:
        return {"status": response.status,
                "headers": [[k.lower(), v] for k, v in response.getheaders() if k.lower() not in ("date", "connection")],
                "body": response.read().decode("utf-8")}


UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def wrk(base: str, method: str, path: str, seconds: int, connections: int, threads: int,
        headers: tuple[str, ...] = ()) -> dict:
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s"]
    for header in headers:
        command += ["-H", header]
    if method == "POST":
        command += ["-s", str(POST_LUA)]
    text = subprocess.run([*command, base + path], capture_output=True, text=True, check=True).stdout

    def latency(percent: str) -> float:
        value, unit = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M).groups()
        return float(value) * UNITS[unit]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    socket = re.search(r"Socket errors: (.*)", text)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
            "p50": latency("50"), "p99": latency("99"),
            "requests": int(re.search(r"(\d+) requests in", text).group(1)),
            "errors": int(errors.group(1)) if errors else 0, "socket": socket.group(1) if socket else ""}


def group_cpu_seconds(pgid: int) -> float:
    """CPU time the processes of a process group (a server and its workers) have used so far: per
    request, a figure that other jobs on the machine disturb far less than req/s."""
    return _cpu_seconds(lambda command, fields: int(fields[2]) == pgid)  # pgrp


def postgres_cpu_seconds() -> float:
    """CPU time PostgreSQL's processes (its backends, WAL writer, checkpointer...) have used so far."""
    return _cpu_seconds(lambda command, fields: command == "postgres")


def _cpu_seconds(counted) -> float:
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            head, tail = stat.read_text().rsplit(")", 1)
        except OSError:  # the process ended meanwhile
            continue
        fields = tail.split()  # after the command name
        if counted(head.split("(", 1)[1], fields):  # utime and stime: fields 14 and 15 of proc(5)
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def database_facts(url: str) -> str:
    engine = sa.create_engine(normalize_url(url))
    with engine.connect() as conn:
        reports = conn.execute(sa.text("SELECT count(*) FROM reports")).scalar()
        sats = conn.execute(sa.text("SELECT count(*) FROM report_totals")).scalar()
        version = conn.execute(sa.text(
            "SELECT sqlite_version()" if engine.dialect.name == "sqlite" else "SHOW server_version")).scalar()
    engine.dispose()
    return f"{engine.dialect.name} {version}, {reports:,} reports over {sats} satellite names"


def verdict(method: str, met: bool) -> str:
    if method != "GET":
        return "n/a"  # the targets are for read endpoints; POST is measured for information
    return "yes" if met else "**no**"


def code_version() -> str:
    """The commit the servers ran (others commit to the same tree while benchmarks run)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=ROOT, capture_output=True, text=True)
    return head.stdout.strip() + (" + uncommitted src changes" if dirty.stdout.strip() else "")


def median(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--label", required=True, help="names the output: bench/out/status_<label>.md")
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="wrk runs per endpoint and server (median)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (they share the CPU)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8751,
                        help="real server; port+1: answer cache off; port+2: static ceiling")
    parser.add_argument("--only", action="append", metavar="LABEL",
                        help="measure only the endpoints whose label contains LABEL (repeatable), "
                             "e.g. --only summary --only 500")
    parser.add_argument("--no-uncached", action="store_true",
                        help="skip the server with the answer cache off (saves a third of the time)")
    args = parser.parse_args()
    global ENDPOINTS
    if args.only:
        ENDPOINTS = [e for e in ENDPOINTS if any(part in e[0] for part in args.only)]
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install -y wrk")
    OUT.mkdir(parents=True, exist_ok=True)
    facts = f"{database_facts(args.database_url)}; code {code_version()}"
    print(f"[{args.label}] {facts}", flush=True)

    real_base = f"http://127.0.0.1:{args.port}"
    nocache_base, static_base = f"http://127.0.0.1:{args.port + 1}", f"http://127.0.0.1:{args.port + 2}"
    uvicorn_flags = ["--host", "127.0.0.1", "--workers", str(args.workers), "--loop", "uvloop", "--http",
                     "httptools", "--no-access-log", "--no-server-header", "--proxy-headers", "--log-level",
                     "warning"]  # what `sathub serve` passes to uvicorn.run
    real = start([str(BIN / "sathub"), "serve", "--host", "127.0.0.1", "--port", str(args.port),
                  "--workers", str(args.workers), "--database-url", args.database_url],
                 {"SATHUB_LOG_LEVEL": "warning"})
    nocache = static = None
    try:
        wait_until_up(real_base + "/api/v1/health.php")
        captured = {f"{m} {p}": capture(real_base, m, p) for _, m, p in ENDPOINTS}
        responses_file = OUT / f"static_{args.label}.json"
        responses_file.write_text(json.dumps(captured), encoding="utf-8")
        nocache = start([str(BIN / "uvicorn"), "--app-dir", str(ROOT / "bench"), "--factory",
                         "status_nocache_app:create", "--port", str(args.port + 1), *uvicorn_flags],
                        {"SATHUB_DATABASE_URL": args.database_url})
        static = start([str(BIN / "uvicorn"), "--app-dir", str(ROOT / "bench"), "status_static_app:app",
                        "--port", str(args.port + 2), *uvicorn_flags],
                       {"STATUS_STATIC_RESPONSES": str(responses_file)})
        wait_until_up(nocache_base + "/api/v1/health.php")
        wait_until_up(static_base + ENDPOINTS[0][2])
        servers = {"cached": (real_base, real), "uncached": (nocache_base, nocache), "static": (static_base, static)}
        if args.no_uncached:
            del servers["uncached"]
        for _, method, path in ENDPOINTS:  # warm-up: pools, caches, page cache, every server
            for kind, (base, _) in servers.items():
                if method == "GET" or kind != "uncached":
                    wrk(base, method, path, 1, args.connections, args.threads)

        results: dict[str, dict[str, list]] = {label: {kind: [] for kind in ("cached", "uncached", "static")}
                                               for label, _, _ in ENDPOINTS}
        for round_no in range(args.rounds):
            for label, method, path in ENDPOINTS:
                for kind, (base, process) in servers.items():
                    if method == "POST" and kind == "uncached":
                        continue  # the cache does nothing for writes
                    cpu = group_cpu_seconds(process.pid)
                    run = wrk(base, method, path, args.duration, args.connections, args.threads)
                    run["cpu_us"] = (group_cpu_seconds(process.pid) - cpu) * 1e6 / run["requests"]
                    results[label][kind].append(run)
                    print(f"  round {round_no + 1} {label:16} {kind:8} {run['rps']:8.0f} req/s "
                          f"p50 {run['p50']:7.2f} ms p99 {run['p99']:7.2f} ms CPU {run['cpu_us']:6.1f} µs/req"
                          + (f" non-2xx {run['errors']}" if run["errors"] else "")
                          + (f" socket errors: {run['socket']}" if run["socket"] else ""), flush=True)
    finally:
        for process in (real, nocache, static):
            if process is not None:
                stop(process)

    lines = [f"**{args.label}** — {facts}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
             f"{platform.machine()}, {os.cpu_count()} cores; --workers {args.workers}; "
             f"wrk -t{args.threads} -c{args.connections} -d{args.duration}s, median of {args.rounds} rounds. "
             "cached = `sathub serve` (answer cache hits: no write during the run); uncached = same app "
             "with the answer cache off (every request queries, as after each write); "
             "static = same bytes from a bare ASGI app (the ceiling). CPU: the server's processes' CPU "
             "time per request (µs), cached / static.",
             "",
             "| endpoint | bytes | cached req/s | p50 ms | p99 ms | uncached req/s | p50 ms | p99 ms "
             "| static req/s | p99 ms | ratio cached | ratio uncached | p99 < 20 ms (c/u) | ratio ≥ 40 % (c/u) "
             "| CPU µs/req c / s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|:-:|---:|"]
    for label, method, path in ENDPOINTS:
        runs = results[label]
        ceiling = median(runs["static"], "rps")
        cells, p99_ok, ratio_ok, ratios = [], [], [], []
        for kind in ("cached", "uncached"):
            if not runs[kind]:
                cells += ["—"] * 3
                ratios.append("—")
                continue
            rps, p99 = median(runs[kind], "rps"), median(runs[kind], "p99")
            cells += [f"{rps:,.0f}", f"{median(runs[kind], 'p50'):.1f}", f"{p99:.1f}"]
            ratios.append(f"{rps / ceiling:.0%}")
            p99_ok.append(verdict(method, p99 < 20))
            ratio_ok.append(verdict(method, rps / ceiling >= 0.4))
        errors = sum(run["errors"] for kind in ("cached", "uncached") for run in runs[kind])
        size = len(captured[f"{method} {path}"]["body"].encode())
        lines.append(f"| `{method} {path.removeprefix('/api/v1/')}` | {size:,} | " + " | ".join(cells)
                     + f" | {ceiling:,.0f} | {median(runs['static'], 'p99'):.1f} | " + " | ".join(ratios)
                     + f" | {' / '.join(p99_ok)} | {' / '.join(ratio_ok)} | "
                     + f"{median(runs['cached'], 'cpu_us'):.1f} / {median(runs['static'], 'cpu_us'):.1f} |"
                     + (f" ({errors} non-2xx)" if errors else ""))
    table = "\n".join(lines) + "\n"
    (OUT / f"status_{args.label}.md").write_text(table, encoding="utf-8")
    (OUT / f"status_{args.label}.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print("\n" + table)


if __name__ == "__main__":
    main()
