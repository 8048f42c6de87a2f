"""The generated archive of the archive benchmarks (bench/archive_read.py, bench/archive_live.py),
written straight into the tables (the importer is measured by bench/archive_import.py): ten lists
(one private), threads of geometric size (mean 5) spread over 20 years, Zipf-like senders, ids in
date order as in production. Every generated archive holds the same probes: a 300-email thread
(replies to random earlier messages) and, from 10,000 emails up, a sender with 1,000 emails
spread over nine public lists and 20 years (the worst case for locality)."""

from __future__ import annotations

import base64
import hashlib
import itertools
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlalchemy as sa

from bench.common import recreate_database, vacuum_analyze
from sathub import db
from sathub.archive.tables import emails, mailing_lists, senders, threads

PROBE_LIST = "list0@bench.example"
PROBE_SENDER = "probe-sender@bench.example"
PROBE_THREAD_SIZE = 300
PROBE_SENDER_EMAILS = 1000
EPOCH = datetime(2005, 1, 1)


def id_hash(message_id: str) -> str:
    return base64.b32encode(hashlib.sha1(message_id.encode()).digest()).decode()


def mailman_id(address: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, "mailto:" + address).hex


def fresh_database(url: str) -> sa.Engine:
    """An empty, migrated database at `url` (SQLite file deleted, PostgreSQL database recreated)."""
    recreate_database(url)
    engine = db.create_engine(url)
    db.upgrade(engine)
    return engine


@dataclass(slots=True)
class Mail:
    list_index: int
    thread: int
    date: datetime
    parent: int | None  # index into its thread's members
    sender: int
    id: int = 0


@dataclass(slots=True)
class Thread:
    list_index: int
    members: list[int] = field(default_factory=list)  # indexes into the mail list, in creation order


