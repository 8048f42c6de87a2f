"""A conditional GET of the archive against a whole answer (issue 37, docs/archive-caching.md).

    python -m bench.archive_conditional --database-url URL [--repeat 200]

Method (as bench/archive_pages.py): the ASGI app called in this process, one request at a time,
on the corpus (imported when the database holds no mail); for the corpus's largest thread and
its first message, a plain GET (200: the revision, the rows, the template) and a GET with the
answer's ETag in If-None-Match (304: the revision alone) alternate request by request, after a
warm-up; the table gives each one's median and p95 and their ratio."""

from __future__ import annotations

import argparse
import statistics
import time

from starlette.testclient import TestClient

from bench.archive_pages import extremes, imported
from bench.clients import InProcess
from bench.common import label, write_out
from sathub.app import create_app
from sathub.config import Settings


def alternated(client: InProcess, path: str, etag: str, repeat: int) -> tuple[list[float], list[float]]:
    """Milliseconds of `repeat` 200s and `repeat` 304s of `path`, one of each in turn."""
    conditional = [(b"host", b"bench.example"), (b"if-none-match", etag.encode())]
    whole, not_modified = [], []
    for round_number in range(repeat + max(5, repeat // 10)):
        started = time.perf_counter()
        status, _ = client.get(path)
        middle = time.perf_counter()
        status_304, body = client.request("GET", path, headers=conditional)
        ended = time.perf_counter()
        assert (status, status_304, body) == (200, 304, b""), (path, status, status_304)
        if round_number >= max(5, repeat // 10):  # the first ones warm up
            whole.append((middle - started) * 1000)
            not_modified.append((ended - middle) * 1000)
    return sorted(whole), sorted(not_modified)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    engine = imported(args.database_url)
    list_name, thread_id, thread_size, first_email = extremes(engine)["thread"]
    app = create_app(Settings(database_url=args.database_url, base_url="http://bench.example"), engine=engine)
    probes = [
        (f"largest thread ({thread_size:,} emails)", f"/archive/list/{list_name}/thread/{thread_id}/"),
        ("its first message", f"/archive/list/{list_name}/message/{first_email}/"),
    ]
    lines = [
        label(f"**archive_conditional** ({engine.dialect.name}) — the app called in-process, 200 and 304 alternated"),
        "",
        "| page | bytes | 200 median ms | 200 p95 ms | 304 median ms | 304 p95 ms | 304 / 200 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    with TestClient(app, base_url="http://bench.example") as tags:
        client = InProcess(app)
        for what, path in probes:
            first = tags.get(path)
            whole, not_modified = alternated(client, path, first.headers["etag"], args.repeat)
            p95 = int(len(whole) * 0.95)
            median, median_304 = statistics.median(whole), statistics.median(not_modified)
            lines.append(
                f"| {what} | {len(first.content):,} | {median:.2f} | {whole[p95]:.2f} | {median_304:.2f} "
                f"| {not_modified[p95]:.2f} | {median_304 / median:.2f} |"
            )
        client.close()
    write_out(f"archive_conditional_{engine.dialect.name}.md", "\n".join(lines))
    engine.dispose()


if __name__ == "__main__":
    main()
