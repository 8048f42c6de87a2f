"""Live archiving (interface B, issue 12): Mailman's archive call measured the way the plugin makes it.

    python -m bench.archive_live --database-url sqlite:///bench/out/archive_live.db [--keep] [--seconds 10]
    python -m bench.archive_live --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench_live

The database is recreated (unless --keep finds it made) with bench/archive_dataset.py's generated
archive of --emails (default 100,000) emails, which holds the read targets' own probes: a
300-email thread and a sender of 1,000 emails (the live lists' senders are other addresses, so
the probes keep their size while mail arrives). Then `sathub serve --workers 2` runs with an
archiver key, and this script, like mailman-hyperkitty, POSTs real corpus messages as multipart
(`mlist` + file `message`) to /archive/api/mailman/archive over HTTP, one at a time, timing each
call from the client (HTTP included):

1. `calls`: 500 gpsd-users messages in archive order, as fast as answers come (threads, senders
   and the 517 cross-posts of the corpus; some replies arrive before their parent);
2. `re-attachment`: the 3GPP list, whose file is newest first: nearly every reply is posted before
   its parent, so each parent's call re-attaches its replies;
3. `duplicates`: 200 messages posted a second time (answered with the existing URL);
4. `sustained`: 100 messages/s (paced) for --seconds while a reader, a process of its own, GETs
   the probe thread's emails and the probe sender's emails in turn, each twice: over HTTP, and
   from the app called in the reader's process on the same database (no HTTP, as the read targets
   were set); the same reads are first timed with nothing writing.

Writes bench/out/archive_live_<backend>.md.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import mailbox
import multiprocessing
import statistics
import tempfile
import threading
import time
import urllib.parse

import httpx
import sqlalchemy as sa

from bench import archive_dataset
from bench.clients import InProcess
from bench.common import MAIL, Server, backend_of, database_exists, label, write_out
from sathub import db
from sathub.app import create_app
from sathub.archive.tables import emails, senders, threads
from sathub.config import Settings

KEY = "bench-key"
WAYS = ("HTTP", "in-process")
PROBES = ("thread (300 emails)", "sender (1,000 emails)")
LIVE_LISTS = ("gpsd-users@lists.berlios.de", "evs@lists.example.org")


def corpus(name: str) -> list[bytes]:
    with tempfile.NamedTemporaryFile(suffix=".mbox") as handle:
        handle.write(gzip.decompress((MAIL / f"{name}.mbox.gz").read_bytes()))
        handle.flush()
        # Not the header-less pieces pipermail's unescaped `From ` lines cut off: Mailman never sends one.
        return [message.as_bytes() for message in mailbox.mbox(handle.name) if message["Message-ID"]]


def prepare(url: str, total: int, keep: bool) -> None:
    """The generated archive without the live lists: made again unless `keep` finds it there."""
    engine = db.create_engine(url)
    try:
        if keep and database_exists(url) and sa.inspect(engine).has_table("emails"):
            with engine.begin() as conn:
                conn.execute(
                    sa.text("DELETE FROM mailing_lists WHERE name IN :names").bindparams(
                        sa.bindparam("names", expanding=True)
                    ),
                    {"names": list(LIVE_LISTS)},
                )
                if conn.execute(sa.select(sa.func.count()).select_from(emails)).scalar_one() >= total:
                    return
    finally:
        engine.dispose()
    engine = archive_dataset.fresh_database(url)
    started = time.monotonic()
    archive_dataset.generate(engine, total)
    engine.dispose()
    print(f"generated {total:,} emails in {time.monotonic() - started:.1f} s", flush=True)


def probes(url: str) -> tuple[str, str]:
    """(the probe thread's emails path, the probe sender's emails path) with their sizes checked."""
    engine = db.create_engine(url)
    paths = archive_dataset.probe_paths(engine)
    with engine.connect() as conn:
        thread_size = conn.execute(sa.select(threads.c.emails_count).where(threads.c.id == 1)).scalar_one()
        sent = conn.execute(
            sa.select(sa.func.count())
            .select_from(emails)
            .join(senders, senders.c.id == emails.c.sender_id)
            .where(senders.c.address == archive_dataset.PROBE_SENDER)
        ).scalar_one()
    engine.dispose()
    print(f"probes: thread of {thread_size} emails, sender of {sent} emails", flush=True)
    return paths["thread"], paths["sender"]


def post(client: httpx.Client, address: str, raw: bytes) -> float:
    started = time.perf_counter()
    answer = client.post(
        "/archive/api/mailman/archive",
        data={"mlist": address},
        files={"message": ("message.txt", raw)},
        headers={"Authorization": f"Token {KEY}"},
    )
    elapsed = (time.perf_counter() - started) * 1000
    if answer.status_code != 200:
        raise SystemExit(f"archive call answered {answer.status_code}: {answer.text}")
    return elapsed


def summary(times: list[float]) -> str:
    """Table cells: n | median ms | p95 ms | max ms."""
    if not times:
        return "0 | — | — | —"
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"{len(times):,} | {statistics.median(times):.2f} | {p95:.2f} | {ordered[-1]:.1f}"


def read_loop(base: str, url: str, paths: tuple[str, ...], ready, stop, out) -> None:
    """GET the probes in turn until `stop` is set, each over HTTP and then from the app itself
    (the ASGI app called in this process on the same database, no HTTP: how the read targets
    were set); `ready` is set once the app is built; `out` (a queue) gets {(way, path): [ms, …]}."""
    app = InProcess(
        create_app(Settings(database_url=url, base_url=base), engine=db.create_engine(url)), host=b"127.0.0.1"
    )
    ready.set()

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
            status, _ = app.get(path)
            times["in-process", path].append((time.perf_counter() - started) * 1000)
            assert status == 200, status
    client.close()
    out.put(times)


class Reader:
    """The read probes in a process of their own, as the archive's readers are not Mailman: the
    posters' Python work in this process must not delay the reads' timing."""

    def __init__(self, base: str, url: str, paths: tuple[str, ...]) -> None:
        context = multiprocessing.get_context("spawn")
        ready, self.stop, self.out = context.Event(), context.Event(), context.Queue()
        self.process = context.Process(target=read_loop, args=(base, url, paths, ready, self.stop, self.out))
        self.process.start()
        ready.wait(60)  # a spawned interpreter takes seconds to import the app on a busy machine

    def finish(self) -> dict[tuple[str, str], list[float]]:
        self.stop.set()
        times = self.out.get(timeout=60)
        self.process.join()
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the sustained phase")
    parser.add_argument("--idle-seconds", type=float, default=5.0, help="reads timed with nothing writing")
    parser.add_argument("--rate", type=float, default=100.0, help="messages per second in the sustained phase")
    parser.add_argument(
        "--senders",
        type=int,
        default=1,
        help="concurrent posters in the sustained phase (Mailman: [runner.archive] instances)",
    )
    parser.add_argument("--emails", type=int, default=100_000, help="size of the generated archive")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="reuse the generated archive when the database holds it (the live lists are deleted)",
    )
    options = parser.parse_args()
    url = options.database_url
    prepare(url, options.emails, options.keep)
    paths = probes(url)
    users = corpus("gpsd-users@lists.berlios.de")
    evs = corpus("3gpp_tsg_sa_wg4_evs@list.etsi.org")
    rows = []

    def row(what: str, times: list[float]) -> None:
        rows.append(f"| {what} | {summary(times)} |")
        print(rows[-1], flush=True)

    server = Server.sathub(
        url, workers=2, log=f"archive_live_{backend_of(url)}", env={"SATHUB_ARCHIVER_KEY": KEY, "SATHUB_BASE_URL": ""}
    )
    base = server.base
    try:
        server.start().wait_up("/archive/api/lists/")
        with httpx.Client(base_url=base, timeout=30) as client:
            for raw in users[:20]:  # warm-up: both workers' pools, the list's first sight
                post(client, "gpsd-users@lists.berlios.de", raw)
            row(
                "archive call, archive order (gpsd-users)",
                [post(client, "gpsd-users@lists.berlios.de", raw) for raw in users[20:520]],
            )
            row(
                "archive call, re-attaching (3GPP, newest first)",
                [post(client, "evs@lists.example.org", raw) for raw in evs],
            )
            row("archive call, duplicate", [post(client, "gpsd-users@lists.berlios.de", raw) for raw in users[20:220]])

            reader = Reader(base, url, paths)
            time.sleep(options.idle_seconds)
            idle = reader.finish()
            for way in WAYS:
                for name, path in zip(PROBES, paths, strict=True):
                    row(f"read {name}, nothing writing, {way}", idle[way, path])

            reader = Reader(base, url, paths)
            todo = users[520 : 520 + int(options.rate * options.seconds)]
            sustained: list[float] = []
            started = time.perf_counter()

            def sender(first: int) -> None:
                interval = options.senders / options.rate
                with httpx.Client(base_url=base, timeout=30) as own:
                    for number, raw in enumerate(todo[first :: options.senders]):
                        delay = started + first / options.rate + number * interval - time.perf_counter()
                        if delay > 0:
                            time.sleep(delay)
                        sustained.append(post(own, "gpsd-users@lists.berlios.de", raw))

            posters = [threading.Thread(target=sender, args=(first,)) for first in range(options.senders)]
            for poster in posters:
                poster.start()
            for poster in posters:
                poster.join()
            elapsed = time.perf_counter() - started
            during = reader.finish()
            row(f"archive call, paced at {options.rate:g}/s by {options.senders} sender(s)", sustained)
            for way in WAYS:
                for name, path in zip(PROBES, paths, strict=True):
                    row(f"read {name}, while archiving, {way}", during[way, path])
    finally:
        server.stop()
    rate = len(sustained) / elapsed
    write_out(
        f"archive_live_{backend_of(url)}.md",
        "\n".join(
            [
                label(
                    f"**archive_live, {backend_of(url)}** — `sathub serve --workers 2` on a generated archive of "
                    f"{options.emails:,} emails; Mailman's archive call over HTTP, one at a time; sustained "
                    f"{len(sustained):,} messages in {elapsed:.1f} s = **{rate:.1f} msg/s** (asked {options.rate:g})"
                ),
                "",
                "| measurement | n | median ms | p95 ms | max ms |",
                "|---|---:|---:|---:|---:|",
                *rows,
            ]
        ),
    )


if __name__ == "__main__":
    main()
