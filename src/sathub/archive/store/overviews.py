"""NNTP OVER's kept fields (migration 0030's emails.overview; nntp/overview.py says what they
hold): read for a range of a list's articles or for one article, and made from the stored fields
for mail kept before the column existed (NULL until `archive reindex --sources` writes them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.mail.message import ParsedEmail
from sathub.archive.nntp.overview import kept_overview
from sathub.archive.store.rethreading import chunks
from sathub.archive.tables import email_references, email_sources, emails


class Overview(NamedTuple):
    list_id: int
    article_number: int
    fields: str  # emails.overview


def overview_of(email: ParsedEmail) -> str:
    """The kept fields of a new email, from its parse (store/writes.py's email_row)."""
    named = "> <".join(email.references) or email.in_reply_to or ""
    size = email.source_size if email.source is not None else None
    lines = email.source_lines
    return kept_overview(
        email.subject, email.sender_name, email.sender_address, email.date, email.message_id, named, size, lines
    )


# SQLite answers a range from the index emails_list_article_overview alone (emails.id is its rowid).
_KEPT = sa.select(emails.c.id, emails.c.list_id, emails.c.article_number, emails.c.overview)

# The Message-IDs an email names (migration 0029) joined by "> <", in their order (an aggregate
# reads a sorted subquery's rows in its order, on both backends); NULL when it names none.
_NAMED_IN_ORDER = (
    sa.select(email_references.c.message_id)
    .where(email_references.c.email_id == emails.c.id)
    .order_by(email_references.c.position)
    .correlate(emails)
    .subquery()
)
_NAMED = (
    sa.select(sa.func.aggregate_strings(_NAMED_IN_ORDER.c.message_id, "> <")).select_from(_NAMED_IN_ORDER)
).scalar_subquery()
# What the kept fields are made of when an email has none yet.
_FIELDS = sa.select(
    emails.c.id,
    emails.c.subject,
    emails.c.sender_name,
    emails.c.sender_address,
    emails.c.date,
    emails.c.message_id,
    emails.c.in_reply_to,
    _NAMED.label("named"),
    email_sources.c.size,
).select_from(emails.outerjoin(email_sources, email_sources.c.email_id == emails.c.id))


def made_overviews(conn: Connection, ids: Sequence[int], lines: Mapping[int, int] | None = None) -> dict[int, str]:
    """The kept fields of these emails made from their stored fields, by email id; :lines from
    `lines` (read from their sources), else empty."""
    made = {}
    for chunk in chunks(ids):
        for row in conn.execute(_FIELDS.where(emails.c.id.in_(chunk))):
            named = row.named or row.in_reply_to or ""
            body = None if lines is None else lines.get(row.id)
            made[row.id] = kept_overview(
                row.subject, row.sender_name, row.sender_address, row.date, row.message_id, named, row.size, body
            )
    return made


def _completed(conn: Connection, rows: Sequence[Row]) -> list[Overview]:
    missing = [row.id for row in rows if row.overview is None]
    made = made_overviews(conn, missing) if missing else {}
    return [Overview(row.list_id, row.article_number, row.overview or made[row.id]) for row in rows]


def overview_range(conn: Connection, list_id: int, low: int, high: int, limit: int) -> list[Overview]:
    """The kept fields of the list's articles from `low` to `high`, ascending, the first `limit`."""
    rows = conn.execute(
        _KEPT.where(emails.c.list_id == list_id, emails.c.article_number.between(low, high))
        .order_by(emails.c.article_number)
        .limit(limit)
    ).all()
    return _completed(conn, rows)


def overview_of_email(conn: Connection, email_id: int) -> Overview:
    """The kept fields of one email (an article found by its Message-ID)."""
    return _completed(conn, conn.execute(_KEPT.where(emails.c.id == email_id)).all())[0]
