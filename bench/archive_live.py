"""Live archiving (interface B, issue 12): Mailman's archive call measured the way the plugin makes it.

    .venv/bin/python bench/archive_live.py --database-url sqlite:///bench/out/archive_live.db
    .venv/bin/python bench/archive_live.py --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench_live

The database is recreated with bench/archive_read.py's generated archive of --emails (default
100,000) emails, which holds the read targets' own probes: a 300-email thread and a sender of 1,000
emails (the live lists' senders are other addresses, so the probes keep their size while mail
arrives). Then `sathub serve --workers 2` runs with an archiver key, and this script, like
mailman-hyperkitty, POSTs real corpus messages as multipart (`mlist` + file `message`) to
/archive/api/mailman/archive over HTTP, one at a time, timing each call from the client (HTTP
included):

1. `calls`: 500 gpsd-users messages in archive order, as fast as answers come (threads, senders
   and the 517 cross-posts of the corpus; some replies arrive before their parent);
2. `re-attachment`: the 3GPP list, whose file is newest first: nearly every reply is posted before
   its parent, so each parent's call re-attaches its replies;
3. `duplicates`: 200 messages posted a second time (answered with the existing URL);
4. `sustained`: 100 messages/s (paced) for --seconds while a reader, a process of its own, GETs
   the probe thread's emails and the probe sender's emails in turn, each twice: over HTTP, and
   from the app called in the reader's process on the same database (no HTTP, as the read targets
   were set: bench/asgi_time.py); the same reads are first timed with nothing writing.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import mailbox
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

sys.path.insert(0, str(ROOT / "bench"))

import archive_read  # noqa: E402
from asgi_time import asgi_get  # noqa: E402
from status_load import wait_until_up  # noqa: E402

from sathub import db  # noqa: E402
from sathub.archive.tables import emails, senders, threads  # noqa: E402

MAIL = ROOT.parent / "shared" / "data" / "mail"
KEY = "bench-key"
WAYS = ("HTTP", "in-process")
PROBES = ("thread (300 emails)", "sender (1,000 emails)")
TABLES = ("attachments", "emails", "threads", "senders", "mailing_lists")


def corpus(name: str) -> list[bytes]:
    with tempfile.NamedTemporaryFile(suffix=".mbox") as handle:
        handle.write(gzip.decompress((MAIL / f"{name}.mbox.gz").read_bytes()))
        handle.flush()
        # Not the header-less pieces pipermail's unescaped `From ` lines cut off: Mailman never sends one.
        return [message.as_bytes() for message in mailbox.mbox(handle.name) if message["Message-ID"]]


def sathub(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sathub", *args], env={**os.environ, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def prepare(url: str, total: int) -> None:
    """A fresh database with the generated archive; PostgreSQL's sequences moved past its ids."""
    engine = archive_read.fresh_database(url)
    started = time.monotonic()
    archive_read.generate(engine, total)
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            for table in TABLES:
                conn.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                     f"(SELECT max(id) FROM {table}))")
    engine.dispose()
    print(f"generated {total:,} emails in {time.monotonic() - started:.1f} s", flush=True)


def probes(url: str) -> tuple[str, str]:
    """(the probe thread's emails path, the probe sender's emails path) with their sizes checked."""
    engine = db.create_engine(url)
    paths = archive_read.probe_paths(engine)
    with engine.connect() as conn:
        thread_size = conn.execute(sa.select(threads.c.emails_count).where(threads.c.id == 1)).scalar_one()
        sent = conn.execute(sa.select(sa.func.count()).select_from(emails).join(senders, senders.c.id == emails.c.sender_id)
                            .where(senders.c.address == archive_read.PROBE_SENDER)).scalar_one()
    engine.dispose()
    print(f"probes: thread of {thread_size} emails, sender of {sent} emails", flush=True)
    return paths["thread"], paths["sender"]


def post(client: httpx.Client, address: str, raw: bytes) -> float:
    started = time.perf_counter()
    answer = client.post("/archive/api/mailman/archive", data={"mlist": address},
                         files={"message": ("message.txt", raw)}, headers={"Authorization": f"Token {KEY}"})
    elapsed = (time.perf_counter() - started) * 1000
    if answer.status_code != 200:
        raise SystemExit(f"archive call answered {answer.status_code}: {answer.text}")
    return elapsed


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"n={len(times)} median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms, max {ordered[-1]:.1f} ms"


