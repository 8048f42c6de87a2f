"""The SQL of the satellite catalog: entries, their retired names (aliases), and the changes the
CLI, the admin pages and the legacy import make. Reports are never touched here."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from functools import cache

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sathub.db.dialect import MAX_INTEGER
from sathub.db.group_commit import transaction_memo
from sathub.status.rules import is_web_url
from sathub.status.store.text import db_text, folded
from sathub.status.tables import report_totals, satellite_aliases, satellites

_entry_columns = (satellites.c.id, satellites.c.api_name, satellites.c.display_name, satellites.c.website)
_by_display_name = (sa.func.lower(satellites.c.display_name), satellites.c.id)


def _id_is(satellite_id: int):
    """The entry of an id, none for an id beyond the column's 32 bits: PostgreSQL would refuse such
    a parameter ('integer out of range', a 500) where an id it can hold just finds nothing."""
    return satellites.c.id == satellite_id if -MAX_INTEGER - 1 <= satellite_id <= MAX_INTEGER else sa.false()


def _api_name_is(name: str):
    return sa.func.lower(satellites.c.api_name) == folded(name)


def catalog_is_empty(conn: Connection) -> bool:
    return conn.execute(sa.select(satellites.c.id).limit(1)).first() is None


def catalog(conn: Connection, name: str | None = None, with_stats: bool = False) -> Sequence[sa.Row]:
    """Entries (id, api_name, display_name, website) ordered by display name (case-insensitive),
    optionally those matching `name` by API or display name, with report totals when asked."""
    columns = list(_entry_columns)
    source: sa.FromClause = satellites
    if with_stats:
        source = satellites.outerjoin(report_totals, report_totals.c.name_key == sa.func.lower(satellites.c.api_name))
        columns += [report_totals.c.report_count, report_totals.c.latest_day, report_totals.c.latest_hour]
    query = sa.select(*columns).select_from(source)
    if name is not None:
        key = folded(name)
        query = query.where(
            sa.or_(sa.func.lower(satellites.c.api_name) == key, sa.func.lower(satellites.c.display_name) == key)
        )
    return conn.execute(query.order_by(*_by_display_name)).all()


def entry(conn: Connection, satellite_id: int) -> sa.Row | None:
    """The entry of an id, with its NORAD number."""
    return conn.execute(sa.select(*_entry_columns, satellites.c.norad_id).where(_id_is(satellite_id))).first()


def entry_named(conn: Connection, api_name: str) -> sa.Row | None:
    """The entry of an API name (case-insensitive)."""
    return conn.execute(sa.select(*_entry_columns).where(_api_name_is(api_name))).first()


def resolve_api_name(conn: Connection, name: str, *, display_names: bool = True) -> str | None:
    """The API name a submission's satellite name stores under, case-insensitively: an API name,
    a display name (not on the legacy form, which passes display_names=False) or a retired alias."""
    return conn.execute(_resolution(display_names), {"name": db_text(name)}).scalar()


def memoized_resolver(conn: Connection, catalog_revision: int) -> Callable[[Connection, str], str | None]:
    """resolve_api_name, asked once per name in this process while its database's catalog stays
    at `catalog_revision` (read in the caller's shared write transaction): a burst names a
    handful of satellites, and asked once per name and transaction they were 4-5 statements of
    each transaction of a 64-connection POST burst on PostgreSQL (0.4 ms each). Outside a shared
    transaction, resolve_api_name."""
    if transaction_memo() is None:  # not in a shared transaction: nothing to share
        return resolve_api_name
    with _resolved_lock:
        revision, kept = _resolved.get(conn.engine, (None, {}))
        if revision != catalog_revision:
            kept = {}
            _resolved[conn.engine] = (catalog_revision, kept)

    def resolve(conn: Connection, name: str) -> str | None:
        if name not in kept:
            if len(kept) >= _RESOLVED_LIMIT:  # names are the clients' text: keep no more than this
                kept.clear()
            kept[name] = resolve_api_name(conn, name)
        return kept[name]

    return resolve


# The names resolved at the latest catalog revision seen, by database.
_resolved: weakref.WeakKeyDictionary[Engine, tuple[int, dict[str, str | None]]] = weakref.WeakKeyDictionary()
_resolved_lock = threading.Lock()
_RESOLVED_LIMIT = 1024


@cache
def _resolution(display_names: bool):
    """Built once: every write resolves its name first."""
    key = sa.func.lower(sa.bindparam("name", type_=sa.String))
    matches = [sa.func.lower(satellites.c.api_name) == key]
    if display_names:
        matches.append(sa.func.lower(satellites.c.display_name) == key)
    direct = sa.select(satellites.c.api_name, sa.literal(0).label("rank")).where(sa.or_(*matches))
    via_alias = (
        sa.select(satellites.c.api_name, sa.literal(1).label("rank"))
        .select_from(satellite_aliases.join(satellites))
        .where(sa.func.lower(satellite_aliases.c.alias) == key)
    )
    union = sa.union_all(direct, via_alias).subquery()
    return sa.select(union.c.api_name).order_by(union.c.rank).limit(1)


def api_name_taken(conn: Connection, api_name: str, except_id: int | None = None) -> bool:
    query = sa.select(satellites.c.id).where(_api_name_is(api_name))
    if except_id is not None:
        query = query.where(sa.not_(_id_is(except_id)))
    return conn.execute(query.limit(1)).first() is not None


def catalog_with_aliases(conn: Connection) -> list[dict]:
    rows = conn.execute(
        sa.select(*_entry_columns, satellites.c.norad_id, satellite_aliases.c.alias)
        .select_from(satellites.outerjoin(satellite_aliases))
        .order_by(*_by_display_name, satellite_aliases.c.alias)
    ).all()
    entries: dict[int, dict] = {}
    for row in rows:
        found = entries.setdefault(
            row.id,
            {
                "api_name": row.api_name,
                "display_name": row.display_name,
                "website": row.website,
                "norad_id": row.norad_id,
                "aliases": [],
            },
        )
        if row.alias:
            found["aliases"].append(row.alias)
    return list(entries.values())


def catalog_entries(conn: Connection) -> tuple[Sequence[sa.Row], dict[int, list[str]]]:
    """Every catalog entry (id, api_name, display_name, website, report_count, latest_day,
    latest_hour) by display name as the status page's list, and each entry's retired names."""
    entries = conn.execute(
        sa.select(
            satellites.c.id,
            satellites.c.api_name,
            satellites.c.display_name,
            satellites.c.website,
            sa.func.coalesce(report_totals.c.report_count, 0).label("report_count"),
            report_totals.c.latest_day,
            report_totals.c.latest_hour,
        )
        .select_from(
            satellites.outerjoin(report_totals, report_totals.c.name_key == sa.func.lower(satellites.c.api_name))
        )
        .order_by(sa.func.lower(satellites.c.display_name), satellites.c.id)
    ).all()
    aliases: dict[int, list[str]] = {}
    for alias, satellite_id in conn.execute(
        sa.select(satellite_aliases.c.alias, satellite_aliases.c.satellite_id).order_by(
            sa.func.lower(satellite_aliases.c.alias)
        )
    ):
        aliases.setdefault(satellite_id, []).append(alias)
    return entries, aliases


def norad_number(text: str) -> int | None:
    """A NORAD number as a catalog file, the command line or the admin form gives it: a positive
    whole number the column holds; None for anything else (an empty text included)."""
    text = text.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(MAX_INTEGER))):
        return None  # int() of thousands of digits would raise
    return int(text) if 0 < int(text) <= MAX_INTEGER else None


def load_catalog(conn: Connection, rows: list[dict]) -> int:
    """Insert or update entries keyed by API name (case-insensitive); returns how many were written.
    A website that is not an http(s) URL is stored empty; a `norad_id` that is not a positive
    number is left out (docs/orbits.md)."""
    written = 0
    for row in rows:
        api_name = db_text((row.get("name") or "").strip())
        if not api_name:
            continue
        website = (row.get("website") or "").strip()
        values: dict[str, str | int] = {
            "display_name": db_text((row.get("display_name") or api_name).strip()),
            "website": db_text(website) if is_web_url(website) else "",
        }
        norad_id = norad_number(row.get("norad_id") or "")
        if norad_id is not None:
            values["norad_id"] = norad_id  # a catalog without the column leaves the numbers be
        updated = conn.execute(satellites.update().where(_api_name_is(api_name)).values(**values)).rowcount
        if not updated:
            conn.execute(satellites.insert().values(api_name=api_name, **values))
        written += 1
    return written


def create(conn: Connection, display_name: str, api_name: str, website: str) -> None:
    """A new entry; an alias of the same name is dropped, since the name is current again."""
    remove_alias(conn, api_name)
    conn.execute(satellites.insert().values(api_name=api_name, display_name=display_name, website=website))


def update(conn: Connection, satellite_id: int, display_name: str, api_name: str, website: str) -> None:
    """Change an entry; a renamed API name stays accepted from older apps as an alias."""
    before = entry(conn, satellite_id)
    remove_alias(conn, api_name)
    conn.execute(
        satellites.update()
        .where(_id_is(satellite_id))
        .values(api_name=api_name, display_name=display_name, website=website)
    )
    if before is not None and before.api_name.lower() != api_name.lower():
        conn.execute(satellite_aliases.insert().values(alias=before.api_name, satellite_id=satellite_id))


def delete(conn: Connection, satellite_id: int) -> None:
    """Delete an entry (its aliases go with it; its reports stay)."""
    conn.execute(satellites.delete().where(_id_is(satellite_id)))


def remove_satellite(conn: Connection, name: str) -> bool:
    """Delete the entry of an API name (its aliases go with it; its reports stay)."""
    return conn.execute(satellites.delete().where(_api_name_is(name))).rowcount > 0


def load_aliases(conn: Connection, rows: list[dict]) -> int:
    """Add the aliases whose target is in the catalog and that are not themselves API names."""
    added = 0
    for row in rows:
        if add_alias(conn, row["alias"].strip(), row["name"].strip(), replace=False) is None:
            added += 1
    return added


def add_alias(conn: Connection, alias: str, name: str, replace: bool = True) -> str | None:
    """Point `alias` at satellite `name`; returns an error sentence, or None when done."""
    target = conn.execute(sa.select(satellites.c.id).where(_api_name_is(name))).scalar()
    if target is None:
        return f"No satellite named {name!r}."
    if conn.execute(sa.select(satellites.c.id).where(_api_name_is(alias))).first():
        return f"{alias!r} is a current API name, not a retired one."
    existing = conn.execute(
        sa.select(satellite_aliases.c.alias).where(sa.func.lower(satellite_aliases.c.alias) == folded(alias))
    ).scalar()
    if existing is not None:
        if not replace:
            return f"{alias!r} is already an alias."
        conn.execute(satellite_aliases.delete().where(satellite_aliases.c.alias == existing))
    conn.execute(satellite_aliases.insert().values(alias=alias, satellite_id=target))
    return None


def remove_alias(conn: Connection, alias: str) -> bool:
    return (
        conn.execute(
            satellite_aliases.delete().where(sa.func.lower(satellite_aliases.c.alias) == folded(alias))
        ).rowcount
        > 0
    )
