"""The archive's pages to browse and its feeds (issue 27), timed in-process through the real app.

    python -m bench.archive_pages --database-url URL [--repeat 50]

Target: any page within 20 ms of server time at the corpus's largest thread and busiest month.

Method (as bench/archive_read.py): the ASGI app of sathub.app.create_app is called directly in
this process (routing, SQL, templates, headers; no network, no HTTP server), one request at a
time; each path is warmed up, then timed `--repeat` times with perf_counter; the table gives the
median and the 95th percentile. When the database holds no mail, the corpus of shared/data/mail
is imported first with the real importer (every list, then edge/). The pages measured are those
of the corpus's extremes, found by SQL: the thread with the most emails, the (list, month) with
the most emails, the list with the most emails (overview, latest month, feeds)."""

from __future__ import annotations

import argparse
import statistics

import sqlalchemy as sa

from bench.archive_dataset import fresh_database
from bench.clients import InProcess
from bench.common import MAIL, database_exists, label, vacuum_analyze, write_out
from sathub import db
from sathub.app import create_app
from sathub.archive.tables import PRIVATE, emails, mailing_lists, threads
from sathub.config import Settings

TARGET_MS = 20.0


def imported(url: str) -> sa.Engine:
    """The database at `url`, with the corpus imported when it has no mail yet."""
    if database_exists(url):
        engine = db.create_engine(url)
        db.upgrade(engine)
        with engine.connect() as conn:
            if conn.execute(sa.select(emails.c.id).limit(1)).first() is not None:
                return engine
        engine.dispose()
    from sathub.archive.ingest.importer import import_archive

    engine = fresh_database(url)
    for path in sorted(MAIL.glob("*.mbox.gz")):
        print(import_archive(engine, path.name[: -len(".mbox.gz")], [path]).describe(), flush=True)
    print(import_archive(engine, "edge@example.com", [MAIL / "edge"]).describe(), flush=True)
    vacuum_analyze(engine)
    return engine


def extremes(engine: sa.Engine) -> dict:
    """The largest thread, the busiest (list, month) and the list with the most mail."""
    public = mailing_lists.c.archive_policy != PRIVATE
    year, month = sa.extract("year", emails.c.archived_date), sa.extract("month", emails.c.archived_date)
    with engine.connect() as conn:
        thread = conn.execute(
            sa.select(mailing_lists.c.name, threads.c.thread_id, threads.c.emails_count)
            .join(mailing_lists, mailing_lists.c.id == threads.c.list_id)
            .where(public)
            .order_by(threads.c.emails_count.desc(), threads.c.thread_id)
            .limit(1)
        ).one()
        busiest = conn.execute(
            sa.select(mailing_lists.c.name, year, month, sa.func.count())
            .select_from(emails)
            .join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
            .where(public)
            .group_by(mailing_lists.c.name, year, month)
            .order_by(sa.func.count().desc())
            .limit(1)
        ).one()
        biggest = conn.execute(
            sa.select(mailing_lists.c.name, sa.func.count())
            .select_from(emails)
            .join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
            .where(public)
            .group_by(mailing_lists.c.name)
            .order_by(sa.func.count().desc())
            .limit(1)
        ).one()
        first_email = conn.execute(
            sa.select(emails.c.message_id_hash)
            .join(threads, threads.c.id == emails.c.thread_id)
            .where(threads.c.thread_id == thread.thread_id)
            .order_by(emails.c.thread_order)
            .limit(1)
        ).scalar_one()
    return {
        "thread": (thread.name, thread.thread_id, thread.emails_count, first_email),
        "month": (busiest[0], int(busiest[1]), int(busiest[2]), busiest[3]),
        "list": (biggest[0], biggest[1]),
    }


def timed(client: InProcess, path: str, repeat: int) -> tuple[float, float, int]:
    samples, body = client.timed(path, repeat)
    return statistics.median(samples), samples[int(len(samples) * 0.95)], len(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    engine = imported(args.database_url)
    found = extremes(engine)
    settings = Settings(database_url=args.database_url, base_url="http://bench.example")
    client = InProcess(create_app(settings, engine=engine))
    list_name, thread_id, thread_size, first_email = found["thread"]
    month_list, year, month, month_count = found["month"]
    big_list, big_count = found["list"]
    probes = [
        ("index of lists", "/archive/"),
        (f"overview of the biggest list ({big_count:,} emails)", f"/archive/list/{big_list}/"),
        (f"busiest month ({month_count:,} emails)", f"/archive/list/{month_list}/{year:04d}/{month:02d}/"),
        ("latest month of the biggest list", f"/archive/list/{big_list}/latest"),
        (f"largest thread ({thread_size:,} emails)", f"/archive/list/{list_name}/thread/{thread_id}/"),
        ("a message of that thread", f"/archive/list/{list_name}/message/{first_email}/"),
        ("RSS of the biggest list (30 items)", f"/archive/list/{big_list}/feed/"),
        ("Atom of the biggest list, ?limit=200", f"/archive/list/{big_list}/feed/atom/?limit=200"),
        ("Atom of the largest thread", f"/archive/list/{list_name}/thread/{thread_id}/feed/atom/"),
    ]
    lines = [
        label(f"**archive_pages** ({engine.dialect.name}) — the app called in-process, one request at a time"),
        "",
        "| page | path | bytes | median ms | p95 ms | within 20 ms |",
        "|---|---|---:|---:|---:|---|",
    ]
    for what, path in probes:
        median, p95, size = timed(client, path, args.repeat)
        verdict = "yes" if median <= TARGET_MS else "**no**"
        lines.append(f"| {what} | `{path}` | {size:,} | {median:.2f} | {p95:.2f} | {verdict} |")
    write_out(f"archive_pages_{engine.dialect.name}.md", "\n".join(lines))
    client.close()
    engine.dispose()


if __name__ == "__main__":
    main()