def read_loop(base: str, url: str, paths: tuple[str, ...], stop, out) -> None:
    """GET the probes in turn until `stop` is set, each over HTTP and then from the app itself
    (the ASGI app called in this process on the same database, no HTTP: how the read targets
    were set, bench/asgi_time.py); `out` (a queue) gets {(way, path): [ms, …]}."""
    import asyncio

    from sathub.app import create_app
    from sathub.config import Settings

    app = create_app(Settings(database_url=url, base_url=base), engine=db.create_engine(url))
    loop = asyncio.new_event_loop()
    headers = [(b"host", b"127.0.0.1")]

    times: dict[tuple[str, str], list[float]] = {(way, path): [] for way in WAYS for path in paths}
    # http.client, not httpx: ~0.5 ms less of the client's own parsing in each 0.3–1 MB answer.
    client = http.client.HTTPConnection(urllib.parse.urlsplit(base).netloc, timeout=30)
    while not stop.is_set():
        for path in paths:
            started = time.perf_counter()
            client.request("GET", path)
            answer = client.getresponse()
            body = answer.read()
            times["HTTP", path].append((time.perf_counter() - started) * 1000)
            assert answer.status == 200, body[:200]
            started = time.perf_counter()
            status, _ = loop.run_until_complete(asgi_get(app, path, headers))
            times["in-process", path].append((time.perf_counter() - started) * 1000)
            assert status == 200, status
    client.close()
    out.put(times)


class Reader:
    """The read probes in a process of their own, as the archive's readers are not Mailman: the
    posters' Python work in this process must not delay the reads' timing."""

    def __init__(self, base: str, url: str, paths: tuple[str, ...]) -> None:
        context = multiprocessing.get_context("spawn")
        self.stop, self.out = context.Event(), context.Queue()
        self.process = context.Process(target=read_loop, args=(base, url, paths, self.stop, self.out))
        self.process.start()

    def finish(self) -> dict[tuple[str, str], list[float]]:
        self.stop.set()
        times = self.out.get(timeout=60)
        self.process.join()
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the sustained phase")
    parser.add_argument("--rate", type=float, default=100.0, help="messages per second in the sustained phase")
    parser.add_argument("--senders", type=int, default=1,
                        help="concurrent posters in the sustained phase (Mailman: [runner.archive] instances)")
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument("--emails", type=int, default=100_000, help="size of the generated archive")
    parser.add_argument("--skip-import", action="store_true",
                        help="reuse the generated archive (the live lists are deleted)")
    options = parser.parse_args()
    url = options.database_url
    if not options.skip_import:
        prepare(url, options.emails)
    else:
        engine = db.create_engine(url)
        with engine.begin() as conn:
            conn.exec_driver_sql("DELETE FROM mailing_lists WHERE name IN "
                                 "('gpsd-users@lists.berlios.de', 'evs@lists.example.org')")
        engine.dispose()
    paths = probes(url)
    users = corpus("gpsd-users@lists.berlios.de")
    evs = corpus("3gpp_tsg_sa_wg4_evs@list.etsi.org")
    base = f"http://127.0.0.1:{options.port}"
    server = sathub("serve", "--port", str(options.port), "--workers", "2", "--database-url", url,
                    env={"SATHUB_ARCHIVER_KEY": KEY, "SATHUB_LOG_LEVEL": "warning", "SATHUB_BASE_URL": ""})
    try:
        wait_until_up(f"{base}/archive/api/lists/", 60)
        with httpx.Client(base_url=base, timeout=30) as client:
            for raw in users[:20]:  # warm-up: both workers' pools, the list's first sight
                post(client, "gpsd-users@lists.berlios.de", raw)
            calls = [post(client, "gpsd-users@lists.berlios.de", raw) for raw in users[20:520]]
            print(f"calls (gpsd-users, archive order): {summary(calls)}", flush=True)
            reattach = [post(client, "evs@lists.example.org", raw) for raw in evs]
            print(f"re-attachment (3GPP, newest first): {summary(reattach)}", flush=True)
            duplicates = [post(client, "gpsd-users@lists.berlios.de", raw) for raw in users[20:220]]
            print(f"duplicates: {summary(duplicates)}", flush=True)

            reader = Reader(base, url, paths)
            time.sleep(8)
            idle = reader.finish()
            for way in WAYS:
                for label, path in zip(PROBES, paths):
                    print(f"reads, nothing writing, {way}, {label}: {summary(idle[way, path])}", flush=True)

            reader = Reader(base, url, paths)
            todo = users[520:520 + int(options.rate * options.seconds)]
            sustained: list[float] = []
            started = time.perf_counter()

            def sender(first: int) -> None:
                interval = options.senders / options.rate
                with httpx.Client(base_url=base, timeout=30) as own:
                    for number, raw in enumerate(todo[first::options.senders]):
                        delay = started + first / options.rate + number * interval - time.perf_counter()
                        if delay > 0:
                            time.sleep(delay)
                        sustained.append(post(own, "gpsd-users@lists.berlios.de", raw))

            posters = [threading.Thread(target=sender, args=(first,)) for first in range(options.senders)]
            for poster in posters:
                poster.start()
            for poster in posters:
                poster.join()
            sent = len(sustained)
            elapsed = time.perf_counter() - started
            out = reader.finish()
            print(f"sustained ({options.senders} sender(s)): {sent} messages in {elapsed:.1f} s = {sent / elapsed:.1f} msg/s; "
                  f"calls {summary(sustained)}", flush=True)
            for way in WAYS:
                for label, path in zip(PROBES, paths):
                    print(f"reads while archiving, {way}, {label}: {summary(out[way, path])}", flush=True)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
