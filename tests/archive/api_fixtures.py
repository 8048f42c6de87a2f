"""A small hand-built archive for the read API tests, inserted straight into the tables of tables.py.

Lists: dev@example.org (public), other@example.org (public, one cross-post), private@example.org
(private), quiet@example.org (archive_policy "never", no mail). X is A cross-posted to other.
In dev:
- "Welcome" thread: A (alice) ← B (bob), A ← C (zoë, dated before B), B ← D (alice), in thread
  order A, C, B, D and arrival order A, B, C, D;
- "Report" thread: E (bob), one email with two attachments;
- "Tie one" / "Tie two": F and G, equal date_active (the next/prev tie rule);
- "Late" thread: H, newest.
Ids and hashes follow archive-api.md (computed here independently of the importer)."""

from __future__ import annotations

import base64
import hashlib
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa

from sathub.archive.tables import attachments, emails, mailing_lists, senders, threads

BASE = "http://sathub.test"


def message_id_hash(message_id: str) -> str:
    return base64.b32encode(hashlib.sha1(message_id.encode()).digest()).decode()


def mailman_id(address: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, "mailto:" + address.lower()).hex


@dataclass(frozen=True)
class Mail:
    key: str
    list_name: str
    sender: str
    sender_name: str
    subject: str
    date: datetime
    parent: str | None = None
    content: str = "Hello.\n"
    copy_of: str | None = None  # the same message posted to another list

    @property
    def message_id(self) -> str:
        return MAIL[self.copy_of].message_id if self.copy_of else f"{self.key.lower()}-msg@example.org"

    @property
    def hash(self) -> str:
        return message_id_hash(self.message_id)


def d(day: str) -> datetime:
    return datetime.fromisoformat(day)


LISTS = ["dev@example.org", "other@example.org", "private@example.org", "quiet@example.org"]
POLICY = {"private@example.org": "private", "quiet@example.org": "never"}
SENDERS = ["alice@example.org", "bob@example.net", "zoe@example.com"]

# Arrival order (emails.id) is the order of this tuple; thread membership and order are below.
MAILS = (
    Mail("A", "dev@example.org", "alice@example.org", "Alice Liddell", "[dev] Welcome", d("2021-01-01 10:00:00")),
    Mail(
        "B",
        "dev@example.org",
        "bob@example.net",
        "bob@example.net",
        "Re: [dev] Welcome",
        d("2021-01-02 09:00:00"),
        parent="A",
    ),
    Mail(
        "C",
        "dev@example.org",
        "zoe@example.com",
        "Zoë Ünïcode",
        "Re: [dev] Welcome",
        d("2021-01-01 12:00:00"),
        parent="A",
        content="Grüße — ça va ?\n",
    ),
    Mail(
        "D",
        "dev@example.org",
        "alice@example.org",
        "Alice Liddell",
        "Re: [dev] Welcome",
        d("2021-01-03 08:30:00"),
        parent="B",
    ),
    Mail(
        "E",
        "dev@example.org",
        "bob@example.net",
        "Bob",
        "[dev] Report",
        d("2021-02-01 00:00:00"),
        content="See attached.\n",
    ),
    Mail("F", "dev@example.org", "alice@example.org", "Alice Liddell", "[dev] Tie one", d("2021-03-01 00:00:00")),
    Mail("G", "dev@example.org", "bob@example.net", "Bob", "[dev] Tie two", d("2021-03-01 00:00:00")),
    Mail("H", "dev@example.org", "zoe@example.com", "Zoë Ünïcode", "[dev] Late", d("2021-04-01 00:00:00")),
    Mail("P", "private@example.org", "alice@example.org", "Alice Liddell", "Secret", d("2021-05-01 00:00:00")),
    Mail(
        "X",
        "other@example.org",
        "alice@example.org",
        "Alice Liddell",
        "[dev] Welcome",
        d("2021-01-01 10:00:00"),
        copy_of="A",
    ),
)
# Thread roots and the thread order of their members.
THREADS = {"A": ["A", "C", "B", "D"], "E": ["E"], "F": ["F"], "G": ["G"], "H": ["H"], "P": ["P"], "X": ["X"]}
DEPTH = {"B": 1, "C": 1, "D": 2}
ATTACHMENTS = [  # on E
    {
        "counter": 2,
        "name": "report.html",
        "content_type": "text/html",
        "encoding": "gb2312",
        "content": "<p>报告</p>".encode("gb2312"),
    },
    {
        "counter": 3,
        "name": "signature.asc",
        "content_type": "application/pgp-signature",
        "encoding": None,
        "content": b"-----BEGIN PGP SIGNATURE-----\n",
    },
]
MAIL = {m.key: m for m in MAILS}
CREATED = d("2020-06-01 12:00:00")