def generate(engine: sa.Engine, total: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    n_senders = max(50, total // 200)
    cumulative = list(itertools.accumulate(1 / (rank + 1) ** 0.9 for rank in range(n_senders)))
    sender_ids = range(n_senders)
    mails: list[Mail] = []
    thread_list: list[Thread] = []

    def add_thread(list_index: int, size: int, start: datetime) -> Thread:
        thread = Thread(list_index)
        thread_list.append(thread)
        date = start
        for position in range(size):
            parent = None if position == 0 else rng.randrange(max(0, position - 8), position)
            sender = rng.choices(sender_ids, cum_weights=cumulative)[0]
            thread.members.append(len(mails))
            mails.append(Mail(list_index, len(thread_list) - 1, date, parent, sender))
            date += timedelta(minutes=rng.randint(1, 600))
        return thread

    span_minutes = 20 * 365 * 24 * 60
    probe = add_thread(0, PROBE_THREAD_SIZE, EPOCH + timedelta(days=3650))
    while len(mails) < total:
        size = min(total - len(mails), min(100, int(rng.expovariate(1 / 5)) + 1))
        add_thread(rng.randrange(10), size, EPOCH + timedelta(minutes=rng.randrange(span_minutes)))
    if total >= 10 * PROBE_SENDER_EMAILS:  # the probe sender: 1,000 emails on public lists
        candidates = [i for i, m in enumerate(mails) if m.list_index != 9 and m.thread != 0]
        for index in rng.sample(candidates, PROBE_SENDER_EMAILS):
            mails[index].sender = n_senders
    # Arrival order is date order, as in a live archive.
    for new_id, index in enumerate(sorted(range(len(mails)), key=lambda i: (mails[i].date, i)), start=1):
        mails[index].id = new_id
    _write(engine, mails, thread_list, n_senders)
    print(
        f"generated {len(mails):,} emails in {len(thread_list):,} threads; probe thread "
        f"{id_hash(f'm{probe.members[0]}@bench.example')}",
        flush=True,
    )


def _preorder(thread: Thread, mails: list[Mail]) -> list[int]:
    children: dict[int, list[int]] = {}
    for position, index in enumerate(thread.members):
        if mails[index].parent is not None:
            children.setdefault(mails[index].parent, []).append(position)
    order, stack = [], [0]
    while stack:
        position = stack.pop()
        order.append(thread.members[position])
        kids = sorted(children.get(position, []), key=lambda p: mails[thread.members[p]].id)
        stack.extend(reversed(kids))
    return order


def _write(engine: sa.Engine, mails: list[Mail], thread_list: list[Thread], n_senders: int) -> None:
    created = datetime(2024, 1, 1)
    with engine.begin() as conn:
        conn.execute(
            mailing_lists.insert(),
            [
                {
                    "id": i + 1,
                    "name": f"list{i}@bench.example",
                    "archive_policy": "private" if i == 9 else "public",
                    "created_at": created,
                }
                for i in range(10)
            ],
        )
        addresses = [f"user{i}@bench.example" for i in range(n_senders)] + [PROBE_SENDER]
        conn.execute(
            senders.insert(),
            [{"id": i + 1, "address": a, "mailman_id": mailman_id(a)} for i, a in enumerate(addresses)],
        )
        thread_rows, email_rows = [], []
        for number, thread in enumerate(thread_list, start=1):
            order = _preorder(thread, mails)
            root = mails[thread.members[0]]
            last = max((mails[i] for i in thread.members), key=lambda m: m.id)
            thread_rows.append(
                {
                    "id": number,
                    "list_id": thread.list_index + 1,
                    "thread_id": id_hash(f"m{thread.members[0]}@bench.example"),
                    "starting_email_id": root.id,
                    "subject": f"Subject {number}",
                    "date_active": last.date,
                    "emails_count": len(thread.members),
                }
            )
            for position, index in enumerate(order):
                mail = mails[index]
                message_id = f"m{index}@bench.example"
                parent = None if mail.parent is None else thread.members[mail.parent]
                email_rows.append(
                    {
                        "id": mail.id,
                        "list_id": mail.list_index + 1,
                        "message_id": message_id,
                        "message_id_hash": id_hash(message_id),
                        "sender_id": mail.sender + 1,
                        "sender_address": addresses[mail.sender],
                        "sender_name": f"User {mail.sender}",
                        "subject": f"Re: Subject {number}" if parent else f"Subject {number}",
                        "content": "Some text of a message.\n" * 5,
                        "date": mail.date,
                        "archived_date": mail.date,
                        "in_reply_to": None if parent is None else f"m{parent}@bench.example",
                        "parent_id": None if parent is None else mails[parent].id,
                        "thread_id": number,
                        "thread_order": position,
                        "thread_depth": 0,
                    }
                )
            if len(email_rows) >= 20000:  # written in batches: a million rows of dicts would not fit
                conn.execute(threads.insert(), thread_rows)
                conn.execute(emails.insert(), email_rows)
                thread_rows, email_rows = [], []
        if email_rows:
            conn.execute(threads.insert(), thread_rows)
            conn.execute(emails.insert(), email_rows)
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:  # ids were written explicitly: later inserts take the next ones
            for table in ("attachments", "emails", "threads", "senders", "mailing_lists"):
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT coalesce(max(id), 0) + 1 FROM {table}), false)"
                )
        vacuum_analyze(engine)
    else:
        # One big transaction leaves a WAL as large as the database, which every read would
        # consult; a real import commits in batches and the WAL is checkpointed as it goes.
        with engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
            conn.commit()
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def probe_paths(engine: sa.Engine) -> dict[str, str]:
    with engine.connect() as conn:
        thread_id = conn.execute(sa.select(threads.c.thread_id).where(threads.c.id == 1)).scalar_one()
        has_probe_sender = conn.execute(
            sa.select(sa.func.count())
            .select_from(emails)
            .join(senders, senders.c.id == emails.c.sender_id)
            .where(senders.c.address == PROBE_SENDER)
        ).scalar_one()
    paths = {"thread": f"/archive/api/list/{PROBE_LIST}/thread/{thread_id}/emails/"}
    if has_probe_sender:
        paths["sender"] = f"/archive/api/sender/{mailman_id(PROBE_SENDER)}/emails/"
    return paths
