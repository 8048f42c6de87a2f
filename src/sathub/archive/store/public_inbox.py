"""The SQL of public-inbox's forms (archive/public_inbox/): the public lists (its inboxes), a
Message-ID on a list or on any of them, a public-inbox thread's emails, a list's newest
topics, and the rows a message page or a feed shows. Only lists anyone may read (READABLE_LIST)
are ever named; removed mail is not in `emails`, so none of it is found."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import param
from sathub.archive.tables import READABLE_LIST, email_references, email_sources, emails, mailing_lists, threads

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


def references_thread(conn: Connection, list_id: int, message_id: str) -> list[Row]:
    """The list's emails joined to `message_id` through the Message-IDs they are and name (their
    email_references, and in_reply_to for mail whose references are not read yet), as public-inbox's
    `tid` joins them: rounds grow the set of Message-IDs until one adds none. A Message-ID no email
    has (a message never received: public-inbox's ghost) still joins those naming it. In arrival
    order; a round per step of the thread's longest chain of joins."""
    found: dict[int, Row] = {}
    known = new = {message_id}
    while new:
        asked = {"list_id": list_id, "ids": list(new)}
        rows = [row for row in conn.execute(_JOINED, asked) if row.id not in found]
        found.update((row.id, row) for row in rows)
        named = {row.message_id for row in rows} | {row.in_reply_to for row in rows if row.in_reply_to}
        if rows:
            named.update(conn.scalars(_NAMED, {"email_ids": [row.id for row in rows]}))
        new = named - known
        known = known | new
    return sorted(found.values(), key=lambda row: row.id)


# The list's emails that are, or name, one of the Message-IDs `ids`: a union of the indexes
# emails_message_id, emails_list_in_reply_to and email_references_list_message_id. (As one OR,
# or with the list on the Message-ID's branch, SQLite walked the list's emails instead: 1.7 ms a
# round on python-committers, against 16 µs.)
_IDS: sa.BindParameter[str] = sa.bindparam("ids", expanding=True)
_LIST = param("list_id", sa.Integer)
_JOINED = sa.select(*_PLACE_COLUMNS).where(
    emails.c.list_id == _LIST,
    emails.c.id.in_(
        sa.union_all(
            sa.select(emails.c.id).where(emails.c.message_id.in_(_IDS)),
            sa.select(emails.c.id).where(emails.c.list_id == _LIST, emails.c.in_reply_to.in_(_IDS)),
            sa.select(email_references.c.email_id).where(
                email_references.c.list_id == _LIST, email_references.c.message_id.in_(_IDS)
            ),
        )
    ),
)
_NAMED = sa.select(email_references.c.message_id).where(
    email_references.c.email_id.in_(sa.bindparam("email_ids", expanding=True))
)


def subject_candidates(conn: Connection, list_id: int, word: str | None) -> Sequence[Row]:
    """The list's emails whose subject holds `word` (any case; the caller keeps the ones whose
    normalised subject is the same), in arrival order."""
    if word is None:
        return []
    query = (
        sa.select(*_PLACE_COLUMNS)
        .where(emails.c.list_id == list_id, emails.c.subject.icontains(word, autoescape=True))
        .order_by(emails.c.id)
    )
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
