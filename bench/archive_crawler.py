"""An abusive crawler and a reader on one `sathub serve` process over the real corpus, then with
nginx's cache in front, beside public-inbox-httpd walked alike (issue 37, docs/archive-crawlers.md):

    python -m bench.archive_crawler --database-url URL [--seconds 20] [--connections 64]

DATABASE_URL holds the corpus (bench/corpus.py imports it when it is missing). Phases of
`--seconds` each, one after the other, every server started once:
- **the crawler** (a process of its own, `--connections` threads with a keep-alive http.client
  connection each, all from one address) respects nothing: it walks every message page, raw
  source, thread page, thread feed, month page and list feed of the corpus in a random order, and
  every 10th request is a random search (the JSON API, the page or the feed) and every 50th a
  random export (a month of a list, or a search's), as fast as the server answers. The budgets
  (SATHUB_SEARCH_BUDGET, SATHUB_EXPORT_BUDGET, at their defaults) answer most of those 429;
  every answer is counted by kind and status.
- **the reader** (this process, one keep-alive connection) asks a fixed mix in a loop: a message
  page, its thread's page (a thread of about 10 messages of the biggest list), that month's page
  and a search page of that list (`gpsd`, newest first, 20 results). The reader stands for
  people: each search comes from an address of its own (X-Forwarded-For, the server trusting
  127.0.0.1), so no budget refuses it; the crawler's searches all come from one.
- **public-inbox-httpd** (one process, `-W0`, as sathub's one worker; the corpus as
  bench/archive_search_peers.py sets it up) walked by the same crawler over its message pages
  (`/<inbox>/<Message-ID>/`, the same messages in the same order), and read by the same reader
  asking the equivalent mix: the message, its thread (`/<inbox>/<root>/T/`), the topics as of
  that month's end (`?t=`: public-inbox has no month page) and the search (`?q=gpsd&l=20`).

Each phase's row gives the reader's median and p99 (pages: the three pages together), the
crawler's answers a second, its pages (2xx of the pages, raw sources and feeds) a second, and
the CPU the server (with nginx, both) and the crawler used (cores: 1.00 is one core busy the whole
phase), with the load average."""

from __future__ import annotations

import argparse
import http.client
import itertools
import multiprocessing
import os
import random
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa

from bench.archive_search_peers import inbox, installed, pi_env, setup_file
from bench.common import OUT, Server, free_port, group_cpu_seconds, label, percentile, write_out
from bench.corpus import BIG_LIST, corpus_engine
from sathub.archive.tables import PRIVATE, emails, mailing_lists, threads
from sathub.config import Settings
from tests.archive.test_nginx_cache import CONFIG, nginx_binary

SEED = 37
MID_SAFE = "!$&'()*+,;=:@"  # what public-inbox's mid_escape keeps beside letters, digits and -._~
CRAWLER = "192.0.2.1"  # the crawler's one address (RFC 5737), forwarded as a proxy would
SEARCH_EVERY, EXPORT_EVERY = 10, 50  # the crawler's n-th requests that are a search, an export
WORDS = ["gpsd", "gps", "time", "release", "satellite", "ntp", "python", "driver", "fix", "serial"]
READER_THREAD_SIZE = 10  # messages in the reader's thread: a common size, a page of real work
# nginx as docs/archive-caching.md and the nginx test configure it, with room for the crawler:
# each client connection and each connection to sathub count against worker_connections.
NGINX_CONFIG = CONFIG.replace("worker_connections 64;", "worker_connections 1024;")


