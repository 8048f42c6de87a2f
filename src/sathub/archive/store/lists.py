"""The SQL of list settings: lists created when Mailman first archives into them, and their
name, description and archive policy kept as Mailman core has them (`archive lists sync`)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.tables import mailing_lists
from sathub.db.dialect import insert_ignoring_conflicts

# The columns Mailman's settings fill (mailman/list_settings.py reads them from its REST API).
SETTING_COLUMNS = ("display_name", "description", "subject_prefix", "archive_policy", "created_at")

_FIND = sa.select(mailing_lists).where(mailing_lists.c.name == sa.bindparam("name"))


def find_list(conn: Connection, name: str) -> Row | None:
    """The list of posting address `name` (any case: addresses are stored lowercase), every column."""
    return conn.execute(_FIND, {"name": name.lower()}).first()


def list_names(conn: Connection) -> list[str]:
    return list(conn.scalars(sa.select(mailing_lists.c.name).order_by(mailing_lists.c.name)))


def create_list(conn: Connection, name: str, values: dict) -> Row:
    """The list `name`, created with `values` (SETTING_COLUMNS; created_at required) unless a
    concurrent call created it first, in which case that list is answered as it is."""
    insert_ignoring_conflicts(conn, mailing_lists, [{"name": name.lower(), **values}])
    return conn.execute(_FIND, {"name": name.lower()}).one()


def update_list(conn: Connection, list_id: int, values: dict) -> None:
    """Set some of SETTING_COLUMNS of one list."""
    if values:
        conn.execute(mailing_lists.update().where(mailing_lists.c.id == list_id).values(**values))
