"""The SQL of emails: a thread's (the API's and the thread page's), a list's, a sender's, one email,
and their replies (SQLAlchemy Core; every function takes a Connection; their attachments:
attachments.py; a feed's newest emails: feeds.py).

Each request costs a constant number of statements, whatever the size of the thread, list or
sender history: the rows of an answer come from one statement, their children from one more
(bounded by the page's key range, so no id lists), and every filter and order is served by an
index of tables.py. Newest-first pages read the `(…, archived_date, id)` indexes backwards, without
a sort. Counts (only with `?limit=`) are COUNT(*) over the same indexes, or the thread's own
`emails_count`. Statements are built once, with bound parameters, so a request only binds values."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import COUNT, Listing, Page, param
from sathub.archive.tables import PRIVATE, emails, mailing_lists, senders, threads

PARENT = emails.alias("parent")
_child = emails.alias("child")
_LIST_ID = param("list_id", sa.Integer)


# Emails --------------------------------------------------------------------------------------
# Every email query answers rows of one shape, read positionally by objects.emails (named access
# on a Row costs more than building the object): EMAIL_ROW, then `content` for one email.
# What a query already knows (its list, its sender, its thread) is a bound value instead of a
# join per row.

EMAIL_ROW = (
    "id",
    "message_id",
    "message_id_hash",
    "sender_name",
    "subject",
    "date",
    "sender_address",
    "mailman_id",
    "list_name",
    "thread_hash",
    "parent_hash",
    "archived_date",
    "thread_order",
)


def email_query(
    *, known_list: bool = False, known_sender: bool = False, known_thread: bool = False, extra: tuple = ()
) -> sa.Select:
    joined = emails.outerjoin(PARENT, PARENT.c.id == emails.c.parent_id)
    sender_columns: tuple[sa.ColumnElement, ...]
    list_column: sa.ColumnElement
    thread_column: sa.ColumnElement
    if known_sender:
        sender_columns = (emails.c.sender_address, param("mailman_id", sa.String))
    else:
        joined = joined.join(senders, senders.c.id == emails.c.sender_id)
        sender_columns = (emails.c.sender_address, senders.c.mailman_id)
    if known_list:
        list_column = param("list_name", sa.String)
    else:
        joined = joined.join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
        list_column = mailing_lists.c.name
    if known_thread:
        thread_column = param("thread_hash", sa.String)
    else:
        joined = joined.join(threads, threads.c.id == emails.c.thread_id)
        thread_column = threads.c.thread_id
    columns = (
        emails.c.id,
        emails.c.message_id,
        emails.c.message_id_hash,
        emails.c.sender_name,
        emails.c.subject,
        emails.c.date,
        *sender_columns,
        list_column,
        thread_column,
        PARENT.c.message_id_hash,
        emails.c.archived_date,
        emails.c.thread_order,
        *extra,
    )
    # "content" names `extra`'s column when there is one (zip stops at the shorter).
    labelled = (column.label(name) for column, name in zip(columns, (*EMAIL_ROW, "content"), strict=False))
    return sa.select(*labelled).select_from(joined)


_NEWEST_FIRST = (emails.c.archived_date.desc(), emails.c.id.desc())
# A thread by list and hash (unique index threads_list_thread), joined rather than looked up first.
_THREAD_BY_HASH = (threads.c.list_id == _LIST_ID, threads.c.thread_id == param("thread_hash", sa.String))
# The API's pages may start deep in a thread: each is found among ids first (Listing's key). The
# thread page reads from the start with every text, where a key saves nothing and costs a join
# (1,000 emails: 2.5 instead of 2.8 ms on SQLite, 4.0 instead of 5.5 ms on PostgreSQL).
_THREAD_EMAILS = {
    False: Listing(
        email_query(known_list=True),
        _THREAD_BY_HASH,
        (emails.c.thread_order,),
        key=(emails, emails.join(threads, threads.c.id == emails.c.thread_id)),
    ),
    True: Listing(email_query(known_list=True, extra=(emails.c.content,)), _THREAD_BY_HASH, (emails.c.thread_order,)),
}
_COUNT_THREAD_EMAILS = sa.select(threads.c.emails_count).where(*_THREAD_BY_HASH)
_LIST_EMAILS = Listing(
    email_query(known_list=True), (emails.c.list_id == _LIST_ID,), _NEWEST_FIRST, key=(emails, emails)
)
_COUNT_LIST_EMAILS = sa.select(COUNT).select_from(emails).where(emails.c.list_id == _LIST_ID)
_SENDER_ID = param("sender_id", sa.Integer)
_PUBLIC_EMAILS = emails.join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
# A sender's emails, with the private lists' left out; when the site has no private list, the
# page is found and counted on the index alone (the filter needs each email's list).
_SENDER_ON_PUBLIC_LISTS = (emails.c.sender_id == _SENDER_ID, mailing_lists.c.archive_policy != PRIVATE)
_SENDER_EMAILS = {
    True: Listing(email_query(known_sender=True), _SENDER_ON_PUBLIC_LISTS, _NEWEST_FIRST, key=(emails, _PUBLIC_EMAILS)),
    False: Listing(
        email_query(known_sender=True), (emails.c.sender_id == _SENDER_ID,), _NEWEST_FIRST, key=(emails, emails)
    ),
}
_COUNT_SENDER_EMAILS = {
    True: sa.select(COUNT).select_from(_PUBLIC_EMAILS).where(*_SENDER_ON_PUBLIC_LISTS),
    False: sa.select(COUNT).select_from(emails).where(emails.c.sender_id == _SENDER_ID),
}
_PRIVATE_LISTS = sa.exists().where(mailing_lists.c.archive_policy == PRIVATE).label("private_lists")
_FIND_SENDER_BY_ADDRESS = sa.select(senders, _PRIVATE_LISTS).where(senders.c.address == param("key"))
_FIND_SENDER_BY_ID = sa.select(senders, _PRIVATE_LISTS).where(senders.c.mailman_id == param("key"))
_FIND_EMAIL = email_query(known_list=True, extra=(emails.c.content,)).where(
    emails.c.list_id == _LIST_ID, emails.c.message_id_hash == param("hash")
)


def children_query(*parent_filter) -> sa.Select:
    """Replies to the emails selected by `parent_filter` (on the parent alias), by date then arrival."""
    return (
        sa.select(_child.c.parent_id, _child.c.message_id_hash)
        .select_from(_child.join(PARENT, PARENT.c.id == _child.c.parent_id))
        .where(*parent_filter)
        .order_by(_child.c.date, _child.c.id)
    )


def _key_between(owner_column) -> sa.ColumnElement:
    """A newest-first run of one owner's emails as a range of the index key (archived_date, id)."""
    key = sa.tuple_(PARENT.c.archived_date, PARENT.c.id)
    return sa.and_(
        owner_column == param("owner", sa.Integer),
        key.between(
            sa.tuple_(param("oldest_date", sa.DateTime), param("oldest_id", sa.Integer)),
            sa.tuple_(param("newest_date", sa.DateTime), param("newest_id", sa.Integer)),
        ),
    )


