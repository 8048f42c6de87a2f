"""Live archiving (interface B, issue 12): Mailman's archive call measured the way the plugin makes it.

    .venv/bin/python bench/archive_live.py --database-url sqlite:///bench/out/archive_live.db
    .venv/bin/python bench/archive_live.py --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench_live

The database is emptied and gets gpsd-dev and python-committers by `sathub archive import` (the read
probes: the corpus's biggest thread and the sender closest to 1,000 emails). Then `sathub serve
--workers 2` runs with an archiver key, and this script, like mailman-hyperkitty, POSTs real corpus
messages as multipart (`mlist` + file `message`) to /archive/api/mailman/archive over HTTP, one at a
time, timing each call from the client (HTTP included):

1. `calls`: 500 gpsd-users messages in archive order, as fast as answers come (threads, senders
   and the 517 cross-posts of the corpus; some replies arrive before their parent);
2. `re-attachment`: the 3GPP list, whose file is newest first: nearly every reply is posted before
   its parent, so each parent's call re-attaches its replies;
3. `duplicates`: 200 messages posted a second time (answered with the existing URL);
4. `sustained`: 100 messages/s (paced) for --seconds while a reader GETs the probe thread's emails
   and the probe sender's emails in turn; the same reads are first timed with nothing writing.
"""

from __future__ import annotations

import argparse
import gzip
import mailbox
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sathub import db  # noqa: E402

MAIL = ROOT.parent / "shared" / "data" / "mail"
KEY = "bench-key"
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


def prepare(url: str) -> None:
    engine = db.create_engine(url)
    db.upgrade(engine)
    with engine.begin() as conn:
        for table in TABLES:
            conn.exec_driver_sql(f"DELETE FROM {table}")
    engine.dispose()
    for name in ("gpsd-dev@lists.berlios.de", "python-committers@python.org"):
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "sathub", "archive", "import", "--database-url", url,
                        str(MAIL / f"{name}.mbox.gz")], check=True, stdout=subprocess.DEVNULL)
        print(f"imported {name} in {time.monotonic() - started:.1f} s", flush=True)


def probes(url: str) -> tuple[str, str]:
    """(thread emails path of the biggest thread, sender emails path of the sender closest to 1,000)."""
    engine = db.create_engine(url)
    with engine.connect() as conn:
        name, thread_id, count = conn.execute(sa.text(
            "SELECT l.name, t.thread_id, t.emails_count FROM threads t JOIN mailing_lists l ON l.id = t.list_id "
            "ORDER BY t.emails_count DESC LIMIT 1")).one()
        mailman_id, sent = conn.execute(sa.text(
            "SELECT s.mailman_id, count(*) AS n FROM emails e JOIN senders s ON s.id = e.sender_id "
            "GROUP BY s.mailman_id ORDER BY abs(count(*) - 1000) LIMIT 1")).one()
    engine.dispose()
    print(f"probes: thread of {count} emails, sender of {sent} emails", flush=True)
    return (f"/archive/api/list/{name}/thread/{thread_id}/emails/", f"/archive/api/sender/{mailman_id}/emails/")


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


def read_loop(base: str, paths: tuple[str, ...], stop: threading.Event, out: dict[str, list[float]]) -> None:
    with httpx.Client(base_url=base, timeout=30) as client:
        while not stop.is_set():
            for path in paths:
                started = time.perf_counter()
                answer = client.get(path)
                out[path].append((time.perf_counter() - started) * 1000)
                assert answer.status_code == 200, answer.text


def timed_reads(base: str, paths: tuple[str, ...], seconds: float) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {path: [] for path in paths}
    stop = threading.Event()
    reader = threading.Thread(target=read_loop, args=(base, paths, stop, out))
    reader.start()
    time.sleep(seconds)
    stop.set()
    reader.join()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the sustained phase")
    parser.add_argument("--rate", type=float, default=100.0, help="messages per second in the sustained phase")
    parser.add_argument("--senders", type=int, default=1,
                        help="concurrent posters in the sustained phase (Mailman: [runner.archive] instances)")
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument("--skip-import", action="store_true", help="reuse the imported probes (live lists are emptied)")
    options = parser.parse_args()
    url = options.database_url
    if not options.skip_import:
        prepare(url)
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
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/archive/api/lists/", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("sathub serve did not start")
            time.sleep(0.2)
        with httpx.Client(base_url=base, timeout=30) as client:
            for raw in users[:20]:  # warm-up: both workers' pools, the list's first sight
                post(client, "gpsd-users@lists.berlios.de", raw)
            calls = [post(client, "gpsd-users@lists.berlios.de", raw) for raw in users[20:520]]
            print(f"calls (gpsd-users, archive order): {summary(calls)}", flush=True)
            reattach = [post(client, "evs@lists.example.org", raw) for raw in evs]
            print(f"re-attachment (3GPP, newest first): {summary(reattach)}", flush=True)
            duplicates = [post(client, "gpsd-users@lists.berlios.de", raw) for raw in users[20:220]]
            print(f"duplicates: {summary(duplicates)}", flush=True)

            idle = timed_reads(base, paths, 8)
            for path in paths:
                print(f"reads, nothing writing, {path.split('/')[3]}: {summary(idle[path])}", flush=True)

            out: dict[str, list[float]] = {path: [] for path in paths}
            stop = threading.Event()
            reader = threading.Thread(target=read_loop, args=(base, paths, stop, out))
            reader.start()
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
            stop.set()
            reader.join()
            print(f"sustained ({options.senders} sender(s)): {sent} messages in {elapsed:.1f} s = {sent / elapsed:.1f} msg/s; "
                  f"calls {summary(sustained)}", flush=True)
            for path in paths:
                print(f"reads while archiving, {path.split('/')[3]}: {summary(out[path])}", flush=True)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
