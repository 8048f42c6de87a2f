"""The SQL of the feeds (feeds/endpoint.py): the newest emails of a list, a thread or a sender, with
their text. One statement per feed; the newest-first orders read the indexes of tables.py
backwards (`emails_list_archived`, `emails_sender_archived`); a thread's emails are found by
`emails_thread_order` and sorted (a thread is small beside a list)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import param
from sathub.archive.tables import PRIVATE, emails, mailing_lists, senders, threads

# One row shape for every feed item.
_ITEM_COLUMNS = (
    emails.c.id,
    mailing_lists.c.name.label("list_name"),
    emails.c.message_id_hash,
    emails.c.subject,
    emails.c.sender_name,
    emails.c.sender_address,
    senders.c.mailman_id,
    emails.c.date,
    emails.c.archived_date,
    emails.c.content,
    threads.c.thread_id.label("thread_hash"),
)
_ITEM_FROM = (
    emails.join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
    .join(senders, senders.c.id == emails.c.sender_id)
    .join(threads, threads.c.id == emails.c.thread_id)
)
_NEWEST_FIRST = (emails.c.archived_date.desc(), emails.c.id.desc())
_LIMIT = param("limit", sa.Integer)


def _items(*where) -> sa.Select:
    return sa.select(*_ITEM_COLUMNS).select_from(_ITEM_FROM).where(*where).order_by(*_NEWEST_FIRST).limit(_LIMIT)


_LIST_ITEMS = _items(emails.c.list_id == param("list_id", sa.Integer))
_THREAD_ITEMS = _items(emails.c.thread_id == param("thread_pk", sa.Integer))
# A sender's emails on the lists anyone may read (a private list's never leave through a feed).
_SENDER_ITEMS = _items(emails.c.sender_id == param("sender_id", sa.Integer), mailing_lists.c.archive_policy != PRIVATE)
_BY_IDS = (
    sa.select(*_ITEM_COLUMNS)
    .select_from(_ITEM_FROM)
    .where(emails.c.id.in_(sa.bindparam("ids", expanding=True)), mailing_lists.c.archive_policy != PRIVATE)
)


def list_items(conn: Connection, list_id: int, limit: int) -> Sequence[Row]:
    """The list's `limit` newest emails (by archived date, then arrival), with their text."""
    return conn.execute(_LIST_ITEMS, {"list_id": list_id, "limit": limit}).all()


def thread_items(conn: Connection, thread_pk: int, limit: int) -> Sequence[Row]:
    """The thread's (threads.id) `limit` newest emails, with their text."""
    return conn.execute(_THREAD_ITEMS, {"thread_pk": thread_pk, "limit": limit}).all()


def sender_items(conn: Connection, sender_id: int, limit: int) -> Sequence[Row]:
    """The sender's `limit` newest emails on lists that are not private, with their text."""
    return conn.execute(_SENDER_ITEMS, {"sender_id": sender_id, "limit": limit}).all()


def items_by_ids(conn: Connection, ids: Sequence[int]) -> Sequence[Row]:
    """The emails `ids` (emails.id) that are on lists which are not private, in the order of `ids`
    (a search's hits, already ranked)."""
    if not ids:
        return []
    found = {row.id: row for row in conn.execute(_BY_IDS, {"ids": list(ids)})}
    return [found[email_id] for email_id in ids if email_id in found]
