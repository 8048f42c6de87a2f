"""Where an interface A request spends its time: py-spy samples one uvicorn worker serving the app
with its answer cache off (every request queries and renders) under wrk load, per endpoint.

    .venv/bin/python bench/status_profile.py --database-url sqlite:///bench/out/status.db --label sqlite

One worker (so one process holds every sample), 64 connections, --seconds per endpoint. Each
sample is put in the bucket of the innermost frame we recognise (a JSON encoder called from our
renderer counts as rendering; SQLAlchemy's do_execute, where the driver runs the SQL, counts as
SQL execution, not SQLAlchemy, and so does CursorFetchStrategy.fetchall, whose self time is the
driver's native fetchall stepping through the rows). Writes bench/out/status_profile_<label>.md with the buckets and
the hottest functions (self time), and keeps the raw collapsed stacks beside it.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
OUT = ROOT / "bench" / "out"
sys.path.insert(0, str(ROOT / "bench"))

from status_load import ENDPOINTS, start, stop, wait_until_up, wrk  # noqa: E402

# (bucket, test on a frame "function (path:line)"), innermost match wins, checked in this order.
BUCKETS = [  # py-spy writes frames as "function (package/module.py:line)"
    ("SQL execution (driver)", lambda f: f.startswith(("DefaultDialect.do_execute (", "DefaultDialect.do_commit (",
                                                   "CursorFetchStrategy.fetchall ("))
     or "(psycopg/" in f or "(psycopg_binary/" in f or "sqlite3" in f),
    ("JSON rendering", lambda f: "(sathub/status/api/php_json.py" in f and ("_pretty" in f or "_json" in f)
     or "(json/" in f),
    ("SQLAlchemy (compile, cache, pool, rows)", lambda f: "(sqlalchemy/" in f),
    ("Starlette / uvicorn / asyncio (HTTP)", lambda f: any(p in f for p in (
        "(starlette/", "(uvicorn/", "(httptools/", "(uvloop/", "(asyncio/"))),
    ("sathub code (handlers, rules, times)", lambda f: "(sathub/" in f or "(status_nocache_app" in f),
]


def bucket_of(frames: list[str]) -> str:
    for frame in reversed(frames):  # innermost first
        for name, test in BUCKETS:
            if test(frame):
                return name
    return "other (interpreter, stdlib)"


def profile(base: str, pid: int, method: str, path: str, seconds: int, raw_file: Path) -> None:
    spy = subprocess.Popen([str(BIN / "py-spy"), "record", "--pid", str(pid), "--duration", str(seconds),
                            "--rate", "250", "--format", "raw", "--nonblocking", "--output", str(raw_file)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wrk(base, method, path, seconds, 64, 1)
    spy.wait(30)


def summarize(raw_file: Path) -> tuple[collections.Counter, collections.Counter, int]:
    buckets, leaves, total = collections.Counter(), collections.Counter(), 0
    for line in raw_file.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        frames, n = stack.split(";"), int(count)
        total += n
        buckets[bucket_of(frames)] += n
        leaves[frames[-1].split(" (")[0] + " (" + frames[-1].rsplit("/", 1)[-1]] += n
    return buckets, leaves, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--port", type=int, default=8761)
    parser.add_argument("--reuse", action="store_true", help="only summarize the raw stacks already recorded")
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    server = None if args.reuse else start([str(BIN / "uvicorn"), "--app-dir", str(ROOT / "bench"), "--factory",
                    "status_nocache_app:create", "--host", "127.0.0.1", "--port", str(args.port),
                    "--loop", "uvloop", "--http", "httptools", "--no-access-log", "--no-server-header",
                    "--log-level", "warning"], {"SATHUB_DATABASE_URL": args.database_url})
    lines = [f"### Profile — {args.label}: one worker, answer cache off, wrk -c64, py-spy "
             f"{args.seconds}s at 250 Hz", ""]
    try:
        if server:
            wait_until_up(base + "/api/v1/health.php")
        for label, method, path in ENDPOINTS:
            raw_file = OUT / f"status_profile_{args.label}_{re.sub(r'[^a-z0-9]+', '_', label.lower())}.txt"
            if server:
                wrk(base, method, path, 1, 64, 1)  # warm-up
                profile(base, server.pid, method, path, args.seconds, raw_file)
            buckets, leaves, total = summarize(raw_file)
            if not total:
                lines += [f"**{label}**: no samples", ""]
                continue
            shares = ", ".join(f"{name} {n / total:.0%}" for name, n in buckets.most_common())
            hot = ", ".join(f"`{name}` {n / total:.0%}" for name, n in leaves.most_common(6))
            lines += [f"**{label}** (`{method} {path}`, {total} samples): {shares}.", "",
                      f"Hottest (self): {hot}.", ""]
            print(lines[-4], "\n", lines[-2], flush=True)
    finally:
        if server:
            stop(server)
    (OUT / f"status_profile_{args.label}.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
