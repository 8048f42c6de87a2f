"""The SQL of the archive read API (SQLAlchemy Core; every function takes a Connection).

Each request costs a constant number of statements, whatever the size of the thread, list or
sender history: rows of one answer come from one statement, their children from one more (bounded
by the page's key range, so no id lists), and every filter and order is served by an index of
tables.py. Newest-first pages read the `(…, archived_date, id)` indexes backwards, without a sort.
Counts (only with `?limit=`) are COUNT(*) over the same index, or the thread's own `emails_count`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.paging import Page
from sathub.archive.tables import attachments, emails, mailing_lists, senders, threads

PRIVATE = "private"

_parent = emails.alias("parent")
_child = emails.alias("child")


_THREAD_COLUMNS = (threads.c.id, threads.c.thread_id, threads.c.subject, threads.c.date_active,
                   threads.c.emails_count)


def _paged(query: sa.Select, page: Page | None) -> sa.Select:
    return query if page is None else query.limit(page.limit).offset(page.offset)


# Lists ---------------------------------------------------------------------------------------

def find_list(conn: Connection, address: str) -> Row | None:
    """The list of that posting address (any case: addresses are stored lowercase)."""
    return conn.execute(sa.select(mailing_lists).where(mailing_lists.c.name == address.lower())).first()


def public_lists(conn: Connection, page: Page | None) -> list[Row]:
    query = (sa.select(mailing_lists).where(mailing_lists.c.archive_policy != PRIVATE)
             .order_by(mailing_lists.c.name))
    return conn.execute(_paged(query, page)).all()


def count_public_lists(conn: Connection) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(mailing_lists)
                        .where(mailing_lists.c.archive_policy != PRIVATE)).scalar_one()


# Threads -------------------------------------------------------------------------------------

def list_threads(conn: Connection, list_id: int, page: Page | None) -> list[Row]:
    """Most recently active first; equal `date_active` by thread id (index threads_list_active)."""
    query = (sa.select(*_THREAD_COLUMNS).where(threads.c.list_id == list_id)
             .order_by(threads.c.date_active.desc(), threads.c.thread_id))
    return conn.execute(_paged(query, page)).all()


def count_threads(conn: Connection, list_id: int) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(threads)
                        .where(threads.c.list_id == list_id)).scalar_one()


def find_thread(conn: Connection, list_id: int, thread_hash: str) -> Row | None:
    return conn.execute(sa.select(*_THREAD_COLUMNS).where(
        threads.c.list_id == list_id, threads.c.thread_id == thread_hash)).first()


def thread_neighbours(conn: Connection, list_id: int, newest, oldest) -> dict[str, str]:
    """Thread ids around a run of threads whose `date_active` spans oldest … newest, in one statement.

    Keys: `newer` — the thread with the smallest date_active above `newest`; `newest_first` — the
    first thread (by id) dated exactly `newest`; `older` — the thread with the greatest date_active
    below `oldest`. Ties among candidates go to the smallest thread id, as in the list order."""
    def first(kind: str, condition, date_order):
        return sa.select(sa.literal(kind).label("kind"), threads.c.thread_id).where(
            threads.c.list_id == list_id, condition,
        ).order_by(date_order, threads.c.thread_id).limit(1).subquery()

    parts = [
        first("newer", threads.c.date_active > newest, threads.c.date_active),
        first("newest_first", threads.c.date_active == newest, threads.c.date_active),
        first("older", threads.c.date_active < oldest, threads.c.date_active.desc()),
    ]
    query = sa.union_all(*(sa.select(part.c.kind, part.c.thread_id) for part in parts))
    return {kind: thread_id for kind, thread_id in conn.execute(query)}


def participants(conn: Connection, thread_pk: int) -> list[Row]:
    """Distinct (address, sender_name) pairs of a thread, in order of first arrival."""
    first_arrival = sa.func.min(emails.c.id)
    return conn.execute(
        sa.select(senders.c.address, emails.c.sender_name)
        .select_from(emails.join(senders, senders.c.id == emails.c.sender_id))
        .where(emails.c.thread_id == thread_pk)
        .group_by(senders.c.address, emails.c.sender_name)
        .order_by(first_arrival)
    ).all()


# Emails --------------------------------------------------------------------------------------
# Every email query answers rows of one shape, read positionally by objects.email (named access
# on a Row costs more than building the object): EMAIL_ROW below, then `content` for one email.
# What a query already knows (its list, its sender, its thread) is selected as a literal
# instead of being joined for every row.

EMAIL_ROW = ("id", "message_id", "message_id_hash", "sender_name", "subject", "date", "sender_address",
             "mailman_id", "list_name", "thread_hash", "parent_hash", "archived_date", "thread_order")


def _email_query(*, list_name: str | None = None, sender: Row | None = None, thread_hash: str | None = None,
                 extra: tuple = ()) -> sa.Select:
    joined = emails.outerjoin(_parent, _parent.c.id == emails.c.parent_id)
    if sender is None:
        joined = joined.join(senders, senders.c.id == emails.c.sender_id)
        sender_columns = (senders.c.address, senders.c.mailman_id)
    else:
        sender_columns = (sa.literal(sender.address), sa.literal(sender.mailman_id))
    if list_name is None:
        joined = joined.join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
        list_column = mailing_lists.c.name
    else:
        list_column = sa.literal(list_name)
    if thread_hash is None:
        joined = joined.join(threads, threads.c.id == emails.c.thread_id)
        thread_column = threads.c.thread_id
    else:
        thread_column = sa.literal(thread_hash)
    columns = (emails.c.id, emails.c.message_id, emails.c.message_id_hash, emails.c.sender_name,
               emails.c.subject, emails.c.date, *sender_columns, list_column, thread_column,
               _parent.c.message_id_hash, emails.c.archived_date, emails.c.thread_order, *extra)
    return sa.select(*(column.label(name) for column, name in zip(columns, EMAIL_ROW + ("content",))))\
        .select_from(joined)


def thread_emails(conn: Connection, list_name: str, thread: Row, page: Page | None) -> list[Row]:
    """The thread's emails in thread order (index emails_thread_order)."""
    query = (_email_query(list_name=list_name, thread_hash=thread.thread_id)
             .where(emails.c.thread_id == thread.id).order_by(emails.c.thread_order))
    return conn.execute(_paged(query, page)).all()


