"""Removal's speed (issue 36, "Speed"): one message hidden or deleted, one sender's 1,000 messages
deleted beside a reader, and the reads with removals against without.

    python -m bench.archive_removal --database-url URL [--messages 220] [--rounds 5] [--repeat 50]

URL holds the corpus (imported when it has no mail, as bench/archive_pages.py does; never written
after); each run copies it twice: `…_kept` (nothing removed) and `…_removed`. Three measurements:

1. One message: `removal.operations.run` on `…_removed`, by list and hash, for `--messages`
   messages spread evenly over the corpus by arrival (220 is 1 %): each hidden, unhidden, hidden
   again (all timed: they stay hidden); then as many others deleted one by one.
2. One sender's 1,000 messages: each round plants 1,000 replies from a new address into existing
   threads of two lists through the importer, then times the sender's delete (every list, one
   run()). Meanwhile a reader process (`--connections` keep-alive connections) asks
   `sathub serve --workers 2` on `…_kept` for another list's thread listings and thread pages in
   a closed loop; its requests that start while the delete runs are set against those of an
   idle window of `--idle` seconds just before it, round by round.
3. The reads: the read API, the search API (issue 24's mix) and the pages, on `…_kept` and on
   `…_removed` once 1 % of the corpus is hidden and 1 % deleted (by 1.), the app of each called
   in-process, alternated request by request (which goes first alternating too), PostgreSQL
   vacuumed and analysed first. The probes' own messages are never removed.
Wall times come with this process's CPU time, which a shared machine's load moves far less (on
SQLite it is all of the work; on PostgreSQL the server's share is not in it)."""

from __future__ import annotations

import argparse
import asyncio
import mailbox
import multiprocessing
import sqlite3
import statistics
import time
from contextlib import closing
from datetime import UTC, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa

from bench.archive_pages import extremes, imported
from bench.clients import HttpConnection, InProcess
from bench.common import OUT, Server, label, percentile, recreate_database, vacuum_analyze, write_out
from bench.search_mix import MIX
from sathub import db
from sathub.app import create_app
from sathub.archive.ingest.importer import import_archive
from sathub.archive.removal.operations import DELETE, HIDE, UNHIDE, run, scope_of
from sathub.archive.tables import emails, mailing_lists, senders, threads
from sathub.config import Settings

PLANTED_ON = {"gpsd-dev@lists.berlios.de": 600, "gpsd-users@lists.berlios.de": 400}
READ_LIST = "python-committers@python.org"  # the reader's list, which no removal here touches
BASE = "http://bench.example"


# Databases ---------------------------------------------------------------------------------------


def copy_of(url: str, suffix: str) -> str:
    """A fresh copy of the database at `url` (no connection open on it), named with `suffix`."""
    parsed = db.normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        target = f"{Path(parsed.database).with_suffix('')}_{suffix}.db"
        recreate_database(f"sqlite:///{target}")
        with closing(sqlite3.connect(parsed.database)) as source, closing(sqlite3.connect(target)) as copy:
            source.backup(copy)
        return f"sqlite:///{target}"
    name = f"{parsed.database}_{suffix}"
    admin = sa.create_engine(parsed.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}" TEMPLATE "{parsed.database}"')
    admin.dispose()
    return parsed.set(database=name).render_as_string(hide_password=False)


# 1. One message ----------------------------------------------------------------------------------


