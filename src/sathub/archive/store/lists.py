"""The SQL of lists: one list by address, the public lists of a Mailman 2 name, the public lists
(the API's listing and the index page's, with totals), and their settings: lists created when
Mailman first archives into them, their name, description and archive policy kept as Mailman
core has them (`archive lists sync`)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import COUNT, Listing, Page
from sathub.archive.tables import READABLE_LIST, mailing_lists, threads
from sathub.db.dialect import insert_ignoring_conflicts

# The columns Mailman's settings fill (mailman/list_settings.py reads them from its REST API).
SETTING_COLUMNS = ("display_name", "description", "subject_prefix", "archive_policy", "created_at")

_FIND = sa.select(mailing_lists).where(mailing_lists.c.name == sa.bindparam("name"))


def find_list(conn: Connection, name: str) -> Row | None:
    """The list of posting address `name` (any case: addresses are stored lowercase), every column."""
    return conn.execute(_FIND, {"name": name.lower()}).first()


def public_lists_by_local_part(conn: Connection, local_part: str) -> Sequence[Row]:
    """The lists that are not private whose posting address is `<local_part>@…` (a Mailman 2 list
    name), by name. A private list is never among them: it would shadow a public list of its name,
    or name itself to whoever guesses its local part."""
    return conn.execute(
        sa.select(mailing_lists.c.id, mailing_lists.c.name)
        .where(
            mailing_lists.c.name.startswith(local_part.lower() + "@", autoescape=True),
            READABLE_LIST,
        )
        .order_by(mailing_lists.c.name)
    ).all()


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


# The public lists ------------------------------------------------------------------------------

_PUBLIC_LISTS = Listing(sa.select(mailing_lists), (READABLE_LIST,), (mailing_lists.c.name,))
_COUNT_PUBLIC_LISTS = sa.select(COUNT).select_from(mailing_lists).where(READABLE_LIST)
# Totals from `threads.emails_count`: summing a list's threads reads one row per thread, not one
# per email.
_LIST_TOTALS = (
    sa.select(
        threads.c.list_id,
        sa.func.sum(threads.c.emails_count).label("emails_count"),
        sa.func.max(threads.c.date_active).label("last_active"),
    )
    .group_by(threads.c.list_id)
    .subquery("totals")
)
_PUBLIC_LISTS_WITH_TOTALS = (
    sa.select(
        mailing_lists.c.name,
        mailing_lists.c.display_name,
        mailing_lists.c.description,
        sa.func.coalesce(_LIST_TOTALS.c.emails_count, 0).label("emails_count"),
        _LIST_TOTALS.c.last_active,
    )
    .select_from(mailing_lists.outerjoin(_LIST_TOTALS, _LIST_TOTALS.c.list_id == mailing_lists.c.id))
    .where(READABLE_LIST)
    .order_by(mailing_lists.c.name)
)


def public_lists(conn: Connection, page: Page | None) -> Sequence[Row]:
    return _PUBLIC_LISTS.all(conn, page)


def count_public_lists(conn: Connection) -> int:
    return conn.execute(_COUNT_PUBLIC_LISTS).scalar_one()


def public_lists_with_totals(conn: Connection) -> Sequence[Row]:
    """Every list but the private ones, by name: name, display_name, description, emails_count
    (0 without mail), last_active (the newest thread activity; None without mail)."""
    return conn.execute(_PUBLIC_LISTS_WITH_TOTALS).all()
