"""The SQL of catalog administration: entries by id, create, update, delete, and the report
count that decides whether a delete needs confirmation. Reports are never touched here."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.status import store
from sathub.status.tables import reports, satellite_aliases, satellites


def entry(conn: Connection, satellite_id: int) -> sa.Row | None:
    query = (sa.select(satellites.c.id, satellites.c.api_name, satellites.c.display_name, satellites.c.website)
             .where(satellites.c.id == satellite_id))
    return conn.execute(query).first()


def entries(conn: Connection) -> list[sa.Row]:
    query = (sa.select(satellites.c.id, satellites.c.api_name, satellites.c.display_name, satellites.c.website)
             .order_by(sa.func.lower(satellites.c.display_name), satellites.c.id))
    return conn.execute(query).all()


def api_name_taken(conn: Connection, api_name: str, except_id: int | None = None) -> bool:
    query = sa.select(satellites.c.id).where(sa.func.lower(satellites.c.api_name) == store.folded(api_name))
    if except_id is not None:
        query = query.where(satellites.c.id != except_id)
    return conn.execute(query.limit(1)).first() is not None


def create(conn: Connection, display_name: str, api_name: str, website: str) -> None:
    """A new entry; an alias of the same name is dropped, since the name is current again."""
    store.remove_alias(conn, api_name)
    conn.execute(satellites.insert().values(api_name=api_name, display_name=display_name, website=website))


def update(conn: Connection, satellite_id: int, display_name: str, api_name: str, website: str) -> None:
    """Change an entry; a renamed API name stays accepted from older apps as an alias."""
    before = entry(conn, satellite_id)
    store.remove_alias(conn, api_name)
    conn.execute(satellites.update().where(satellites.c.id == satellite_id)
                 .values(api_name=api_name, display_name=display_name, website=website))
    if before is not None and before.api_name.lower() != api_name.lower():
        conn.execute(satellite_aliases.insert().values(alias=before.api_name, satellite_id=satellite_id))


def delete(conn: Connection, satellite_id: int) -> None:
    conn.execute(satellites.delete().where(satellites.c.id == satellite_id))


def report_count(conn: Connection, api_name: str) -> int:
    query = sa.select(sa.func.count()).select_from(reports).where(sa.func.lower(reports.c.name) == store.folded(api_name))
    return conn.execute(query).scalar_one()