def corpus_urls(engine: sa.Engine) -> dict:
    """Everything the crawler and the reader ask, read from the corpus's database."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(
                mailing_lists.c.name,
                emails.c.message_id_hash,
                emails.c.message_id,
                emails.c.archived_date,
                threads.c.thread_id,
                threads.c.emails_count,
            )
            .join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
            .join(threads, threads.c.id == emails.c.thread_id)
            .where(mailing_lists.c.archive_policy != PRIVATE)
            .order_by(emails.c.id)
        ).all()
    message_ids = {(row.name, row.message_id_hash): row.message_id for row in rows}
    pages, pi_pages, thread_seen, months = [], [], set(), set()
    for row in rows:
        web = f"/archive/list/{row.name}/"
        pages += [("page", f"{web}message/{row.message_id_hash}/"), ("raw", f"{web}message/{row.message_id_hash}/raw")]
        pi_pages.append(("page", pi_message(row.name, row.message_id)))
        if (row.name, row.thread_id) not in thread_seen:
            thread_seen.add((row.name, row.thread_id))
            pages += [("page", f"{web}thread/{row.thread_id}/"), ("feed", f"{web}thread/{row.thread_id}/feed/atom/")]
        if (row.name, row.archived_date.year, row.archived_date.month) not in months:
            months.add((row.name, row.archived_date.year, row.archived_date.month))
            pages.append(("page", f"{web}{row.archived_date:%Y/%m}/"))
    for name in sorted({row.name for row in rows}):  # sorted: the same walk in every run
        pages += [("feed", f"/archive/list/{name}/feed/"), ("feed", f"/archive/list/{name}/feed/atom/")]
    shuffled = random.Random(SEED)
    shuffled.shuffle(pages)
    shuffled.shuffle(pi_pages)
    # The reader's thread: the first of the biggest list's threads of READER_THREAD_SIZE messages.
    thread = min(
        (row for row in rows if row.name == BIG_LIST and row.emails_count == READER_THREAD_SIZE),
        key=lambda row: row.thread_id,
    )
    root_id = message_ids[(BIG_LIST, thread.thread_id)]
    month_start = next_month(thread.archived_date.year, thread.archived_date.month)
    web = f"/archive/list/{BIG_LIST}/"
    return {
        "crawl": with_costly(pages, sorted(months), shuffled),
        "pi_crawl": pi_pages,
        "reader": [
            ("page", f"{web}message/{thread.thread_id}/"),
            ("page", f"{web}thread/{thread.thread_id}/"),
            ("page", f"{web}{thread.archived_date:%Y/%m}/"),
            ("search", f"/archive/search?q=gpsd&mlist={quote(BIG_LIST)}&sort=date-desc"),
        ],
        "pi_reader": [
            ("page", pi_message(BIG_LIST, root_id)),
            ("page", pi_message(BIG_LIST, root_id) + "T/"),
            ("page", f"/{inbox(BIG_LIST)}/?t={month_start.replace('-', '')}000000"),
            ("search", f"/{inbox(BIG_LIST)}/?q=gpsd&l=20"),
        ],
        "counts": {"messages": len(rows), "threads": len(thread_seen), "months": len(months)},
    }


def pi_message(address: str, message_id: str) -> str:
    """public-inbox's address of a message page: its Message-ID escaped as mid_escape does."""
    return f"/{inbox(address)}/{quote(message_id, safe=MID_SAFE)}/"


def next_month(year: int, month: int) -> str:
    """The first day of the month after `month`, as YYYY-MM-01."""
    return f"{year + month // 12}-{month % 12 + 1:02d}-01"


def with_costly(pages: list, months: list, chosen: random.Random) -> list[tuple[str, str]]:
    """The pages with a random search every SEARCH_EVERY-th and a random export every
    EXPORT_EVERY-th request."""
    walk = []
    for number, page in enumerate(pages, 1):
        if number % EXPORT_EVERY == 0:
            name, year, month = chosen.choice(months)
            start = f"{year}-{month:02d}-01"
            walk.append(
                chosen.choice(
                    [
                        (
                            "export",
                            f"/archive/list/{name}/export/m.mbox.gz?start={start}&end={next_month(year, month)}",
                        ),
                        ("export", f"/archive/search/export/s.mbox.gz?q={chosen.choice(WORDS)}"),
                    ]
                )
            )
        elif number % SEARCH_EVERY == 0:
            q = quote(" ".join(chosen.sample(WORDS, chosen.choice((1, 2)))))
            walk.append(
                chosen.choice(
                    [
                        ("search", f"/archive/api/search/?q={q}&limit=10&offset={chosen.randrange(0, 200, 10)}"),
                        ("search", f"/archive/search?q={q}&page={chosen.randrange(1, 10)}"),
                        ("search", f"/archive/search/feed/atom/?q={q}"),
                    ]
                )
            )
        walk.append(page)
    return walk


