"""The SQL of threads: a list's (newest activity first), one thread, its neighbours and
participants, the most active of a period. Every function takes a Connection and costs one
statement, each filter and order served by an index of tables.py (keeping threads right while
emails arrive: rethreading.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import COUNT, Listing, Page, param
from sathub.archive.tables import emails, threads

# A thread as the pages list it; the API's rows add threads.id.
SUMMARY_COLUMNS = (threads.c.thread_id, threads.c.subject, threads.c.date_active, threads.c.emails_count)
_THREAD_COLUMNS = (threads.c.id, *SUMMARY_COLUMNS)
_LIST_ID = param("list_id", sa.Integer)
# Most recently active first; equal date_active by thread id (index threads_list_recent, no sort).
_LIST_THREADS = Listing(
    sa.select(*_THREAD_COLUMNS),
    (threads.c.list_id == _LIST_ID,),
    (threads.c.date_active.desc(), threads.c.thread_id),
    key=(threads, threads),
)
_COUNT_THREADS = sa.select(COUNT).select_from(threads).where(threads.c.list_id == _LIST_ID)
_FIND_THREAD = sa.select(*_THREAD_COLUMNS).where(
    threads.c.list_id == _LIST_ID, threads.c.thread_id == param("thread_id")
)


def _first_thread(kind: str, condition, date_order) -> sa.Select:
    part = (
        sa.select(sa.literal(kind).label("kind"), threads.c.thread_id)
        .where(threads.c.list_id == _LIST_ID, condition)
        .order_by(date_order, threads.c.thread_id)
        .limit(1)
        .subquery()
    )
    return sa.select(part.c.kind, part.c.thread_id)


_NEWEST, _OLDEST = param("newest", sa.DateTime), param("oldest", sa.DateTime)
_NEIGHBOURS = sa.union_all(
    _first_thread("newer", threads.c.date_active > _NEWEST, threads.c.date_active),
    _first_thread("newest_first", threads.c.date_active == _NEWEST, threads.c.date_active),
    _first_thread("older", threads.c.date_active < _OLDEST, threads.c.date_active.desc()),
)
# The address as each email spells it: two spellings of one sender are two participants, as in HyperKitty.
_PARTICIPANTS = (
    sa.select(emails.c.sender_address.label("address"), emails.c.sender_name)
    .where(emails.c.thread_id == param("thread_pk", sa.Integer))
    .group_by(emails.c.sender_address, emails.c.sender_name)
    .order_by(sa.func.min(emails.c.id))
)


def list_threads(conn: Connection, list_id: int, page: Page | None) -> Sequence[Row]:
    return _LIST_THREADS.all(conn, page, list_id=list_id)


def count_threads(conn: Connection, list_id: int) -> int:
    return conn.execute(_COUNT_THREADS, {"list_id": list_id}).scalar_one()


def find_thread(conn: Connection, list_id: int, thread_hash: str) -> Row | None:
    return conn.execute(_FIND_THREAD, {"list_id": list_id, "thread_id": thread_hash}).first()


def thread_neighbours(conn: Connection, list_id: int, newest, oldest) -> dict[str, str]:
    """Thread ids around a run of threads whose `date_active` spans oldest … newest, in one statement.

    Keys: `newer` — the thread with the smallest date_active above `newest`; `newest_first` — the
    first thread (by id) dated exactly `newest`; `older` — the thread with the greatest date_active
    below `oldest`. Ties among candidates go to the smallest thread id, as in the list order."""
    rows = conn.execute(_NEIGHBOURS, {"list_id": list_id, "newest": newest, "oldest": oldest})
    # Not dict(rows): a Result has keys(), so dict() would read it as a mapping of its columns.
    return {kind: thread_id for kind, thread_id in rows}  # noqa: C416


def participants(conn: Connection, thread_pk: int) -> Sequence[Row]:
    """Distinct (address, sender_name) pairs of a thread, in order of first arrival."""
    return conn.execute(_PARTICIPANTS, {"thread_pk": thread_pk}).all()


# Threads active since a date (index threads_list_active), the most messages first.
_MOST_ACTIVE = (
    sa.select(*SUMMARY_COLUMNS)
    .where(threads.c.list_id == _LIST_ID, threads.c.date_active >= param("since", sa.DateTime))
    .order_by(threads.c.emails_count.desc(), threads.c.date_active.desc(), threads.c.thread_id)
    .limit(param("limit", sa.Integer))
)


def most_active_threads(conn: Connection, list_id: int, since: datetime, limit: int) -> Sequence[Row]:
    """The `limit` threads active since `since` with the most messages (ties: the later active)."""
    return conn.execute(_MOST_ACTIVE, {"list_id": list_id, "since": since, "limit": limit}).all()
