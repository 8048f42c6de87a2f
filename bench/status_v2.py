"""/api/v2/reports' keyset walk and /api/v2's 304 path, against `sathub serve` as shipped.

1. The walk: one keep-alive connection follows links.next from page 1 to the last page (limit
   100: page 10,000 on a 1,000,000-report database), timing each page (each a miss of the answer
   cache: a new URL). Then page 1 and the last page are asked --repeat times each, alternately,
   with an ignored parameter that makes every request a miss (`&run=N`: the cache keys on the
   query), so each is read from the database. Beside them, in the same run, the same last page
   read as an OFFSET would read it (the SQL only, on its own connection), which is what a page
   number or an offset costs: the reason for the cursor. Then the other v2 reads the same way:
   the status grid of 6 and 30 days and the grid squares of 720 hours, each read anew after the
   data revision moved (what any write does).
2. The 304 path: wrk (64 connections) on one cached answer, three ways side by side, in turn for
   --rounds rounds (the machine is shared: an order effect would otherwise favour one): with
   If-None-Match of its current ETag (304, no body), without (200 from the cache), and v1's
   reports.php of the same satellite (200, no ETag).

    python -m bench.status_v2 --database-url sqlite:///bench/out/status_walk.db
    python -m bench.status_v2 --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench_walk

X
density, 8 years of history). Writes bench/out/status_v2_<backend>.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from urllib.parse import urlsplit

import sqlalchemy as sa

from bench.clients import HttpConnection
from bench.common import Server, backend_of, database_facts, label, percentile, require_wrk, write_out, wrk
from sathub import db
from sathub.status.store import report_walk

LIMIT = 100


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


async def walk(port: int, start: str) -> tuple[list[float], list[str], int]:
    """(ms per page, every page's path, reports seen), following links.next to the end."""
    conn = HttpConnection(port)
    timings: list[float] = []
    paths: list[str] = []
    path, seen = start, 0
    while path:
        sent = time.monotonic()
        status, _, body = await conn.request("GET", path)
        timings.append((time.monotonic() - sent) * 1000)
        assert status == 200, (status, body[:200])
        page = json.loads(body)
        seen += page["meta"]["count"]
        paths.append(path)
        following = page["links"]["next"]
        path = path_of(following) if following else ""
    await conn.close()
    return timings, paths, seen


async def alternate(port: int, paths: list[str], repeat: int) -> list[list[float]]:
    """Each path `repeat` times, in turn, each request a cache miss (an ignored parameter)."""
    conn = HttpConnection(port)
    timings: list[list[float]] = [[] for _ in paths]
    for n in range(repeat):
        for i, path in enumerate(paths):
            sent = time.monotonic()
            status, _, _ = await conn.request("GET", f"{path}&run={n}")
            timings[i].append((time.monotonic() - sent) * 1000)
            assert status == 200
    await conn.close()
    return timings


async def after_writes(port: int, url: str, paths: list[str], repeat: int) -> list[list[float]]:
    """Each path `repeat` times, in turn, each after the data revision moved (the bump a write's
    trigger makes), so that each is read from the database and shaped again."""
    engine = db.create_engine(url)
    conn = HttpConnection(port)
    timings: list[list[float]] = [[] for _ in paths]
    for _ in range(repeat):
        for i, path in enumerate(paths):
            with engine.begin() as bump:
                bump.execute(sa.text("UPDATE data_revision SET revision = revision + 1 WHERE id = 1"))
            sent = time.monotonic()
            status, _, _ = await conn.request("GET", path, timeout=60)
            timings[i].append((time.monotonic() - sent) * 1000)
            assert status == 200
    await conn.close()
    engine.dispose()
    return timings


def offset_page_ms(url: str, offset: int, repeat: int) -> list[float]:
    """The last page as LIMIT/OFFSET reads it (the walk's order), SQL only."""
    engine = db.create_engine(url)
    query = (
        sa.select(report_walk.reports.c.id)
        .order_by(*(column.desc() for column in report_walk.WALK_KEY))
        .limit(LIMIT)
        .offset(offset)
    )
    timings = []
    with engine.connect() as conn:
        for _ in range(repeat):
            sent = time.monotonic()
            conn.execute(query).all()
            timings.append((time.monotonic() - sent) * 1000)
    engine.dispose()
    return timings


def keyset_pages_ms(url: str, paths: list[str], repeat: int) -> list[list[float]]:
    """The store's keyset statement of each page (read from its path's cursor; page 1 has none),
    SQL only, the pages in turn."""
    from starlette.datastructures import QueryParams

    from sathub.status.api.v2 import params

    search = params.fingerprint(report_walk.ReportFilter(), False)
    afters = []
    for path in paths:
        cursor = QueryParams(urlsplit(path).query).get("cursor")
        afters.append(None if cursor is None else params.read_cursor(cursor, search))
    engine = db.create_engine(url)
    timings: list[list[float]] = [[] for _ in paths]
    with engine.connect() as conn:
        for _ in range(repeat):
            for i, after in enumerate(afters):
                sent = time.monotonic()
                report_walk.report_page(conn, report_walk.ReportFilter(), ascending=False, after=after, limit=LIMIT + 1)
                timings[i].append((time.monotonic() - sent) * 1000)
    engine.dispose()
    return timings


def row(what: str, timings: list[float]) -> str:
    return f"| {what} | {statistics.median(timings):.2f} | {percentile(timings, 99):.2f} | {len(timings):,} |"


def etag_of(port: int, path: str) -> str:
    async def fetch() -> str:
        conn = HttpConnection(port)
        status, headers, _ = await conn.request("GET", path)
        await conn.close()
        assert status == 200
        return headers["etag"]

    return asyncio.run(fetch())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--duration", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    require_wrk()
    backend = backend_of(args.database_url)
    facts = database_facts(args.database_url)
    lines = [label(f"/api/v2 walk and 304 path, {backend}, {facts}"), ""]
    with Server.sathub(args.database_url, workers=2, log=f"status_v2_{backend}") as server:
        start = f"/api/v2/reports?limit={LIMIT}"
        began = time.monotonic()
        pages, paths, seen = asyncio.run(walk(server.port, start))
        last = paths[-1]
        walked = time.monotonic() - began
        first_pages, last_pages = pages[:100], pages[-100:]
        repeated = asyncio.run(alternate(server.port, [start, last], args.repeat))
        page_1_sql, page_2_sql, keyset_sql = keyset_pages_ms(args.database_url, [start, paths[1], last], args.repeat)
        offset_sql = offset_page_ms(args.database_url, (len(pages) - 1) * LIMIT, max(5, args.repeat // 20))
        lines += [
            f"Walk of {len(pages):,} pages of {LIMIT} ({seen:,} reports, newest first, one keep-alive connection): "
            f"{walked:.1f} s, {len(pages) / walked:.0f} pages/s.",
            "",
            "| what | median ms | p99 ms | requests |",
            "|---|---|---|---|",
            row("walk: pages 1-100 (HTTP, cache miss)", first_pages),
            row(f"walk: pages {len(pages) - 99:,}-{len(pages):,} (HTTP, cache miss)", last_pages),
            row("page 1, asked again (HTTP, miss)", repeated[0]),
            row(f"page {len(pages):,}, asked again (HTTP, miss)", repeated[1]),
            row("page 1: the statement, no cursor (SQL only)", page_1_sql),
            row("page 2: the keyset statement (SQL only)", page_2_sql),
            row(f"page {len(pages):,}: the keyset statement (SQL only)", keyset_sql),
            row(f"page {len(pages):,} as LIMIT/OFFSET (SQL only)", offset_sql),
            "",
            f"Page {len(pages):,} / page 1 (HTTP medians): "
            f"{statistics.median(repeated[1]) / statistics.median(repeated[0]):.2f}; page {len(pages):,} / page 2 "
            f"(SQL medians): {statistics.median(keyset_sql) / statistics.median(page_2_sql):.2f}; "
            f"OFFSET / keyset for page {len(pages):,} (SQL medians): "
            f"{statistics.median(offset_sql) / statistics.median(keyset_sql):.0f}x.",
            "",
        ]
        # The other v2 reads, each read anew after the data revision moved (as after any write).
        others = ["/api/v2/status?days=6", "/api/v2/status?days=30", "/api/v2/grid-squares?hours=720"]
        other_ms = asyncio.run(after_writes(server.port, args.database_url, others, max(5, args.repeat // 10)))
        lines += ["| other v2 read (HTTP, after a write) | median ms | p99 ms | requests |", "|---|---|---|---|"]
        lines += [row(path.removeprefix("/api/v2/"), timings) for path, timings in zip(others, other_ms, strict=True)]
        lines.append("")
        cached = "/api/v2/reports?name=AO-91&limit=100"
        base = f"http://127.0.0.1:{server.port}"
        etag = etag_of(server.port, cached)
        runs = [
            ("v2 reports, If-None-Match (304)", f"{base}{cached}", (f"If-None-Match: {etag}",)),
            ("v2 reports, no If-None-Match (200 from cache)", f"{base}{cached}", ()),
            ("v1 reports.php?name=AO-91&limit=100 (200)", f"{base}/api/v1/reports.php?name=AO-91&limit=100", ()),
        ]
        lines += [
            f"wrk, 64 connections, {args.duration} s a run, 2 workers; the three in turn, {args.rounds} rounds; "
            "medians of the rounds:",
            "",
            "| request | req/s | p50 ms | p99 ms | non-2xx/3xx |",
            "|---|---|---|---|---|",
        ]
        results: list[list[dict]] = [[] for _ in runs]
        for _ in range(args.rounds):
            for i, (_, url, headers) in enumerate(runs):
                results[i].append(wrk(url, args.duration, 64, headers=headers))
        medians = []
        for (what, _, _), rounds in zip(runs, results, strict=True):
            rps, p50, p99 = (statistics.median(r[field] for r in rounds) for field in ("rps", "p50", "p99"))
            medians.append(rps)
            errors = sum(r["errors"] for r in rounds)
            lines.append(f"| {what} | {rps:,.0f} | {p50:.2f} | {p99:.2f} | {errors} |")
        lines += [
            "",
            f"304 / 200-from-cache req/s: {medians[0] / medians[1]:.2f}; 304 / v1 reports.php: "
            f"{medians[0] / medians[2]:.2f}.",
        ]
    print(write_out(f"status_v2_{backend}.md", "\n".join(lines)).read_text())


if __name__ == "__main__":
    main()
