"""Archive read API (interface B): SQL statements per request, for a small and a large answer.

    .venv/bin/python bench/archive_sql.py [DATABASE_URL]    # default: the corpus of bench/archive_import.py corpus

Runs the real app in-process (Starlette's TestClient) on an imported archive, read only, and counts
the statements the engine executes for each request (SQLAlchemy's before_cursor_execute;
transaction control left out, as tests/archive/store/test_reads.py does), on the smallest and the
largest thread, sender and list of the archive. Prints a markdown table; equal counts mean no N+1.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

warnings.simplefilter("ignore")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import sqlalchemy as sa  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from sathub.app import create_app  # noqa: E402
from sathub.archive.tables import emails, mailing_lists, senders, threads  # noqa: E402
from sathub.config import Settings  # noqa: E402
from sathub.db import create_engine  # noqa: E402

DEFAULT = f"sqlite:///{ROOT / 'bench' / 'out' / 'archive_import_corpus.db'}"


def extremes(conn) -> dict[str, dict]:
    """{'small': {...}, 'large': {...}}: a list, one of its threads, one of its emails and a sender."""
    per_list = (sa.select(mailing_lists.c.id, mailing_lists.c.name, sa.func.count().label("n"))
                .join(emails, emails.c.list_id == mailing_lists.c.id).group_by(mailing_lists.c.id, mailing_lists.c.name)
                .order_by("n"))
    lists = conn.execute(per_list).all()
    per_sender = (sa.select(senders.c.mailman_id, sa.func.count().label("n"))
                  .join(emails, emails.c.sender_id == senders.c.id).group_by(senders.c.mailman_id).order_by("n"))
    sender_rows = conn.execute(per_sender).all()
    cases = {}
    for label, list_row, sender in (("small", lists[0], sender_rows[0]), ("large", lists[-1], sender_rows[-1])):
        order = threads.c.emails_count if label == "small" else threads.c.emails_count.desc()
        thread = conn.execute(sa.select(threads.c.thread_id, threads.c.emails_count)
                              .where(threads.c.list_id == list_row.id).order_by(order).limit(1)).one()
        cases[label] = {"list": list_row.name, "list_emails": list_row.n, "thread": thread.thread_id,
                        "thread_emails": thread.emails_count, "email": thread.thread_id,
                        "sender": sender.mailman_id, "sender_emails": sender.n}
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
    url = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    engine = create_engine(url)
    with engine.connect() as conn:
        cases = extremes(conn)
    seen: list[str] | None = None

    @sa.event.listens_for(engine, "before_cursor_execute")
    def remember(conn, cursor, statement, parameters, context, executemany):
        if seen is not None and statement.split(None, 1)[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            seen.append(statement)

    app = create_app(Settings(database_url=url, base_url="http://x"), engine=engine)
    small, large = cases["small"], cases["large"]
    print(f"{url}: small = list {small['list']} ({small['list_emails']:,} emails), a thread of "
          f"{small['thread_emails']}, a sender of {small['sender_emails']}; large = list {large['list']} "
          f"({large['list_emails']:,} emails), a thread of {large['thread_emails']}, a sender of "
          f"{large['sender_emails']:,}\n")
    print("| request | statements, small | statements, large | equal |\n|---|---:|---:|:-:|")
    with TestClient(app) as client:
        for label, path in REQUESTS.items():
            counts = []
            for case in (small, large):
                client.get("/archive/api/" + path.format(**case))  # warm-up
                seen = []
                response = client.get("/archive/api/" + path.format(**case))
                assert response.status_code == 200, (path.format(**case), response.status_code)
                counts.append(len(seen))
                seen = None
            print(f"| {label} | {counts[0]} | {counts[1]} | {'yes' if counts[0] == counts[1] else '**NO**'} |")


if __name__ == "__main__":
    main()