def seed_archive(engine) -> dict[str, int]:
    """Insert the archive above; returns the emails.id of each mail key."""
    with engine.begin() as conn:
        list_ids = {
            name: conn.execute(
                mailing_lists.insert().values(
                    name=name,
                    display_name="",
                    description=None,
                    subject_prefix="",
                    archive_policy=POLICY.get(name, "public"),
                    created_at=CREATED,
                )
            ).inserted_primary_key[0]
            for name in LISTS
        }
        sender_ids = {
            address: conn.execute(
                senders.insert().values(address=address, mailman_id=mailman_id(address))
            ).inserted_primary_key[0]
            for address in SENDERS
        }
        ids: dict[str, int] = {}
        for mail in MAILS:
            ids[mail.key] = conn.execute(
                emails.insert().values(
                    list_id=list_ids[mail.list_name],
                    message_id=mail.message_id,
                    message_id_hash=mail.hash,
                    sender_id=sender_ids[mail.sender],
                    sender_address=mail.sender,
                    sender_name=mail.sender_name,
                    subject=mail.subject,
                    content=mail.content,
                    date=mail.date,
                    archived_date=mail.date,
                    in_reply_to=MAIL[mail.parent].message_id if mail.parent else None,
                    parent_id=ids[mail.parent] if mail.parent else None,
                    thread_depth=DEPTH.get(mail.key, 0),
                )
            ).inserted_primary_key[0]
        for root, members in THREADS.items():
            last_arrival = max(members, key=lambda key: ids[key])
            thread_pk = conn.execute(
                threads.insert().values(
                    list_id=list_ids[MAIL[root].list_name],
                    thread_id=MAIL[root].hash,
                    starting_email_id=ids[root],
                    subject=MAIL[root].subject,
                    date_active=MAIL[last_arrival].date,
                    emails_count=len(members),
                )
            ).inserted_primary_key[0]
            for order, key in enumerate(members):
                conn.execute(
                    emails.update().where(emails.c.id == ids[key]).values(thread_id=thread_pk, thread_order=order)
                )
        for attachment in ATTACHMENTS:
            conn.execute(attachments.insert().values(email_id=ids["E"], size=len(attachment["content"]), **attachment))
    return ids


def api(path: str = "", prefix: str = "/archive/api/") -> str:
    """Absolute link as the API writes it under the test base URL."""
    return f"{BASE}{prefix}{path}"


def email_link(key: str, suffix: str = "", prefix: str = "/archive/api/") -> str:
    mail = MAIL[key]
    return api(f"list/{mail.list_name}/email/{mail.hash}/{suffix}", prefix)


def thread_link(root: str, suffix: str = "", prefix: str = "/archive/api/") -> str:
    mail = MAIL[root]
    return api(f"list/{mail.list_name}/thread/{mail.hash}/{suffix}", prefix)


