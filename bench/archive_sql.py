"""Archive read API (interface B): SQL statements per request, for a small and a large answer.

    python -m bench.archive_sql [DATABASE_URL]    # default: the corpus of `python -m bench.archive_import corpus`

Runs the real app in-process (the ASGI app called directly) on an imported archive, read only, and counts
the statements the engine executes for each request (SQLAlchemy's before_cursor_execute;
transaction control left out, as tests/archive/api_fixtures.py's count_statements does), on the smallest and the
largest thread, sender and list of the archive. Prints a markdown table; equal counts mean no N+1.
Writes bench/out/archive_sql_<backend>.md.
"""

from __future__ import annotations

import argparse

import sqlalchemy as sa

from bench.clients import InProcess
from bench.common import OUT, backend_of, label, write_out
from sathub.app import create_app
from sathub.archive.tables import emails, mailing_lists, senders, threads
from sathub.config import Settings
from sathub.db import create_engine

DEFAULT = f"sqlite:///{OUT / 'archive_import_corpus.db'}"


def extremes(conn) -> dict[str, dict]:
    """{'small': {...}, 'large': {...}}: a list, one of its threads, one of its emails and a sender."""
    per_list = (
        sa.select(mailing_lists.c.id, mailing_lists.c.name, sa.func.count().label("n"))
        .join(emails, emails.c.list_id == mailing_lists.c.id)
        .group_by(mailing_lists.c.id, mailing_lists.c.name)
        .order_by("n")
    )
    lists = conn.execute(per_list).all()
    per_sender = (
        sa.select(senders.c.mailman_id, sa.func.count().label("n"))
        .join(emails, emails.c.sender_id == senders.c.id)
        .group_by(senders.c.mailman_id)
        .order_by("n")
    )
    sender_rows = conn.execute(per_sender).all()
    cases = {}
    for size, list_row, sender in (("small", lists[0], sender_rows[0]), ("large", lists[-1], sender_rows[-1])):
        order = threads.c.emails_count if size == "small" else threads.c.emails_count.desc()
        thread = conn.execute(
            sa.select(threads.c.thread_id, threads.c.emails_count)
            .where(threads.c.list_id == list_row.id)
            .order_by(order)
            .limit(1)
        ).one()
        cases[size] = {
            "list": list_row.name,
            "list_emails": list_row.n,
            "thread": thread.thread_id,
            "thread_emails": thread.emails_count,
            "email": thread.thread_id,
            "sender": sender.mailman_id,
            "sender_emails": sender.n,
        }
    return cases


REQUESTS = {  # label → path under /archive/api/
    "thread emails": "list/{list}/thread/{thread}/emails/",
    "thread emails, limit": "list/{list}/thread/{thread}/emails/?limit=20",
    "thread detail": "list/{list}/thread/{thread}/",
    "threads": "list/{list}/threads/",
    "threads, limit": "list/{list}/threads/?limit=20",
    "list emails": "list/{list}/emails/",
    "list emails, limit": "list/{list}/emails/?limit=20",
    "sender emails": "sender/{sender}/emails/",
    "sender emails, limit": "sender/{sender}/emails/?limit=20",
    "email detail": "list/{list}/email/{email}/",
    "lists": "lists/",
    "lists, limit": "lists/?limit=1",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database_url", nargs="?", default=DEFAULT)
    url = parser.parse_args().database_url
    engine = create_engine(url)
    with engine.connect() as conn:
        cases = extremes(conn)
    seen: list[str] | None = None

    @sa.event.listens_for(engine, "before_cursor_execute")
    def remember(conn, cursor, statement, parameters, context, executemany):
        if seen is not None and statement.split(None, 1)[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            seen.append(statement)

    client = InProcess(create_app(Settings(database_url=url, base_url="http://x"), engine=engine))
    small, large = cases["small"], cases["large"]
    lines = [
        label(
            f"**archive_sql, {backend_of(url)}** — statements per request; small = list {small['list']} "
            f"({small['list_emails']:,} emails), a thread of {small['thread_emails']}, a sender of "
            f"{small['sender_emails']}; large = list {large['list']} ({large['list_emails']:,} emails), a "
            f"thread of {large['thread_emails']}, a sender of {large['sender_emails']:,}"
        ),
        "",
        "| request | statements, small | statements, large | equal |",
        "|---|---:|---:|:-:|",
    ]
    for name, path in REQUESTS.items():
        counts = []
        for case in (small, large):
            client.get("/archive/api/" + path.format(**case))  # warm-up
            seen = []
            status, _ = client.get("/archive/api/" + path.format(**case))
            assert status == 200, (path.format(**case), status)
            counts.append(len(seen))
            seen = None
        lines.append(f"| {name} | {counts[0]} | {counts[1]} | {'yes' if counts[0] == counts[1] else '**NO**'} |")
    write_out(f"archive_sql_{backend_of(url)}.md", "\n".join(lines))


if __name__ == "__main__":
    main()