def crawl(port: int, walk: list, connections: int, seconds: float, results) -> None:
    """The crawler's process: `connections` threads take the walk's next URL until `seconds` pass."""
    next_url, lock, cpu = itertools.count(), threading.Lock(), time.process_time()
    counted: Counter[tuple[str, int | str]] = Counter()
    until = time.monotonic() + seconds

    def walker() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine: Counter[tuple[str, int | str]] = Counter()
        while time.monotonic() < until:
            kind, path = walk[next(next_url) % len(walk)]
            try:
                connection.request("GET", path, headers={"X-Forwarded-For": CRAWLER})
                response = connection.getresponse()
                response.read()
                mine[kind, response.status] += 1
            except (OSError, http.client.HTTPException):
                mine[kind, "error"] += 1
                connection.close()
        connection.close()
        with lock:
            counted.update(mine)

    walkers = [threading.Thread(target=walker) for _ in range(connections)]
    for thread in walkers:
        thread.start()
    for thread in walkers:
        thread.join()
    results.put((dict(counted), time.process_time() - cpu))


def read(port: int, mix: list, seconds: float, addresses: Iterator[str]) -> dict[str, list[float]]:
    """The reader: the mix in a loop on one keep-alive connection for `seconds`; ms by kind."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times: dict[str, list[float]] = {"page": [], "search": []}
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        for kind, path in mix:
            started = time.perf_counter()
            connection.request("GET", path, headers={"X-Forwarded-For": next(addresses)})
            response = connection.getresponse()
            body = response.read()
            times[kind].append((time.perf_counter() - started) * 1000)
            assert response.status == 200, (path, response.status, body[:300])
    connection.close()
    return times


def phase(what: str, port: int, mix: list, walk: list | None, args, watched: list[int], addresses) -> str:
    """One phase's row: the reader alone (`walk` None) or beside the crawler."""
    read(port, mix, 1, addresses)  # warm-up, and each path checked to answer 200
    results = multiprocessing.get_context("fork").Queue()
    crawler = None
    if walk is not None:
        crawler = multiprocessing.get_context("fork").Process(
            target=crawl, args=(port, walk, args.connections, args.seconds, results)
        )
        crawler.start()
        time.sleep(0.5)  # every connection open and busy before the reader starts
    cpu, started = sum(map(group_cpu_seconds, watched)), time.monotonic()
    times = read(port, mix, args.seconds - (0.5 if walk else 0), addresses)
    elapsed = time.monotonic() - started
    cores = (sum(map(group_cpu_seconds, watched)) - cpu) / elapsed
    load = os.getloadavg()[0]
    counted, crawler_cpu = {}, 0.0
    if crawler is not None:
        counted, crawler_cpu = results.get(timeout=120)
        crawler.join()
    answers = sum(counted.values()) / args.seconds
    pages = sum(n for (kind, status), n in counted.items() if kind in ("page", "raw", "feed") and status == 200)
    statuses = "; ".join(
        f"{kind} " + ", ".join(f"{status}×{n:,}" for (k, status), n in sorted(counted.items(), key=str) if k == kind)
        for kind in ("page", "raw", "feed", "search", "export")
        if any(k == kind for k, _ in counted)
    )
    return (
        f"| {what} | {figures(times['page'])} | {figures(times['search'])} | {len(times['search']):,} "
        f"| {f'{answers:,.0f}' if counted else '—'} | {f'{pages / args.seconds:,.0f}' if counted else '—'} "
        f"| {statuses or '—'} | {cores:.2f} | {f'{crawler_cpu / args.seconds:.2f}' if counted else '—'} | {load:.1f} |"
    )


