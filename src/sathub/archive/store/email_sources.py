"""The SQL of message sources (migration 0008): each message's bytes as received, compressed
(mail/kept_source.py), kept by the import and Mailman's archive call; read back by `/raw` and, in
chunks, by the mbox export."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from functools import cache

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.mail.kept_source import ZLIB
from sathub.archive.mail.message import ParsedEmail
from sathub.archive.store.attachments import attachments_to_rebuild
from sathub.archive.store.overviews import made_overviews
from sathub.archive.tables import email_references, email_sources, emails, threads
from sathub.db.dialect import insert_ignoring_conflicts

# Rows per statement of an export: memory stays flat, round trips stay few; the first chunk is
# smaller, so that the first bytes leave soon.
FIRST_CHUNK, EXPORT_CHUNK = 50, 500


def source_row(email_id: int, source: bytes, size: int, envelope: str | None) -> dict:
    return {"email_id": email_id, "envelope": envelope, "compression": ZLIB, "size": size, "data": source}


def insert_sources(conn: Connection, stored: Iterable[tuple[int, ParsedEmail]]) -> None:
    """email_sources rows for (emails.id, ParsedEmail) pairs whose email carries a source."""
    rows = [
        source_row(email_id, email.source, email.source_size, email.envelope)
        for email_id, email in stored
        if email.source is not None
    ]
    if rows:
        insert_ignoring_conflicts(conn, email_sources, rows)


def fill_missing_sources(conn: Connection, list_id: int, archived: dict[str, ParsedEmail]) -> int:
    """Give the emails of the list already archived under these hashes (hash -> the ParsedEmail met
    now) the source they lack: mail archived before sources were kept, imported again. Returns the
    number of sources added."""
    candidates = {key: email for key, email in archived.items() if email.source is not None}
    if not candidates:
        return 0
    lacking = conn.execute(
        sa.select(emails.c.message_id_hash, emails.c.id)
        .outerjoin(email_sources, email_sources.c.email_id == emails.c.id)
        .where(
            emails.c.list_id == list_id,
            emails.c.message_id_hash.in_(list(candidates)),
            email_sources.c.email_id.is_(None),
        )
    ).all()
    insert_sources(conn, [(email_id, candidates[key]) for key, email_id in lacking])
    return len(lacking)


# -- sources read again for what the search reads of them (migration 0023), the Message-IDs they
# name (migration 0029) and OVER's kept fields (migration 0030) ---------------------------------

_TEXT_NOT_READ = sa.or_(emails.c.sender_comment.is_(None), emails.c.scrubbed.is_(None))
_NOT_READ = sa.or_(_TEXT_NOT_READ, emails.c.references_read.is_(None), emails.c.overview.is_(None))


def _not_read(list_id: int | None) -> sa.Select:
    query = sa.select(emails.c.id).join(email_sources, email_sources.c.email_id == emails.c.id).where(_NOT_READ)
    return query if list_id is None else query.where(emails.c.list_id == list_id)


def count_sources_not_read(conn: Connection, list_id: int | None = None) -> int:
    """Emails (of the list when given) with a kept source whose searched-only columns (migration
    0023: sender_comment, scrubbed), references (migration 0029) or OVER's fields (migration 0030)
    are not read from it yet (NULL)."""
    return conn.scalar(sa.select(sa.func.count()).select_from(_not_read(list_id).subquery())) or 0


def sources_not_read(conn: Connection, after: int, limit: int, list_id: int | None = None) -> Sequence[Row]:
    """The first `limit` of those emails by id after `after`: id, envelope, compression, data, and
    text_not_read (whether sender_comment or scrubbed is not read yet)."""
    query = _not_read(list_id).add_columns(
        email_sources.c.envelope,
        email_sources.c.compression,
        email_sources.c.data,
        sa.case((_TEXT_NOT_READ, True), else_=False).label("text_not_read"),
    )
    return conn.execute(query.where(emails.c.id > after).order_by(emails.c.id).limit(limit)).all()


def write_searched_text(
    conn: Connection, read: list[dict], references: dict[int, list[str]], lines: dict[int, int]
) -> None:
    """Each email's (`email_id`) `sender_comment` and `scrubbed`, the Message-IDs it names
    (`references` by email id) and its body's lines (`lines`, OVER's kept fields made with them),
    read from its source, where they are still not read: what the import wrote meanwhile stays.
    The search triggers index again the emails whose text changed (NULL to '' is no change to
    them)."""
    if not read:
        return
    statement = (
        emails.update()
        .where(emails.c.id == sa.bindparam("email_id"), _TEXT_NOT_READ)
        .values(sender_comment=sa.bindparam("comment"), scrubbed=sa.bindparam("text"))
    )
    conn.execute(statement, read)
    marked = conn.execute(
        emails.update()
        .where(emails.c.id.in_(list(references)), emails.c.references_read.is_(None))
        .values(references_read=True)
        .returning(emails.c.id, emails.c.list_id)
    ).all()
    rows = [
        {"email_id": email_id, "position": position, "list_id": list_id, "message_id": message_id}
        for email_id, list_id in marked
        for position, message_id in enumerate(references[email_id])
    ]
    if rows:
        conn.execute(email_references.insert(), rows)
    unkept = conn.scalars(sa.select(emails.c.id).where(emails.c.id.in_(list(lines)), emails.c.overview.is_(None)))
    made = made_overviews(conn, list(unkept), lines)
    if made:
        conn.execute(
            emails.update().where(emails.c.id == sa.bindparam("email_id")).values(overview=sa.bindparam("fields")),
            [{"email_id": email_id, "fields": fields} for email_id, fields in made.items()],
        )


# -- reading sources back ------------------------------------------------------------------------

# What the export and /raw need of an email: its source when kept, else the stored fields that
# rebuild it (mail/rebuild.py).
_SOURCE_COLUMNS = (
    emails.c.id,
    emails.c.message_id,
    emails.c.message_id_hash,
    emails.c.sender_address,
    emails.c.sender_name,
    emails.c.subject,
    # The columns only a rebuild (or a made-up From_ line) needs are read only then: the text is
    # about the size of the source, and on SQLite the columns stored after it (date, archived_date,
    # in_reply_to) are reached only through the text's overflow pages; CASE reads them lazily.
    # (Measured: the corpus's export went from 47 to 49 MB of mbox per CPU second at gzip level 1.)
    sa.case((email_sources.c.email_id.is_(None), emails.c.content)).label("content"),
    sa.case((email_sources.c.email_id.is_(None), emails.c.date)).label("date"),
    sa.case((email_sources.c.envelope.is_(None), emails.c.archived_date)).label("archived_date"),
    sa.case((email_sources.c.email_id.is_(None), emails.c.in_reply_to)).label("in_reply_to"),
    email_sources.c.envelope,
    email_sources.c.compression,
    email_sources.c.size,  # of the source inflated: the buffer it is inflated into
    email_sources.c.data,
)


def _source_query() -> sa.Select:
    return sa.select(*_SOURCE_COLUMNS).outerjoin(email_sources, email_sources.c.email_id == emails.c.id)


def email_source(conn: Connection, list_id: int, message_id_hash: str) -> Row | None:
    """The source row (see _SOURCE_COLUMNS) of one email of the list."""
    return conn.execute(
        _source_query().where(emails.c.list_id == list_id, emails.c.message_id_hash == message_id_hash)
    ).first()


@cache
def _export_query(
    by_list: bool, by_ids: bool, by_thread: bool, by_message: bool, since: bool, before: bool
) -> sa.Select:
    query = _source_query()
    if by_ids:  # a search's matches, a chunk of ids at a time (already in arrival order)
        query = query.where(emails.c.id.in_(sa.bindparam("ids", expanding=True)))
    else:
        query = query.where(emails.c.id > sa.bindparam("after"))
    if by_list:
        query = query.where(emails.c.list_id == sa.bindparam("list_id"))
    if by_thread:
        query = query.join(threads, threads.c.id == emails.c.thread_id).where(
            threads.c.thread_id == sa.bindparam("thread")
        )
    if by_message:
        query = query.where(emails.c.message_id_hash == sa.bindparam("message"))
    if since:
        query = query.where(emails.c.date >= sa.bindparam("start"))
    if before:
        query = query.where(emails.c.date < sa.bindparam("end"))
    query = query.order_by(emails.c.id)
    return query if by_ids else query.limit(sa.bindparam("size", type_=sa.Integer))


def export_chunks(
    engine_connect,
    list_id: int | None,
    *,
    ids: Sequence[int] | None = None,
    thread: str | None = None,
    message: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> Iterator[tuple[list[Row], dict[int, list[Row]]]]:
    """The emails of a list (of every list when `list_id` is None; among `ids` alone, ascending,
    when given: a search's matches) in the order the archive received them (emails.id), FIRST_CHUNK
    then EXPORT_CHUNK rows at a time, each chunk with the attachments of its emails that have no
    source. Keyset paging (or slices of `ids`): each chunk is one short statement on its own
    connection (`engine_connect()`), so that an export of any size holds neither memory nor a
    connection or snapshot between chunks."""
    given = (value is not None for value in (list_id, ids, thread, message, start, end))
    query = _export_query(*given)
    params = {"list_id": list_id, "thread": thread, "message": message, "start": start, "end": end}
    after, size, taken = 0, FIRST_CHUNK, 0
    while True:
        if ids is not None:
            if taken >= len(ids):
                return
            bound: dict = {"ids": list(ids[taken : taken + size])}
            taken += size
        else:
            bound = {"after": after, "size": size}
        with engine_connect() as conn:
            rows = conn.execute(query, {**params, **bound}).all()
            rebuilt = attachments_to_rebuild(conn, [row.id for row in rows if row.data is None])
        if rows:
            yield rows, rebuilt
        elif ids is None:
            return
        if ids is None and len(rows) < size:
            return
        after, size = (rows[-1].id if rows else after), EXPORT_CHUNK
