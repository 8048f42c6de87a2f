"""The SQL of public-inbox's forms (archive/public_inbox/): the public lists (its inboxes), a
Message-ID on a list or on any of them, the candidates of a public-inbox thread, a list's newest
topics, and the rows a message page or a feed shows. Only lists anyone may read (READABLE_LIST)
are ever named; removed mail is not in `emails`, so none of it is found."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import param
from sathub.archive.tables import READABLE_LIST, email_sources, emails, mailing_lists, threads

_PUBLIC_LISTS = sa.select(mailing_lists.c.id, mailing_lists.c.name).where(READABLE_LIST).order_by(mailing_lists.c.id)

# What a public-inbox door needs of a message to place it: its list, its HyperKitty thread, its
# subject (public-inbox's thread adds the same normalised subject), its date and its parent.
_PLACE_COLUMNS = (
    emails.c.id,
    emails.c.list_id,
    emails.c.message_id,
    emails.c.message_id_hash,
    emails.c.thread_id,
    emails.c.thread_order,
    emails.c.thread_depth,
    emails.c.subject,
    emails.c.sender_name,
    emails.c.sender_address,
    emails.c.date,
    emails.c.in_reply_to,
)
# The first archived of the Message-ID's emails on the lists given (a cross-posted message is on
# several): `emails_message_id`.
_BY_MESSAGE_ID = (
    sa.select(*_PLACE_COLUMNS)
    .where(emails.c.message_id == param("message_id"), emails.c.list_id.in_(sa.bindparam("list_ids", expanding=True)))
    .order_by(emails.c.id)
    .limit(1)
)
# A topic of the lists: a thread, its first message's Message-ID, newest activity first (of one
# list: the index threads_list_recent).
_TOPICS = (
    sa.select(
        threads.c.subject,
        threads.c.date_active,
        threads.c.emails_count,
        emails.c.message_id,
        emails.c.sender_name,
        emails.c.date,
    )
    .join(emails, emails.c.id == threads.c.starting_email_id)
    .where(threads.c.list_id.in_(sa.bindparam("list_ids", expanding=True)))
    .order_by(threads.c.date_active.desc(), threads.c.thread_id)
    .limit(param("limit", sa.Integer))
    .offset(param("offset", sa.Integer))
)


def public_lists(conn: Connection) -> Sequence[Row]:
    """Every list anyone may read: id, name (its address), oldest first."""
    return conn.execute(_PUBLIC_LISTS).all()


def find_message(conn: Connection, list_ids: Sequence[int], message_id: str) -> Row | None:
    """The first archived email with this (cleaned) Message-ID on one of the lists `list_ids`."""
    if not list_ids:
        return None
    return conn.execute(_BY_MESSAGE_ID, {"message_id": message_id, "list_ids": list(list_ids)}).first()


def holds_mail(conn: Connection, list_ids: Sequence[int]) -> bool:
    """Whether any of the lists `list_ids` holds an email."""
    if not list_ids:
        return False
    query = sa.select(emails.c.id).where(emails.c.list_id.in_(list(list_ids))).limit(1)
    return conn.execute(query).first() is not None


def placed(conn: Connection, ids: Sequence[int]) -> Sequence[Row]:
    """The emails `ids` as a door places them (list, thread, subject, date), in arrival order."""
    if not ids:
        return []
    query = sa.select(*_PLACE_COLUMNS).where(emails.c.id.in_(list(ids))).order_by(emails.c.id)
    return conn.execute(query).all()


def thread_candidates(conn: Connection, list_id: int, thread_pk: int | None, word: str | None) -> Sequence[Row]:
    """The list's emails of the thread `thread_pk` and those whose subject holds `word` (any case;
    the caller keeps the ones whose normalised subject is the same), in arrival order."""
    matches = []
    if thread_pk is not None:
        matches.append(emails.c.thread_id == thread_pk)
    if word is not None:
        matches.append(emails.c.subject.icontains(word, autoescape=True))
    if not matches:
        return []
    query = sa.select(*_PLACE_COLUMNS).where(emails.c.list_id == list_id, sa.or_(*matches)).order_by(emails.c.id)
    return conn.execute(query).all()


def topics(conn: Connection, list_ids: Sequence[int], limit: int, offset: int) -> Sequence[Row]:
    """The lists' threads, newest activity first: subject, date_active, emails_count, and the
    first message's message_id, sender_name and date."""
    return conn.execute(_TOPICS, {"list_ids": list(list_ids), "limit": limit, "offset": offset}).all()


def newest(conn: Connection, list_ids: Sequence[int], limit: int) -> Sequence[Row]:
    """The lists' `limit` newest emails by archived date (then arrival): id and message_id; the
    index emails_list_archived read backwards."""
    query = (
        sa.select(emails.c.id, emails.c.message_id)
        .where(emails.c.list_id.in_(list(list_ids)))
        .order_by(emails.c.archived_date.desc(), emails.c.id.desc())
        .limit(limit)
    )
    return conn.execute(query).all()


def message_rows(conn: Connection, ids: Sequence[int]) -> Sequence[Row]:
    """The emails `ids` with their text and kept source (data and compression; None when none was
    kept), in arrival order: what a message or thread page shows."""
    if not ids:
        return []
    query = (
        sa.select(
            *_PLACE_COLUMNS,
            emails.c.content,
            email_sources.c.compression,
            email_sources.c.size,
            email_sources.c.data,
        )
        .outerjoin(email_sources, email_sources.c.email_id == emails.c.id)
        .where(emails.c.id.in_(list(ids)))
        .order_by(emails.c.id)
    )
    return conn.execute(query).all()