def count_statements(engine):
    """A list that collects the SQL queries the engine runs while attached (transaction control,
    such as the BEGIN of sathub's SQLite engine, left out), and the function that detaches it."""
    statements: list[str] = []

    def collect(conn, cursor, statement, parameters, context, executemany):
        if statement.split(None, 1)[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            statements.append(statement)

    sa.event.listen(engine, "before_cursor_execute", collect)
    return statements, lambda: sa.event.remove(engine, "before_cursor_execute", collect)


def seed_big_list(engine, replies: int) -> dict[str, str]:
    """big@example.org: one thread of 1 + `replies` emails (each answering the previous one or the
    root), all by busy@example.org, plus `replies` one-email threads by the same sender.

    Returns the root's hash and the sender's mailman_id. Rows are shaped as the importer writes them."""
    name, address = "big@example.org", "busy@example.org"
    with engine.begin() as conn:
        list_id = conn.execute(
            mailing_lists.insert().values(name=name, archive_policy="public", created_at=CREATED)
        ).inserted_primary_key[0]
        sender_id = conn.execute(
            senders.insert().values(address=address, mailman_id=mailman_id(address))
        ).inserted_primary_key[0]
        root_hash = message_id_hash("root-big@example.org")
        thread_pk = conn.execute(
            threads.insert().values(
                list_id=list_id,
                thread_id=root_hash,
                subject="Big",
                date_active=d("2022-01-01"),
                emails_count=replies + 1,
            )
        ).inserted_primary_key[0]
        ids: list[int] = []
        for n in range(replies + 1):
            message_id = "root-big@example.org" if n == 0 else f"reply-{n}-big@example.org"
            parent = None if n == 0 else ids[(n - 1) if n % 3 else 0]
            ids.append(
                conn.execute(
                    emails.insert().values(
                        list_id=list_id,
                        message_id=message_id,
                        message_id_hash=message_id_hash(message_id),
                        sender_id=sender_id,
                        sender_address=address,
                        sender_name="Busy",
                        subject="Big",
                        content="text\n",
                        date=datetime(2021, 1, 1) + timedelta(minutes=n),
                        archived_date=datetime(2021, 1, 1) + timedelta(minutes=n),
                        parent_id=parent,
                        thread_id=thread_pk,
                        thread_order=n,
                    )
                ).inserted_primary_key[0]
            )
        for n in range(replies):
            message_id = f"single-{n}-big@example.org"
            date = datetime(2020, 1, 1) + timedelta(hours=n)
            single = conn.execute(
                threads.insert().values(
                    list_id=list_id,
                    thread_id=message_id_hash(message_id),
                    subject="Single",
                    date_active=date,
                    emails_count=1,
                )
            ).inserted_primary_key[0]
            conn.execute(
                emails.insert().values(
                    list_id=list_id,
                    message_id=message_id,
                    message_id_hash=message_id_hash(message_id),
                    sender_id=sender_id,
                    sender_address=address,
                    sender_name="Busy",
                    subject="Single",
                    content="text\n",
                    date=date,
                    archived_date=date,
                    thread_id=single,
                    thread_order=0,
                )
            )
    return {"root": root_hash, "sender": mailman_id(address)}


# What the API tests name often: the main list, two of its threads' roots, a sender, an error body.
DEV = "dev@example.org"
A, E = MAIL["A"].hash, MAIL["E"].hash
ALICE = mailman_id("alice@example.org")
FORBIDDEN = '{"detail":"You do not have permission to perform this action."}'


def assert_api_headers(response, content_type="application/json"):
    assert response.headers["allow"] == "GET, HEAD, OPTIONS"
    assert response.headers["content-type"] == content_type
    assert response.headers["vary"] == "Accept"
    assert response.headers["x-content-type-options"] == "nosniff"  # a browser never reads it as another type


@contextmanager
def pooled_connections(engine):
    """A list that records, at each checkout from the engine's pool while attached, how many of its
    connections were then out at once."""
    held, counts = 0, []

    def checkout(*_):
        nonlocal held
        held += 1
        counts.append(held)

    def checkin(*_):
        nonlocal held
        held -= 1

    sa.event.listen(engine, "checkout", checkout)
    sa.event.listen(engine, "checkin", checkin)
    try:
        yield counts
    finally:
        sa.event.remove(engine, "checkout", checkout)
        sa.event.remove(engine, "checkin", checkin)
