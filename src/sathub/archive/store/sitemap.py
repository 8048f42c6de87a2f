"""The SQL of what crawlers are told (archive/crawlers/): the lists anyone may read, a list's state
(what its sitemaps' ETags are made of), its months with their newest mail, and a month's messages
with the threads they start, in the order of the index emails_list_archived (list_id,
archived_date, id) of tables.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import COUNT, param
from sathub.archive.tables import READABLE_LIST, emails, mailing_lists, threads

_LIST_ID = param("list_id", sa.Integer)

# The lists anyone may read, by name, each saying whether it has mail (an index of no sitemap is
# not valid: siteindex.xsd wants one at least). One seek of emails_list_arrival per list.
_CRAWLABLE_LISTS = (
    sa.select(
        mailing_lists.c.name,
        sa.exists().where(emails.c.list_id == mailing_lists.c.id).label("has_mail"),
    )
    .where(READABLE_LIST)
    .order_by(mailing_lists.c.name)
)


def crawlable_lists(conn: Connection) -> Sequence[Row]:
    """(name, has_mail) of every list that is not private, by name."""
    return conn.execute(_CRAWLABLE_LISTS).all()


# Every message a list gains raises its newest id; every one it loses lowers its count: the pair
# changes with anything a list's sitemaps show, a thread's reply in a later month included. Both
# come from the index emails_list_arrival (list_id, id) alone.
_STATE = sa.select(COUNT.label("emails_count"), sa.func.max(emails.c.id).label("newest_id")).where(
    emails.c.list_id == _LIST_ID
)


def list_state(conn: Connection, list_id: int) -> Row:
    """(emails_count, newest_id) of a list: what its sitemaps' ETags are made of."""
    return conn.execute(_STATE, {"list_id": list_id}).one()


# The months with mail, by archived date (as the pages count them), each with its newest mail: on
# PostgreSQL grouped by date_trunc; on SQLite each month a range of the index (a count and one
# seek for the newest), walked from the first month to the last, as store/months.py counts them.
_TRUNCATED = sa.func.date_trunc("month", emails.c.archived_date)
_MONTHS_POSTGRESQL = (
    sa.select(_TRUNCATED.label("month"), COUNT.label("emails_count"), sa.func.max(emails.c.archived_date))
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
    ), counted(start, emails_count, newest) AS (
        SELECT start,
               (SELECT count(*) FROM emails WHERE list_id = :list_id
                AND archived_date >= start AND archived_date < date(start, '+1 month')),
               (SELECT max(archived_date) FROM emails WHERE list_id = :list_id
                AND archived_date >= start AND archived_date < date(start, '+1 month'))
        FROM months
    )
    SELECT start, emails_count, newest FROM counted WHERE emails_count > 0 ORDER BY start DESC
    """
).columns(sa.column("start", sa.String), sa.column("emails_count", sa.Integer), sa.column("newest", sa.DateTime))


def months_with_newest(conn: Connection, list_id: int) -> list[tuple[int, int, int, datetime]]:
    """(year, month, emails_count, newest archived date) of every month with mail, newest first."""
    if conn.dialect.name == "postgresql":
        rows = conn.execute(_MONTHS_POSTGRESQL, {"list_id": list_id}).all()
        return [(month.year, month.month, count, newest) for month, count, newest in rows]
    rows = conn.execute(_MONTHS_SQLITE, {"list_id": list_id}).all()
    return [(int(start[:4]), int(start[5:7]), count, newest) for start, count, newest in rows]


# A month's messages from a point of the index on, each with the thread it starts (its thread's
# row, when it is that thread's first message: a primary-key look-up) and that thread's newest
# archived date (its messages through emails_thread_order). The keyset reads `archived_date >=`
# as a range of the index and drops the rows of that date up to the last one sent.
_reply = emails.alias("reply")
_THREAD_NEWEST = (
    sa.select(sa.func.max(_reply.c.archived_date)).where(_reply.c.thread_id == threads.c.id).scalar_subquery()
)
_AFTER_DATE, _AFTER_ID = param("after_date", sa.DateTime), param("after_id", sa.Integer)
_MONTH_ENTRIES = (
    sa.select(
        emails.c.id,
        emails.c.message_id_hash,
        emails.c.archived_date,
        threads.c.thread_id.label("started_thread"),
        _THREAD_NEWEST.label("thread_newest"),
    )
    .select_from(
        emails.outerjoin(
            threads, sa.and_(threads.c.id == emails.c.thread_id, threads.c.starting_email_id == emails.c.id)
        )
    )
    .where(
        emails.c.list_id == _LIST_ID,
        emails.c.archived_date >= _AFTER_DATE,
        emails.c.archived_date < param("end", sa.DateTime),
        sa.or_(emails.c.archived_date > _AFTER_DATE, emails.c.id > _AFTER_ID),
    )
    .order_by(emails.c.archived_date, emails.c.id)
    .limit(param("size", sa.Integer))
    .offset(param("skip", sa.Integer))
)


def month_entries(
    engine_connect: Callable[[], AbstractContextManager[Connection]],
    list_id: int,
    month: tuple[datetime, datetime],
    skip: int,
    take: int,
    chunk: int,
) -> Iterator[Sequence[Row]]:
    """The messages archived in `month` ([begin, end)) after the first `skip`, `take` at most, in
    index order, `chunk` rows a statement, each on its own connection (`engine_connect()`): a month
    of any size is neither held in memory nor holds a connection between chunks. Rows: id,
    message_id_hash, archived_date, started_thread (the id of the thread the message starts, else
    None) and thread_newest (that thread's newest archived date)."""
    begin, end = month
    params = {"list_id": list_id, "end": end, "after_date": begin, "after_id": 0, "skip": skip}
    while take > 0:
        with engine_connect() as conn:
            rows = conn.execute(_MONTH_ENTRIES, {**params, "size": min(chunk, take)}).all()
        if not rows:
            return
        yield rows
        take -= len(rows)
        params.update(after_date=rows[-1].archived_date, after_id=rows[-1].id, skip=0)
