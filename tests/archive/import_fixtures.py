"""Small archives written for each import test, and the helpers that run and read them back."""

import sqlalchemy as sa

from sathub.archive.ingest.importer import import_archive
from sathub.archive.mail.ids import message_id_hash
from sathub.archive.tables import emails, threads
from tests.archive.messages import raw_message

LIST = "dev@lists.example.org"


def message(
    key: str,
    *,
    reply_to: str | None = None,
    date: str = "Mon, 06 Jan 2020 10:00:00 +0000",
    sender: str = "alice@example.com",
    subject: str | None = None,
    body: str = "hello\n",
) -> str:
    """One message of an mbox, `<key@example.org>` (a reply to `<reply_to@example.org>`)."""
    return raw_message(
        f"{key}@example.org",
        sender=sender,
        subject=key if subject is None else subject,
        reply_to=reply_to and f"{reply_to}@example.org",
        date=date,
        body=body + "\n",
        envelope=f"From {sender} Mon Jan  6 10:00:00 2020",
    ).decode()


def archive(tmp_path, name: str, *messages: str):
    path = tmp_path / name
    path.write_text("".join(messages))
    return path


def run(engine, *paths, list_name=LIST, **options):
    return import_archive(engine, list_name, list(paths), **options)


def rows(engine, query):
    with engine.connect() as conn:
        return conn.execute(query).all()


def day(n: int) -> str:
    return f"Mon, {n:02d} Jan 2020 10:00:00 +0000"


def thread_of(engine, key: str) -> str:
    return rows(
        engine,
        sa.select(threads.c.thread_id)
        .join(emails, emails.c.thread_id == threads.c.id)
        .where(emails.c.message_id == f"{key}@example.org"),
    )[0][0]


def h(key: str) -> str:
    return message_id_hash(f"{key}@example.org")