_THREAD_CHILDREN = children_query(
    PARENT.c.thread_id == sa.select(threads.c.id).where(*_THREAD_BY_HASH).scalar_subquery(),
    PARENT.c.thread_order.between(param("first", sa.Integer), param("last", sa.Integer)),
)
_LIST_CHILDREN = children_query(_key_between(PARENT.c.list_id))
_SENDER_CHILDREN = children_query(_key_between(PARENT.c.sender_id))
_EMAIL_CHILDREN = (
    sa.select(_child.c.message_id_hash)
    .where(_child.c.parent_id == param("email_id", sa.Integer))
    .order_by(_child.c.date, _child.c.id)
)


def thread_emails(
    conn: Connection, mailing_list: Row, thread_hash: str, page: Page | None, *, with_text: bool = False
) -> Sequence[Row]:
    """The emails of the list's thread `thread_hash` in thread order (index emails_thread_order),
    with their `content` too when `with_text` (the thread page shows every text)."""
    return _THREAD_EMAILS[with_text].all(
        conn, page, list_id=mailing_list.id, list_name=mailing_list.name, thread_hash=thread_hash
    )


def count_thread_emails(conn: Connection, list_id: int, thread_hash: str) -> int:
    """The thread's stored `emails_count`; 0 for an unknown thread."""
    return conn.execute(_COUNT_THREAD_EMAILS, {"list_id": list_id, "thread_hash": thread_hash}).scalar() or 0


