"""The SQL of the archive's revisions (migration 0024): what its ETags and Last-Modified are made
of, read before anything else an answer needs (archive/caching.py). Both reads are small: a list's
is one row by its unique name, the whole archive's an aggregate over the lists alone."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.tables import mailing_lists

_LIST = sa.select(
    mailing_lists.c.id,
    mailing_lists.c.archive_policy,
    mailing_lists.c.hidden_by,
    mailing_lists.c.revision,
    mailing_lists.c.revised_at,
).where(mailing_lists.c.name == sa.bindparam("name"))

# The sum grows with every commit that changes any list (each moves a revision by at least one);
# the count and the newest id tell a deleted list's sum apart.
_ARCHIVE = sa.select(
    sa.func.count().label("lists"),
    sa.func.coalesce(sa.func.max(mailing_lists.c.id), 0).label("newest_list"),
    sa.func.coalesce(sa.func.sum(mailing_lists.c.revision), 0).label("revision"),
    sa.func.max(mailing_lists.c.revised_at).label("revised_at"),
)


def list_revision(conn: Connection, name: str) -> Row | None:
    """(id, archive_policy, hidden_by, revision, revised_at) of the list of posting address `name` (any case)."""
    return conn.execute(_LIST, {"name": name.lower()}).first()


def archive_revision(conn: Connection) -> Row:
    """(lists, newest_list, revision, revised_at) of the whole archive."""
    return conn.execute(_ARCHIVE).one()
