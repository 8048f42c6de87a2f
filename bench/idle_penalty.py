"""How much slower a server answers after a pause than back to back (bench/README.md, the twelfth
session's archive search): one `sathub serve --workers 1`, one keep-alive connection, each path
asked `--requests` times back to back, then as many times each after `--pause` ms of silence,
twice over.

    python -m bench.idle_penalty [--database-url URL] [--pause 20] [--requests 20] [PATH ...]

Default database: the SQLite scratch database of `bench.archive_search --scratch s12`."""

from __future__ import annotations

import argparse
import http.client
import statistics
import time

from bench.common import OUT, Server

PATHS = ["/api/health", "/archive/api/lists/", "/archive/api/search/?q=ephemeris&limit=10"]


def asked(connection: http.client.HTTPConnection, path: str) -> float:
    started = time.perf_counter()
    connection.request("GET", path)
    connection.getresponse().read()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", default=PATHS)
    parser.add_argument("--database-url", default=f"sqlite:///{OUT / 'scratch_s12.db'}")
    parser.add_argument("--pause", type=float, default=20.0, help="ms of silence before each request")
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    print("| path | back to back, median ms | after a pause, median ms |\n|---|---:|---:|")
    with Server.sathub(args.database_url, workers=1, log="idle_penalty") as server:
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
                print(f"| `{path}` | {statistics.median(at_once):.2f} | {statistics.median(paused):.2f} |", flush=True)


if __name__ == "__main__":
    main()