def thread_children(conn: Connection, mailing_list: Row, thread_hash: str, rows: Sequence[Row]) -> dict[int, list[str]]:
    """Children of `rows` (a run of one thread in thread order), bounded by their thread_order."""
    if not rows:
        return {}
    return _children(
        conn,
        _THREAD_CHILDREN,
        {
            "list_id": mailing_list.id,
            "thread_hash": thread_hash,
            "first": rows[0].thread_order,
            "last": rows[-1].thread_order,
        },
    )


def list_emails(conn: Connection, mailing_list: Row, page: Page | None) -> Sequence[Row]:
    """Newest archived first, equal dates by latest arrival (index emails_list_archived, backwards)."""
    return _LIST_EMAILS.all(conn, page, list_id=mailing_list.id, list_name=mailing_list.name)


def count_list_emails(conn: Connection, list_id: int) -> int:
    return conn.execute(_COUNT_LIST_EMAILS, {"list_id": list_id}).scalar_one()


def list_children(conn: Connection, list_id: int, rows: Sequence[Row]) -> dict[int, list[str]]:
    """Children of `rows` (a run of one list in newest-first order)."""
    return _children(conn, _LIST_CHILDREN, _run_bounds(list_id, rows)) if rows else {}


def find_sender(conn: Connection, key: str) -> Row | None:
    """A sender by address (a key containing `@`, any case) or by mailman_id, with
    `private_lists`: whether the site has any private list."""
    query = _FIND_SENDER_BY_ADDRESS if "@" in key else _FIND_SENDER_BY_ID
    return conn.execute(query, {"key": key.lower()}).first()


def sender_emails(conn: Connection, sender: Row, page: Page | None) -> Sequence[Row]:
    """The sender's emails on public lists, newest archived first (index emails_sender_archived)."""
    return _SENDER_EMAILS[bool(sender.private_lists)].all(conn, page, sender_id=sender.id, mailman_id=sender.mailman_id)


def count_sender_emails(conn: Connection, sender: Row) -> int:
    return conn.execute(_COUNT_SENDER_EMAILS[bool(sender.private_lists)], {"sender_id": sender.id}).scalar_one()


def sender_children(conn: Connection, sender_id: int, rows: Sequence[Row]) -> dict[int, list[str]]:
    """Children of `rows` (a run of one sender's emails in newest-first order)."""
    return _children(conn, _SENDER_CHILDREN, _run_bounds(sender_id, rows)) if rows else {}


def find_email(conn: Connection, mailing_list: Row, message_id_hash: str) -> Row | None:
    """One email with its text (index emails_list_hash)."""
    return conn.execute(
        _FIND_EMAIL, {"list_id": mailing_list.id, "list_name": mailing_list.name, "hash": message_id_hash}
    ).first()


def email_children(conn: Connection, email_id: int) -> Sequence[str]:
    return conn.execute(_EMAIL_CHILDREN, {"email_id": email_id}).scalars().all()


def _run_bounds(owner: int, rows: Sequence[Row]) -> dict:
    oldest, newest = rows[-1], rows[0]
    return {
        "owner": owner,
        "oldest_date": oldest.archived_date,
        "oldest_id": oldest.id,
        "newest_date": newest.archived_date,
        "newest_id": newest.id,
    }


def _children(conn: Connection, query: sa.Select, params: dict) -> dict[int, list[str]]:
    children: dict[int, list[str]] = defaultdict(list)
    for parent_id, message_id_hash in conn.execute(query, params).all():
        children[parent_id].append(message_id_hash)
    return children
