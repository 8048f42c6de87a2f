"""The SQL of the pages to browse (pages/browse.py): the index of lists, a list's most active
threads and months with mail, the threads of a month, a whole thread with its texts and
attachments. Every function takes a Connection and costs one statement, whatever the size of the
list or thread; each filter is served by an index of tables.py.

Counts come from `threads.emails_count` where a thread's total is meant (the index of lists, the
most active threads): summing a list's threads reads one row per thread, not one per email."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import COUNT, param
from sathub.archive.tables import PRIVATE, attachments, emails, mailing_lists, senders, threads

_LIST_ID = param("list_id", sa.Integer)
_starter = emails.alias("starter")
_parent = emails.alias("parent")

# The index of lists -------------------------------------------------------------------------

_LIST_TOTALS = (
    sa.select(
        threads.c.list_id,
        sa.func.sum(threads.c.emails_count).label("emails_count"),
        sa.func.max(threads.c.date_active).label("last_active"),
    )
    .group_by(threads.c.list_id)
    .subquery("totals")
)
_PUBLIC_LISTS_WITH_TOTALS = (
    sa.select(
        mailing_lists.c.name,
        mailing_lists.c.display_name,
        mailing_lists.c.description,
        sa.func.coalesce(_LIST_TOTALS.c.emails_count, 0).label("emails_count"),
        _LIST_TOTALS.c.last_active,
    )
    .select_from(mailing_lists.outerjoin(_LIST_TOTALS, _LIST_TOTALS.c.list_id == mailing_lists.c.id))
    .where(mailing_lists.c.archive_policy != PRIVATE)
    .order_by(mailing_lists.c.name)
)


def public_lists_with_totals(conn: Connection) -> Sequence[Row]:
    """Every list but the private ones, by name: name, display_name, description, emails_count
    (0 without mail), last_active (the newest thread activity; None without mail)."""
    return conn.execute(_PUBLIC_LISTS_WITH_TOTALS).all()


# A list's overview ----------------------------------------------------------------------------

_THREAD_COLUMNS = (threads.c.thread_id, threads.c.subject, threads.c.date_active, threads.c.emails_count)
# Threads active since a date (index threads_list_active), the most messages first.
_MOST_ACTIVE = (
    sa.select(*_THREAD_COLUMNS)
    .where(threads.c.list_id == _LIST_ID, threads.c.date_active >= param("since", sa.DateTime))
    .order_by(threads.c.emails_count.desc(), threads.c.date_active.desc(), threads.c.thread_id)
    .limit(param("limit", sa.Integer))
)
# Months by archived date, counted on the index emails_list_archived (list_id, archived_date, id)
# alone, in the form each backend runs fastest (measured on the corpus's 9,567-email list: 14 ms
# for EXTRACT … GROUP BY on SQLite, which calls strftime per row; 16 ms on PostgreSQL, whose
# EXTRACT answers numerics). PostgreSQL groups by date_trunc (one cheap call per row); SQLite walks
# the months from the first to the last with a recursive CTE and counts each one as a range of the
# index (a seek and a count, no function per row).
_TRUNCATED = sa.func.date_trunc("month", emails.c.archived_date)
_MONTHS_POSTGRESQL = (
    sa.select(_TRUNCATED.label("month"), COUNT.label("emails_count"))
    .where(emails.c.list_id == _LIST_ID)
    .group_by(_TRUNCATED)
    .order_by(_TRUNCATED.desc())
)
_MONTHS_SQLITE = sa.text(
    """
    WITH RECURSIVE bounds(first, last) AS (
        SELECT min(archived_date), max(archived_date) FROM emails WHERE list_id = :list_id
    ), months(start) AS (
        SELECT date(first, 'start of month') FROM bounds WHERE first IS NOT NULL
        UNION ALL
        SELECT date(start, '+1 month') FROM months, bounds WHERE date(start, '+1 month') <= last
    ), counted(start, emails_count) AS (
        SELECT start, (SELECT count(*) FROM emails WHERE list_id = :list_id
                       AND archived_date >= start AND archived_date < date(start, '+1 month'))
        FROM months
    )
    SELECT start, emails_count FROM counted WHERE emails_count > 0 ORDER BY start DESC
    """
)


def most_active_threads(conn: Connection, list_id: int, since: datetime, limit: int) -> Sequence[Row]:
    """The `limit` threads active since `since` with the most messages (ties: the later active)."""
    return conn.execute(_MOST_ACTIVE, {"list_id": list_id, "since": since, "limit": limit}).all()


def months_with_mail(conn: Connection, list_id: int) -> list[tuple[int, int, int]]:
    """(year, month, emails_count) of every month in which the list archived mail, newest first."""
    if conn.dialect.name == "postgresql":
        rows = conn.execute(_MONTHS_POSTGRESQL, {"list_id": list_id}).all()
        return [(month.year, month.month, count) for month, count in rows]
    rows = conn.execute(_MONTHS_SQLITE, {"list_id": list_id}).all()
    return [(int(start[:4]), int(start[5:7]), count) for start, count in rows]


# The threads of a month ----------------------------------------------------------------------

_BEGIN, _END = param("begin", sa.DateTime), param("end", sa.DateTime)
# The month's emails by thread (a range of the index emails_list_archived, one lookup per email).
_IN_MONTH = (
    sa.select(
        emails.c.thread_id,
        COUNT.label("in_month"),
        sa.func.max(emails.c.archived_date).label("last_in_month"),
    )
    .where(emails.c.list_id == _LIST_ID, emails.c.archived_date >= _BEGIN, emails.c.archived_date < _END)
    .group_by(emails.c.thread_id)
    .subquery("in_month")
)
_MONTH_THREADS = (
    sa.select(
        *_THREAD_COLUMNS,
        _IN_MONTH.c.in_month,
        _IN_MONTH.c.last_in_month,
        _starter.c.sender_name.label("starter_name"),
    )
    .select_from(
        _IN_MONTH.join(threads, threads.c.id == _IN_MONTH.c.thread_id).outerjoin(
            _starter, _starter.c.id == threads.c.starting_email_id
        )
    )
    .order_by(_IN_MONTH.c.last_in_month.desc(), threads.c.thread_id)
)
_NEWEST_ARCHIVED = sa.select(sa.func.max(emails.c.archived_date)).where(emails.c.list_id == _LIST_ID)
# The archived dates just before and just after a run of dates: two seeks on emails_list_archived.
_AROUND = sa.select(
    sa.select(sa.func.max(emails.c.archived_date))
    .where(emails.c.list_id == _LIST_ID, emails.c.archived_date < _BEGIN)
    .scalar_subquery()
    .label("before"),
    sa.select(sa.func.min(emails.c.archived_date))
    .where(emails.c.list_id == _LIST_ID, emails.c.archived_date >= _END)
    .scalar_subquery()
    .label("after"),
)


def month_threads(conn: Connection, list_id: int, begin: datetime, end: datetime) -> Sequence[Row]:
    """The threads with mail archived in [begin, end): the thread's columns, `in_month` (its emails
    of those dates), `last_in_month`, `starter_name`; the latest mail of the month first."""
    return conn.execute(_MONTH_THREADS, {"list_id": list_id, "begin": begin, "end": end}).all()


def mail_around(conn: Connection, list_id: int, begin: datetime, end: datetime) -> Row:
    """(`before`, `after`): the archived dates of the list's last email before `begin` and first
    at or after `end`, each None when there is none."""
    return conn.execute(_AROUND, {"list_id": list_id, "begin": begin, "end": end}).one()


def newest_archived(conn: Connection, list_id: int) -> datetime | None:
    """The archived date of the list's newest email (the end of the index), None without mail."""
    return conn.execute(_NEWEST_ARCHIVED, {"list_id": list_id}).scalar()