def thread_children(conn: Connection, thread_pk: int, rows: Sequence[Row]) -> dict[int, list[str]]:
    """Children of `rows` (a run of one thread in thread order), bounded by their thread_order."""
    if not rows:
        return {}
    return _children(conn, _parent.c.thread_id == thread_pk,
                     _parent.c.thread_order.between(rows[0].thread_order, rows[-1].thread_order))


def list_emails(conn: Connection, mailing_list: Row, page: Page | None) -> list[Row]:
    """Newest archived first, equal dates by latest arrival (index emails_list_archived, backwards)."""
    query = (_email_query(list_name=mailing_list.name).where(emails.c.list_id == mailing_list.id)
             .order_by(emails.c.archived_date.desc(), emails.c.id.desc()))
    return conn.execute(_paged(query, page)).all()


def count_list_emails(conn: Connection, list_id: int) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(emails)
                        .where(emails.c.list_id == list_id)).scalar_one()


def list_children(conn: Connection, list_id: int, rows: Sequence[Row]) -> dict[int, list[str]]:
    """Children of `rows` (a run of one list in newest-first order), bounded by their keys."""
    if not rows:
        return {}
    return _children(conn, _parent.c.list_id == list_id, _key_between(rows))


def find_sender(conn: Connection, key: str) -> Row | None:
    """A sender by address (a key containing `@`, any case) or by mailman_id."""
    column = senders.c.address if "@" in key else senders.c.mailman_id
    return conn.execute(sa.select(senders).where(column == key.lower())).first()


def sender_emails(conn: Connection, sender: Row, page: Page | None) -> list[Row]:
    """The sender's emails on public lists, newest archived first (index emails_sender_archived)."""
    query = (_email_query(sender=sender)
             .where(emails.c.sender_id == sender.id, mailing_lists.c.archive_policy != PRIVATE)
             .order_by(emails.c.archived_date.desc(), emails.c.id.desc()))
    return conn.execute(_paged(query, page)).all()


def count_sender_emails(conn: Connection, sender_id: int) -> int:
    return conn.execute(
        sa.select(sa.func.count())
        .select_from(emails.join(mailing_lists, mailing_lists.c.id == emails.c.list_id))
        .where(emails.c.sender_id == sender_id, mailing_lists.c.archive_policy != PRIVATE)
    ).scalar_one()


def sender_children(conn: Connection, sender_id: int, rows: Sequence[Row]) -> dict[int, list[str]]:
    """Children of `rows` (a run of one sender's emails in newest-first order)."""
    if not rows:
        return {}
    return _children(conn, _parent.c.sender_id == sender_id, _key_between(rows))


def find_email(conn: Connection, mailing_list: Row, message_id_hash: str) -> Row | None:
    """One email with its text (index emails_list_hash)."""
    return conn.execute(
        _email_query(list_name=mailing_list.name, extra=(emails.c.content,))
        .where(emails.c.list_id == mailing_list.id, emails.c.message_id_hash == message_id_hash)
    ).first()


def email_children(conn: Connection, email_id: int) -> list[str]:
    return conn.execute(sa.select(_child.c.message_id_hash).where(_child.c.parent_id == email_id)
                        .order_by(_child.c.date, _child.c.id)).scalars().all()


def _key_between(rows: Sequence[Row]):
    """The newest-first run `rows` as a range of (archived_date, id) on the parent alias."""
    key = sa.tuple_(_parent.c.archived_date, _parent.c.id)
    oldest, newest = rows[-1], rows[0]
    return key.between(sa.tuple_(oldest.archived_date, oldest.id), sa.tuple_(newest.archived_date, newest.id))


def _children(conn: Connection, *parent_filter) -> dict[int, list[str]]:
    """Hashes of the replies to the emails selected by `parent_filter`, by date then arrival."""
    query = (sa.select(_child.c.parent_id, _child.c.message_id_hash)
             .select_from(_child.join(_parent, _parent.c.id == _child.c.parent_id))
             .where(*parent_filter).order_by(_child.c.date, _child.c.id))
    children: dict[int, list[str]] = defaultdict(list)
    for parent_id, message_id_hash in conn.execute(query).all():
        children[parent_id].append(message_id_hash)
    return children


# Attachments ---------------------------------------------------------------------------------

def email_attachments(conn: Connection, email_id: int) -> list[Row]:
    """Attachment descriptions without their bytes, in counter order."""
    return conn.execute(
        sa.select(attachments.c.counter, attachments.c.name, attachments.c.content_type,
                  attachments.c.encoding, attachments.c.size)
        .where(attachments.c.email_id == email_id).order_by(attachments.c.counter)
    ).all()


def find_attachment(conn: Connection, list_id: int, message_id_hash: str, counter: int) -> Row | None:
    return conn.execute(
        sa.select(attachments.c.name, attachments.c.content_type, attachments.c.encoding,
                  attachments.c.size, attachments.c.content)
        .select_from(attachments.join(emails, emails.c.id == attachments.c.email_id))
        .where(emails.c.list_id == list_id, emails.c.message_id_hash == message_id_hash,
               attachments.c.counter == counter)
    ).first()