def figures(times: list[float]) -> str:
    return f"{statistics.median(times):.1f} / {percentile(times, 99):.1f}"


@contextmanager
def nginx_in_front(upstream: str) -> Iterator[Server]:
    """nginx caching `upstream` (a fresh, empty cache) on a free port."""
    with tempfile.TemporaryDirectory(prefix="sathub-crawler-nginx-") as folder:
        port = free_port()
        config = Path(folder) / "nginx.conf"
        user = "user root;" if os.geteuid() == 0 else ""  # as root, workers would be `nobody`
        config.write_text(NGINX_CONFIG.format(user=user, folder=folder, port=port, upstream=upstream))
        command = [nginx_binary(), "-c", str(config), "-p", folder, "-e", f"{folder}/error.log"]
        with Server(command, port, OUT / "archive_crawler_nginx.log") as server:
            yield server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--seconds", type=float, default=20, help="each phase")
    parser.add_argument("--connections", type=int, default=64, help="the crawler's")
    args = parser.parse_args()
    engine = corpus_engine(args.database_url)
    backend = engine.dialect.name
    urls = corpus_urls(engine)
    engine.dispose()
    # Each of the reader's searches from an address of its own (RFC 2544's benchmark range).
    addresses = (f"198.{18 + n // 65536 % 2}.{n // 256 % 256}.{n % 256}" for n in itertools.count())
    rows = []
    # The budgets at their defaults: the crawler is what they are for (Server.sathub turns them off).
    defaults = Settings()
    env = {
        "SATHUB_TRUSTED_PROXIES": "127.0.0.1",
        "SATHUB_SEARCH_BUDGET": str(defaults.search_budget),
        "SATHUB_EXPORT_BUDGET": str(defaults.export_budget),
    }
    with Server.sathub(args.database_url, workers=1, log="archive_crawler", env=env) as sathub:
        rows.append(phase("sathub, idle", sathub.port, urls["reader"], None, args, [sathub.pid], addresses))
        rows.append(
            phase("sathub + crawler", sathub.port, urls["reader"], urls["crawl"], args, [sathub.pid], addresses)
        )
        with nginx_in_front(sathub.base) as nginx:
            rows.append(
                phase(
                    "nginx cache → sathub + crawler",
                    nginx.port,
                    urls["reader"],
                    urls["crawl"],
                    args,
                    [sathub.pid, nginx.pid],
                    addresses,
                )
            )
    note = ""
    if why := installed("public-inbox") or (
        None if setup_file("public-inbox").exists() else "public-inbox: not set up, skipped."
    ):
        note = f"\n\n{why} (python -m bench.archive_search_peers setup --peers public-inbox)"
    else:
        port = free_port()
        command = ["public-inbox-httpd", "-W0", "-l", f"http://127.0.0.1:{port}"]
        with Server(command, port, OUT / "archive_crawler_pi.log", pi_env()) as pi:
            rows.append(phase("public-inbox, idle", port, urls["pi_reader"], None, args, [pi.pid], addresses))
            rows.append(
                phase("public-inbox + crawler", port, urls["pi_reader"], urls["pi_crawl"], args, [pi.pid], addresses)
            )
    counts = urls["counts"]
    lines = [
        label(
            f"**archive_crawler** ({backend}) — one `sathub serve` process over the corpus ({counts['messages']:,} "
            f"messages, {counts['threads']:,} threads, {counts['months']:,} months), {args.seconds:g} s a phase, "
            f"the crawler on {args.connections} connections"
        ),
        "",
        "| phase | reader pages median / p99 ms | reader search median / p99 ms | reader searches "
        "| crawler answers/s | crawler pages/s | crawler statuses | server CPU (cores) | crawler CPU (cores) "
        "| load average |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
        *rows,
    ]
    write_out(f"archive_crawler_{backend}.md", "\n".join(lines) + note)


if __name__ == "__main__":
    main()
