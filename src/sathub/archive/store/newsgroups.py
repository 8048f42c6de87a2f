"""The SQL of the NNTP server (archive/nntp/): the lists anyone may read as newsgroups, their
articles by number (emails.article_number, migration 0028) or by Message-ID, and what arrived
since a date (OVER's fields: store/overviews.py). Mail of a private or hidden list is in none of them.

Every range read walks the index emails_list_article (list_id, article_number)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.tables import (
    READABLE_LIST,
    article_counters,
    email_sources,
    emails,
    mailing_lists,
)

_FIRST = (
    sa.select(sa.func.min(emails.c.article_number))
    .where(emails.c.list_id == mailing_lists.c.id, emails.c.article_number.is_not(None))
    .scalar_subquery()
)
_LAST_GIVEN = sa.func.coalesce(
    sa.select(article_counters.c.last_article)
    .where(article_counters.c.list_id == mailing_lists.c.id)
    .scalar_subquery(),
    0,
)
_LISTS = (
    sa.select(
        mailing_lists.c.id,
        mailing_lists.c.name,
        mailing_lists.c.display_name,
        mailing_lists.c.description,
        mailing_lists.c.created_at,
        _FIRST.label("first_article"),
        _LAST_GIVEN.label("last_article"),
    )
    .where(READABLE_LIST)
    .order_by(mailing_lists.c.name)
)


def readable_lists(conn: Connection) -> Sequence[Row]:
    """The lists anyone may read (id, name, display_name, description, created_at, first_article:
    None when none is shown, last_article: the highest number the list gave), by address."""
    return conn.execute(_LISTS).all()


def article_count(conn: Connection, list_id: int) -> int:
    """How many of the list's articles are shown."""
    return conn.execute(
        sa.select(sa.func.count()).where(emails.c.list_id == list_id, emails.c.article_number.is_not(None))
    ).scalar_one()


def article_numbers(conn: Connection, list_id: int, low: int, high: int) -> list[int]:
    """The numbers of the list's articles from `low` to `high`, ascending."""
    return list(
        conn.scalars(
            sa.select(emails.c.article_number)
            .where(emails.c.list_id == list_id, emails.c.article_number.between(low, high))
            .order_by(emails.c.article_number)
        )
    )


def neighbour(conn: Connection, list_id: int, number: int, *, after: bool) -> Row | None:
    """(article_number, message_id) of the list's article next after `number` (or before it)."""
    column = emails.c.article_number
    query = sa.select(column, emails.c.message_id).where(emails.c.list_id == list_id)
    if after:
        query = query.where(column > number).order_by(column)
    else:
        query = query.where(column < number).order_by(column.desc())
    return conn.execute(query.limit(1)).first()


# An article's source, or the stored fields that rebuild it (mail/rebuild.py) when it has none.
_ARTICLE = sa.select(
    emails.c.id,
    emails.c.list_id,
    emails.c.article_number,
    emails.c.message_id,
    emails.c.sender_address,
    emails.c.sender_name,
    emails.c.subject,
    sa.case((email_sources.c.email_id.is_(None), emails.c.content)).label("content"),
    emails.c.date,
    emails.c.in_reply_to,
    email_sources.c.compression,
    email_sources.c.data,
).select_from(emails.outerjoin(email_sources, email_sources.c.email_id == emails.c.id))


def article(conn: Connection, list_id: int, number: int) -> Row | None:
    """The list's article of that number (see _ARTICLE)."""
    return conn.execute(_ARTICLE.where(emails.c.list_id == list_id, emails.c.article_number == number)).first()


def _readable_with_message_id(query: sa.Select, message_id: str, prefer_list: int | None) -> sa.Select:
    """`query` narrowed to the one shown copy of a Message-ID on a readable list: the one on
    `prefer_list` when there is one there, else the copy of the oldest list."""
    readable = sa.select(mailing_lists.c.id).where(READABLE_LIST)
    return (
        query.where(
            emails.c.message_id == message_id,
            emails.c.article_number.is_not(None),
            emails.c.list_id.in_(readable.scalar_subquery()),
        )
        .order_by((emails.c.list_id != (prefer_list or 0)), emails.c.list_id)
        .limit(1)
    )


def article_by_message_id(conn: Connection, message_id: str, prefer_list: int | None) -> Row | None:
    """The article of a Message-ID (without angle brackets) on a list anyone may read."""
    return conn.execute(_readable_with_message_id(_ARTICLE, message_id, prefer_list)).first()


def email_of_message_id(conn: Connection, message_id: str, prefer_list: int | None) -> Row | None:
    """(id, list_id) of a Message-ID's email on a list anyone may read."""
    query = sa.select(emails.c.id, emails.c.list_id)
    return conn.execute(_readable_with_message_id(query, message_id, prefer_list)).first()


def articles(conn: Connection, list_id: int, low: int, high: int, limit: int) -> Sequence[Row]:
    """The articles (see _ARTICLE) of the list from `low` to `high`, ascending, the first `limit`:
    HDR of a field the overview does not hold reads their headers."""
    return conn.execute(
        _ARTICLE.where(emails.c.list_id == list_id, emails.c.article_number.between(low, high))
        .order_by(emails.c.article_number)
        .limit(limit)
    ).all()


def new_message_ids(conn: Connection, list_ids: Sequence[int], since: datetime) -> list[str]:
    """The Message-IDs archived on these lists at `since` or later, in arrival order."""
    if not list_ids:
        return []
    return list(
        conn.scalars(
            sa.select(emails.c.message_id)
            .where(
                emails.c.list_id.in_(list(list_ids)),
                emails.c.archived_date >= since,
                emails.c.article_number.is_not(None),
            )
            .order_by(emails.c.id)
        )
    )


def list_name(conn: Connection, list_id: int) -> str:
    """The posting address of a list."""
    return conn.execute(sa.select(mailing_lists.c.name).where(mailing_lists.c.id == list_id)).scalar_one()
