"""How much slower a server answers after a pause than back to back: one `sathub serve --workers
1`, one keep-alive connection, each path asked `--requests` times back to back, then as many
times each after `--pause` ms of silence, twice over. Round-robin beside the peers, each sathub
server waits while the other targets answer: this is the penalty it pays for it.

    python -m bench.idle_penalty [--database-url URL] [--pause 20] [--requests 20] [PATH ...]

Default database: bench/out/scratch_idle_penalty.db, the corpus imported into it when it is not
there yet (bench/archive_search.py's import, indexed). Writes bench/out/idle_penalty.md."""

from __future__ import annotations

import argparse
import http.client
import statistics
import time

from bench.archive_search import fresh, imported
from bench.common import OUT, Server, database_exists, label, write_out

PATHS = ["/api/health", "/archive/api/lists/", "/archive/api/search/?q=ephemeris&limit=10"]
SCRATCH = "idle_penalty"


def asked(connection: http.client.HTTPConnection, path: str) -> float:
    started = time.perf_counter()
    connection.request("GET", path)
    connection.getresponse().read()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", default=PATHS)
    parser.add_argument("--database-url", help=f"default: bench/out/scratch_{SCRATCH}.db, the corpus imported once")
    parser.add_argument("--pause", type=float, default=20.0, help="ms of silence before each request")
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    url = args.database_url or f"sqlite:///{OUT / f'scratch_{SCRATCH}.db'}"
    if args.database_url is None and not database_exists(url):
        imported(fresh("sqlite", SCRATCH), indexed=True)
    rows = [
        label(f"idle_penalty ({args.requests} requests each, a pause of {args.pause:.0f} ms, two rounds)"),
        "",
        "| path | back to back, median ms | after a pause, median ms |",
        "|---|---:|---:|",
    ]
    with Server.sathub(url, workers=1, log="idle_penalty") as server:
        server.wait_up("/archive/api/lists/")
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        for path in args.paths:
            for _ in range(5):
                asked(connection, path)  # warmed up
            for _ in range(2):
                at_once = [asked(connection, path) for _ in range(args.requests)]
                paused = []
                for _ in range(args.requests):
                    time.sleep(args.pause / 1000)
                    paused.append(asked(connection, path))
                rows.append(f"| `{path}` | {statistics.median(at_once):.2f} | {statistics.median(paused):.2f} |")
        connection.close()
    write_out("idle_penalty.md", "\n".join(rows))


if __name__ == "__main__":
    main()