def spread(engine: sa.Engine, count: int, avoid: set[str]) -> list[tuple[str, str]]:
    """(list, Message-ID hash) of `count` messages evenly spaced by arrival, none of `avoid`."""
    with engine.connect() as conn:
        found = conn.execute(
            sa.select(mailing_lists.c.name, emails.c.message_id_hash)
            .join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
            .order_by(emails.c.id)
        ).all()
    rows = [(name, message_hash) for name, message_hash in found if message_hash not in avoid]
    return [rows[i * len(rows) // count] for i in range(count)]


def timed_run(engine: sa.Engine, action: str, list_name: str, message_hash: str) -> tuple[float, float]:
    """Wall and this process's CPU ms of one run() (on SQLite all of the work; on PostgreSQL the
    server's is left out)."""
    started, cpu = time.perf_counter(), time.process_time()
    outcome = run(engine, action, scope_of(message_id_hash_=message_hash, list_name=list_name), "bench", "bench")
    assert outcome.messages == 1, outcome.describe()
    return (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000


def one_message(engine: sa.Engine, count: int, avoid: set[str]) -> dict[str, list[tuple[float, float]]]:
    chosen = spread(engine, 2 * count, avoid)
    samples: dict[str, list[tuple[float, float]]] = {HIDE: [], UNHIDE: [], DELETE: []}
    for list_name, message_hash in chosen[0::2]:
        for action in (HIDE, UNHIDE, HIDE):
            samples[action].append(timed_run(engine, action, list_name, message_hash))
    for list_name, message_hash in chosen[1::2]:
        samples[DELETE].append(timed_run(engine, DELETE, list_name, message_hash))
    return samples


# 2. One sender's 1,000 messages beside a reader ---------------------------------------------------


def plant(engine: sa.Engine, address: str) -> None:
    """Replies from `address` to messages spread over PLANTED_ON's lists, through the importer."""
    for list_name, count in PLANTED_ON.items():
        with engine.connect() as conn:
            parents = conn.execute(
                sa.select(emails.c.message_id, emails.c.date)
                .join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
                .where(mailing_lists.c.name == list_name)
                .order_by(emails.c.id)
            ).all()
        path = OUT / f"archive_removal_{list_name}.mbox"
        path.unlink(missing_ok=True)
        box = mailbox.mbox(path)
        for number in range(count):
            parent = parents[number * len(parents) // count]
            message = EmailMessage()
            message["From"] = f"Planted Sender <{address}>"
            message["To"] = list_name
            message["Subject"] = "Re: a planted reply"
            message["Date"] = format_datetime((parent.date + timedelta(hours=1)).replace(tzinfo=UTC))
            message["Message-ID"] = f"<{number}.{address}>"
            message["In-Reply-To"] = message["References"] = f"<{parent.message_id}>"
            message.set_content(f"Planted reply {number} for the removal benchmark.\n" * 5)
            box.add(message)
        box.close()
        summary = import_archive(engine, list_name, [path])
        assert summary.imported == count, summary.describe()
        path.unlink()


def reader_paths(engine: sa.Engine) -> list[str]:
    """READ_LIST's thread listings and 20 of its thread pages, one after the other."""
    with engine.connect() as conn:
        thread_ids = conn.scalars(
            sa.select(threads.c.thread_id)
            .join(mailing_lists, mailing_lists.c.id == threads.c.list_id)
            .where(mailing_lists.c.name == READ_LIST)
            .order_by(threads.c.id)
        ).all()
    pages = [f"/archive/list/{READ_LIST}/thread/{thread_ids[i * len(thread_ids) // 20]}/" for i in range(20)]
    listings = [f"/archive/api/list/{READ_LIST}/threads/?limit=20&offset={20 * i}" for i in range(20)]
    return [path for pair in zip(listings, pages, strict=True) for path in pair]


def read_loop(port: int, paths: list[str], connections: int, stop, results) -> None:
    """In a process of its own: (start, ms, status) of every request until `stop` is set."""

    async def one(offset: int, samples: list) -> None:
        connection = HttpConnection(port)
        number = offset
        while not stop.is_set():
            started = time.monotonic()
            status, _, _ = await connection.request("GET", paths[number % len(paths)])
            samples.append((started, (time.monotonic() - started) * 1000, status))
            number += 1
        await connection.close()

    async def main() -> list:
        samples: list = []
        await asyncio.gather(*(one(7 * i, samples) for i in range(connections)))
        return samples

    results.put(asyncio.run(main()))


def sender_delete(url: str, rounds: int, idle: float, connections: int) -> dict:
    engine = db.create_engine(url)
    paths = reader_paths(engine)
    context = multiprocessing.get_context("spawn")
    stop, results = context.Event(), context.Queue()
    windows: dict[str, list[tuple[float, float]]] = {"idle": [], "delete": []}
    deletes, plants = [], []
    with Server.sathub(url, workers=2, log="archive_removal_server") as server:
        reader = context.Process(target=read_loop, args=(server.port, paths, connections, stop, results))
        reader.start()
        time.sleep(2)  # the reader's process up and its first answers read
        for number in range(rounds):
            address = f"planted-{number}@bench.example"
            started = time.monotonic()
            plant(engine, address)
            plants.append(time.monotonic() - started)
            time.sleep(0.5)
            started = time.monotonic()
            time.sleep(idle)
            windows["idle"].append((started, time.monotonic()))
            started, cpu = time.monotonic(), time.process_time()
            outcome = run(engine, DELETE, scope_of(sender=address), "bench", "bench", confirmed=True)
            windows["delete"].append((started, time.monotonic()))
            assert outcome.messages == sum(PLANTED_ON.values()), outcome.describe()
            deletes.append((windows["delete"][-1][1] - started, time.process_time() - cpu))
        stop.set()
        samples = results.get(timeout=60)
        reader.join(30)
    engine.dispose()
    assert all(status == 200 for _, _, status in samples), {status for _, _, status in samples}
    latency = {
        kind: sorted(ms for started, ms, _ in samples if any(a <= started < b for a, b in spans))
        for kind, spans in windows.items()
    }
    return {"deletes": deletes, "plants": plants, "latency": latency}


# 3. Reads with removals and without --------------------------------------------------------------


def read_probes(engine: sa.Engine) -> tuple[list[tuple[str, str, str]], set[str]]:
    """(kind, what, path) of the reads compared, and the Message-ID hashes they show alone."""
    found = extremes(engine)
    list_name, thread_id, thread_size, first_email = found["thread"]
    month_list, year, month, _ = found["month"]
    big_list, _ = found["list"]
    with engine.connect() as conn:
        per_sender = (
            sa.select(senders.c.mailman_id, sa.func.count().label("n"))
            .join(emails, emails.c.sender_id == senders.c.id)
            .group_by(senders.c.mailman_id)
            .subquery()
        )
        sender = conn.scalar(sa.select(per_sender.c.mailman_id).order_by(sa.func.abs(per_sender.c.n - 1000)).limit(1))
    api = "/archive/api"
    probes = [
        ("read API", "threads of the biggest list", f"{api}/list/{big_list}/threads/?limit=20"),
        ("read API", "emails of the biggest list", f"{api}/list/{big_list}/emails/?limit=20"),
        ("read API", f"largest thread's emails ({thread_size})", f"{api}/list/{list_name}/thread/{thread_id}/emails/"),
        ("read API", "sender closest to 1,000 emails", f"{api}/sender/{sender}/emails/"),
        *(("search", query, f"{api}/search/?q={quote(query)}&limit=10") for _, query in MIX),
        ("pages", "index of lists", "/archive/"),
        ("pages", "overview of the biggest list", f"/archive/list/{big_list}/"),
        ("pages", "busiest month", f"/archive/list/{month_list}/{year:04d}/{month:02d}/"),
        ("pages", "largest thread", f"/archive/list/{list_name}/thread/{thread_id}/"),
        ("pages", "its first message", f"/archive/list/{list_name}/message/{first_email}/"),
    ]
    return probes, {first_email}


def alternated(clients: tuple[InProcess, InProcess], path: str, repeat: int) -> tuple[float, ...]:
    """Median wall ms of `path` on each client, then median CPU ms of this process (the CPU moves
    far less with a shared machine's load), one request of each in turn, which goes first alternating."""
    wall: tuple[list[float], list[float]] = ([], [])
    cpu: tuple[list[float], list[float]] = ([], [])
    for number in range(repeat + 3):
        for side in (0, 1) if number % 2 else (1, 0):
            started, cpu_started = time.perf_counter(), time.process_time()
            status, body = clients[side].get(path)
            if number >= 3:  # the first rounds warm up
                wall[side].append((time.perf_counter() - started) * 1000)
                cpu[side].append((time.process_time() - cpu_started) * 1000)
            assert status == 200, (path, side, status, body[:200])
    return (*map(statistics.median, wall), *map(statistics.median, cpu))


def reads(urls: tuple[str, str], probes: list, repeat: int) -> list[tuple]:
    engines = [db.create_engine(url) for url in urls]
    for engine in engines:
        vacuum_analyze(engine)
    kept, removed = (
        InProcess(create_app(Settings(database_url=url, base_url=BASE, search_budget=0), engine=engine))
        for url, engine in zip(urls, engines, strict=True)
    )
    clients = (kept, removed)
    rows = [(kind, what, *alternated(clients, path, repeat)) for kind, what, path in probes]
    for client, engine in zip(clients, engines, strict=True):
        client.close()
        engine.dispose()
    return rows


# The table ---------------------------------------------------------------------------------------


def table(backend: str, args, ops: dict, sender: dict, read_rows: list) -> str:
    def median_p95(samples: list[tuple[float, float]]) -> str:
        wall = [ms for ms, _ in samples]
        cpu = statistics.median(ms for _, ms in samples)
        return f"{statistics.median(wall):.1f} / {percentile(wall, 95):.1f} (CPU {cpu:.1f})"

    idle, during = sender["latency"]["idle"], sender["latency"]["delete"]
    lines = [
        label(f"**archive_removal** ({backend}) — {args.messages} messages each way, {args.rounds} sender rounds"),
        "",
        "| measurement | figure | target |",
        "|---|---|---|",
        f"| hide one message, median / p95 ms ({len(ops[HIDE])} hides) | {median_p95(ops[HIDE])} | ≤ 20 |",
        f"| unhide it, median / p95 ms | {median_p95(ops[UNHIDE])} | — |",
        f"| delete one message, median / p95 ms ({len(ops[DELETE])}) | {median_p95(ops[DELETE])} | ≤ 20 |",
        "| one sender's 1,000 messages on 2 lists: delete, s (CPU s), each round | "
        + ", ".join(f"{wall:.2f} ({cpu:.2f})" for wall, cpu in sender["deletes"])
        + " | ≤ 2 |",
        "| planting them through the importer, s | " + ", ".join(f"{s:.2f}" for s in sender["plants"]) + " | — |",
        f"| reader ({args.connections} connection(s)), idle: requests, p50 / p99 / max ms "
        f"| {len(idle):,}, {percentile(idle, 50):.1f} / {percentile(idle, 99):.1f} / {idle[-1]:.1f} | — |",
        f"| reader during the deletes | {len(during):,}, {percentile(during, 50):.1f} / {percentile(during, 99):.1f} "
        f"/ {during[-1]:.1f} (p99 **{percentile(during, 99) / percentile(idle, 99):.2f}×** idle) | ≤ 2× |",
        "",
        f"Reads, nothing removed (kept) / 1 % hidden and 1 % deleted (removed), medians of {args.repeat} "
        "alternated requests, ms of wall time and of this process's CPU:",
        "",
        "| kind | read | kept | removed | ratio | kept CPU | removed CPU | CPU ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, what, *medians in read_rows:
        lines.append(f"| {kind} | {what} | {_compared(*medians)} |")
    for kind in ("read API", "search", "pages"):
        sums = [sum(row[2 + i] for row in read_rows if row[0] == kind) for i in range(4)]
        lines.append(f"| **{kind}, summed** | | {_compared(*sums)} |")
    return "\n".join(lines)


def _compared(kept: float, removed: float, kept_cpu: float, removed_cpu: float) -> str:
    return (
        f"{kept:.2f} | {removed:.2f} | **{removed / kept:.3f}** "
        f"| {kept_cpu:.2f} | {removed_cpu:.2f} | **{removed_cpu / kept_cpu:.3f}**"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--messages", type=int, default=220, help="messages hidden, and as many deleted")
    parser.add_argument("--rounds", type=int, default=5, help="sender deletes of 1,000 messages")
    parser.add_argument("--idle", type=float, default=2.0, help="seconds of the reader's idle window a round")
    parser.add_argument("--connections", type=int, default=1, help="the reader's connections")
    parser.add_argument("--repeat", type=int, default=50, help="alternated requests of each read")
    args = parser.parse_args()
    base = imported(args.database_url)
    backend = base.dialect.name
    probes, avoid = read_probes(base)
    base.dispose()
    kept, removed = copy_of(args.database_url, "kept"), copy_of(args.database_url, "removed")
    engine = db.create_engine(removed)
    ops = one_message(engine, args.messages, avoid)
    engine.dispose()
    read_rows = reads((kept, removed), probes, args.repeat)
    sender = sender_delete(kept, args.rounds, args.idle, args.connections)
    write_out(f"archive_removal_{backend}.md", table(backend, args, ops, sender, read_rows))


if __name__ == "__main__":
    main()
