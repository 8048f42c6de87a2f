"""Archive read API latency (interface B), measured in-process through the real app.

    python -m bench.archive_read real       [--database-url URL]   # the corpus of shared/data/mail
    python -m bench.archive_read generated  --emails 100000 [--database-url URL] [--keep]
    python -m bench.archive_read scale      [--database-url-small URL --database-url-large URL]
    python -m bench.archive_read existing   --database-url URL   # any imported archive, untouched

Method: the ASGI app built by sathub.app.create_app is called directly in this process (routing,
SQL, serialization, headers; no network, no HTTP server, no test client), one request at a time;
each path is warmed up, then timed REPEAT times with perf_counter; the table gives median and 95th
percentile. This is the server's own time, which the read targets were set for.

`real` imports the corpus with the real importer into a fresh database; `existing` measures an
archive already imported (e.g. the 1,000,000-message one of bench/archive_import.py) without
writing to it; both time the biggest thread, the sender closest to 1,000 emails, the busiest
sender, the first and last pages of the biggest list. `generated` measures the probes and pages
of bench/archive_dataset.py's generated archive of N emails. `scale` builds a 1,000- and a
1,000,000-email archive and compares the probe thread's latency (target: the large one within
1.5x of the small one).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import sqlalchemy as sa

from bench.archive_dataset import PROBE_LIST, fresh_database, generate, probe_paths
from bench.clients import InProcess
from bench.common import MAIL, OUT, database_exists, label, vacuum_analyze, write_out
from sathub import db
from sathub.app import create_app
from sathub.archive.tables import emails, mailing_lists, senders, threads
from sathub.config import Settings

# Measuring ---------------------------------------------------------------------------------------

SQLITE_PRAGMAS: list[str] = []  # --sqlite-pragma: tuning to compare with the default engine


def client_for(engine: sa.Engine, url: str) -> InProcess:
    if SQLITE_PRAGMAS and engine.dialect.name == "sqlite":
        engine.dispose()

        @sa.event.listens_for(engine, "connect")
        def tune(dbapi_connection, _record):
            for pragma in SQLITE_PRAGMAS:
                dbapi_connection.execute(f"PRAGMA {pragma}")

    return InProcess(create_app(Settings(database_url=url, base_url="http://bench.example"), engine=engine))


def timed(client: InProcess, path: str, repeat: int) -> dict:
    samples, body = client.timed(path, repeat)
    data = json.loads(body)
    if isinstance(data, dict):
        data = data.get("results", [data])  # a page of results, or one object
    items = len(data)
    return {
        "path": path,
        "items": items,
        "bytes": len(body),
        "median_ms": round(statistics.median(samples), 2),
        "p95_ms": round(samples[int(len(samples) * 0.95)], 2),
    }


def report(title: str, rows: list[dict], name: str) -> None:
    lines = [
        label(f"**archive_read, {title}** — the app called in-process, one request at a time"),
        "",
        "| request | items | bytes | median ms | p95 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| `{row['path']}` | {row['items']:,} | {row['bytes']:,} | {row['median_ms']} | {row['p95_ms']} |"
        for row in rows
    ]
    write_out(f"archive_read_{name}.md", "\n".join(lines))


def run_generated(url: str, total: int, repeat: int, keep: bool) -> list[dict]:
    engine = db.create_engine(url)
    if not keep or not database_exists(url) or not sa.inspect(engine).has_table("emails") or not _count(engine):
        engine.dispose()
        engine = fresh_database(url)
        started = time.monotonic()
        generate(engine, total)
        print(f"written in {time.monotonic() - started:.0f} s", flush=True)
    client = client_for(engine, url)
    paths = probe_paths(engine)
    rows = [timed(client, paths["thread"], repeat), timed(client, paths["thread"].replace("/emails/", "/"), repeat)]
    if "sender" in paths:
        rows += [
            timed(client, paths["sender"], repeat),
            timed(client, paths["sender"] + "?limit=20&offset=500", repeat),
        ]
    rows += [
        timed(client, f"/archive/api/list/{PROBE_LIST}/threads/?limit=20", repeat),
        timed(client, f"/archive/api/list/{PROBE_LIST}/emails/?limit=20", repeat),
    ]
    count = _count(engine)
    with engine.connect() as conn:  # the last pages of the probe list
        in_list = (
            sa.select(sa.func.count(threads.c.id), sa.func.sum(threads.c.emails_count))
            .join(mailing_lists, mailing_lists.c.id == threads.c.list_id)
            .where(mailing_lists.c.name == PROBE_LIST)
        )
        list_threads, list_emails = conn.execute(in_list).one()
    fewer = max(10, repeat // 5)
    rows.append(timed(client, f"/archive/api/list/{PROBE_LIST}/emails/?limit=20&offset={list_emails - 20}", fewer))
    rows.append(timed(client, f"/archive/api/list/{PROBE_LIST}/threads/?limit=20&offset={list_threads - 20}", fewer))
    tuning = f", PRAGMA {', '.join(SQLITE_PRAGMAS)}" if SQLITE_PRAGMAS and engine.dialect.name == "sqlite" else ""
    report(
        f"generated archive, {count:,} emails ({engine.dialect.name}{tuning})",
        rows,
        f"generated_{count}_{engine.dialect.name}{'_tuned' if tuning else ''}",
    )
    return rows


def compare_thread(small_url: str, large_url: str, repeat: int, rounds: int = 10) -> None:
    """The probe thread on both archives, timed in alternating rounds so that the load of a
    shared machine weighs on both alike."""
    clients, paths, samples = [], [], ([], [])
    for url in (small_url, large_url):
        engine = db.create_engine(url)
        clients.append(client_for(engine, url))
        paths.append(probe_paths(engine)["thread"])
    for _ in range(rounds):
        for side in (0, 1):
            for _ in range(max(1, repeat // rounds)):
                started = time.perf_counter()
                clients[side].get(paths[side])
                samples[side].append((time.perf_counter() - started) * 1000)
    small, large = (statistics.median(side) for side in samples)
    write_out(
        "archive_read_scale.md",
        label(
            f"**archive_read scale** — probe thread (300 emails), alternating rounds: {small:.2f} ms median on 1,000 "
            f"emails, {large:.2f} ms on 1,000,000 emails: ratio {large / small:.2f} (target <= 1.5)"
        ),
    )


def _count(engine: sa.Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(emails)).scalar_one()


def run_real(url: str, repeat: int) -> None:
    from sathub.archive.ingest.importer import import_archive

    engine = fresh_database(url)
    for path in sorted(MAIL.glob("*.mbox.gz")):
        print(import_archive(engine, path.name[: -len(".mbox.gz")], [path]).describe(), flush=True)
    print(import_archive(engine, "edge@example.com", [MAIL / "edge"]).describe(), flush=True)
    vacuum_analyze(engine)
    measure_archive(engine, url, repeat, f"the real corpus ({engine.dialect.name})", f"real_{engine.dialect.name}")


def measure_archive(engine: sa.Engine, url: str, repeat: int, title: str, name: str) -> None:
    """Any imported archive: its biggest thread, the sender closest to 1,000 emails and the
    busiest one, first and last pages of its biggest list, everything of its second list."""
    with engine.connect() as conn:
        biggest = conn.execute(
            sa.select(mailing_lists.c.name, threads.c.thread_id)
            .join(mailing_lists, mailing_lists.c.id == threads.c.list_id)
            .order_by(threads.c.emails_count.desc())
            .limit(1)
        ).one()
        per_sender = (
            sa.select(senders.c.mailman_id, sa.func.count().label("n"))
            .join(emails, emails.c.sender_id == senders.c.id)
            .group_by(senders.c.mailman_id)
            .subquery()
        )
        near_1000 = conn.execute(
            sa.select(per_sender.c.mailman_id).order_by(sa.func.abs(per_sender.c.n - 1000)).limit(1)
        ).scalar_one()
        busiest, busiest_count = conn.execute(
            sa.select(per_sender.c.mailman_id, per_sender.c.n).order_by(per_sender.c.n.desc()).limit(1)
        ).one()
        per_list = conn.execute(
            sa.select(
                mailing_lists.c.name,
                sa.func.count(threads.c.id).label("threads"),
                sa.func.sum(threads.c.emails_count).label("emails"),
            )
            .join(threads, threads.c.list_id == mailing_lists.c.id)
            .group_by(mailing_lists.c.name)
            .order_by(sa.desc("emails"))
        ).all()
    big = per_list[0]
    client = client_for(engine, url)
    rows = [
        timed(client, f"/archive/api/list/{biggest.name}/thread/{biggest.thread_id}/emails/", repeat),
        timed(client, f"/archive/api/list/{biggest.name}/thread/{biggest.thread_id}/", repeat),
        timed(client, f"/archive/api/sender/{near_1000}/emails/", repeat),
        timed(client, f"/archive/api/sender/{busiest}/emails/", max(10, repeat // 5)),
        timed(client, f"/archive/api/sender/{busiest}/emails/?limit=20&offset={busiest_count - 20}", repeat),
        timed(client, f"/archive/api/list/{big.name}/threads/?limit=20", repeat),
        timed(client, f"/archive/api/list/{big.name}/threads/?limit=20&offset={big.threads - 20}", repeat),
        timed(client, f"/archive/api/list/{big.name}/emails/?limit=20", repeat),
        timed(client, f"/archive/api/list/{big.name}/emails/?limit=20&offset={big.emails - 20}", max(10, repeat // 5)),
    ]
    if len(per_list) > 1:
        second = per_list[1].name
        rows += [
            timed(client, f"/archive/api/list/{second}/threads/", max(10, repeat // 10)),
            timed(client, f"/archive/api/list/{second}/emails/", max(10, repeat // 10)),
        ]
    rows.append(timed(client, "/archive/api/lists/", repeat))
    report(title, rows, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["real", "generated", "scale", "existing"])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--database-url-small", default=f"sqlite:///{OUT}/archive_1k.db")
    parser.add_argument("--database-url-large", default=f"sqlite:///{OUT}/archive_1m.db")
    parser.add_argument("--emails", type=int, default=100_000, help="size of the generated archive")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--keep", action="store_true", help="reuse a generated database that already has emails")
    parser.add_argument(
        "--sqlite-pragma",
        action="append",
        default=[],
        help="e.g. mmap_size=268435456, applied to each SQLite connection of the app",
    )
    args = parser.parse_args()
    SQLITE_PRAGMAS.extend(args.sqlite_pragma)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.mode == "real":
        run_real(args.database_url or f"sqlite:///{OUT}/archive_real.db", args.repeat)
    elif args.mode == "existing":
        engine = db.create_engine(args.database_url)
        measure_archive(
            engine,
            args.database_url,
            args.repeat,
            f"{engine.url.database.rsplit('/', 1)[-1]} ({engine.dialect.name})",
            f"existing_{engine.dialect.name}",
        )
    elif args.mode == "generated":
        run_generated(
            args.database_url or f"sqlite:///{OUT}/archive_{args.emails}.db", args.emails, args.repeat, args.keep
        )
    else:
        run_generated(args.database_url_small, 1000, args.repeat, args.keep)
        run_generated(args.database_url_large, 1_000_000, args.repeat, args.keep)
        compare_thread(args.database_url_small, args.database_url_large, args.repeat)


if __name__ == "__main__":
    main()