# A whole thread -------------------------------------------------------------------------------

_THREAD_PK = param("thread_pk", sa.Integer)
_THREAD_MESSAGES = (
    sa.select(
        emails.c.id,
        emails.c.message_id_hash,
        emails.c.message_id,
        emails.c.sender_name,
        emails.c.sender_address,
        senders.c.mailman_id,
        emails.c.subject,
        emails.c.date,
        emails.c.content,
        _parent.c.message_id_hash.label("parent_hash"),
    )
    .select_from(
        emails.join(senders, senders.c.id == emails.c.sender_id).outerjoin(_parent, _parent.c.id == emails.c.parent_id)
    )
    .where(emails.c.thread_id == _THREAD_PK)
    .order_by(emails.c.thread_order)
    .limit(param("limit", sa.Integer))
)
_THREAD_ATTACHMENTS = (
    sa.select(
        attachments.c.email_id,
        attachments.c.counter,
        attachments.c.name,
        attachments.c.content_type,
        attachments.c.size,
    )
    .select_from(attachments.join(emails, emails.c.id == attachments.c.email_id))
    .where(emails.c.thread_id == _THREAD_PK)
    .order_by(attachments.c.email_id, attachments.c.counter)
)


def thread_messages(conn: Connection, thread_pk: int, limit: int) -> Sequence[Row]:
    """The first `limit` emails of a thread (threads.id) in thread order (index emails_thread_order),
    with their text, sender's mailman_id and parent's hash."""
    return conn.execute(_THREAD_MESSAGES, {"thread_pk": thread_pk, "limit": limit}).all()


def thread_attachments(conn: Connection, thread_pk: int) -> dict[int, list[Row]]:
    """The attachment descriptions (no bytes) of every email of a thread, by emails.id."""
    found: dict[int, list[Row]] = defaultdict(list)
    for row in conn.execute(_THREAD_ATTACHMENTS, {"thread_pk": thread_pk}):
        found[row.email_id].append(row)
    return found
