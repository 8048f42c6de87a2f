"""The SQL of orbital elements: every set loaded (a satellite's newest epoch is its current set,
older ones its history), the catalog's NORAD numbers, and the elements revision that pass
predictions are cached against."""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db.dialect import insert_for
from sathub.status.orbits.elements import MEAN_ELEMENTS, ElementSet
from sathub.status.store.text import folded
from sathub.status.tables import data_revision, orbital_elements, satellites

_SET_COLUMNS = (orbital_elements.c.norad_id, orbital_elements.c.epoch, *(orbital_elements.c[n] for n in MEAN_ELEMENTS))


def _element_set(row: sa.Row) -> ElementSet:
    return ElementSet(**row._mapping)


def save_element_sets(conn: Connection, sets: list[tuple[ElementSet, str]]) -> int:
    """Store (set, source) pairs, source 'tle' or 'omm'; a set already stored (same satellite and
    epoch) is kept as it was. Returns how many were new; when any was, the elements revision moves."""
    if not sets:
        return 0
    now = int(time.time())
    rows = [
        {
            "norad_id": element_set.norad_id,
            "epoch": element_set.epoch,
            "object_name": element_set.object_name[:255],
            **{name: getattr(element_set, name) for name in MEAN_ELEMENTS},
            "source": source,
            "loaded_at": now,
        }
        for element_set, source in sets
    ]
    statement = insert_for(conn.dialect.name)(orbital_elements).on_conflict_do_nothing()
    added = sum(conn.execute(statement, [row]).rowcount for row in rows)
    if added:
        conn.execute(
            data_revision.update()
            .where(data_revision.c.id == 1)
            .values(elements_revision=data_revision.c.elements_revision + 1)
        )
    return added


def current_element_sets(conn: Connection, norad_ids: list[int] | None = None) -> dict[int, ElementSet]:
    """Each satellite's newest set, by NORAD number (of those given, or all)."""
    newest = sa.select(orbital_elements.c.norad_id, sa.func.max(orbital_elements.c.epoch).label("epoch"))
    if norad_ids is not None:
        newest = newest.where(orbital_elements.c.norad_id.in_(norad_ids))
    newest = newest.group_by(orbital_elements.c.norad_id).subquery()
    query = sa.select(*_SET_COLUMNS, orbital_elements.c.object_name).join(
        newest,
        sa.and_(orbital_elements.c.norad_id == newest.c.norad_id, orbital_elements.c.epoch == newest.c.epoch),
    )
    return {row.norad_id: _element_set(row) for row in conn.execute(query)}


def element_history(conn: Connection, norad_id: int) -> list[ElementSet]:
    """Every set of one satellite, newest first."""
    query = (
        sa.select(*_SET_COLUMNS, orbital_elements.c.object_name)
        .where(orbital_elements.c.norad_id == norad_id)
        .order_by(orbital_elements.c.epoch.desc())
    )
    return [_element_set(row) for row in conn.execute(query)]


def elements_revision(conn: Connection) -> int:
    return conn.execute(sa.select(data_revision.c.elements_revision).where(data_revision.c.id == 1)).scalar_one()


def norad_ids_by_name(conn: Connection) -> dict[str, int]:
    """The API name of every catalog entry that has a NORAD number, with it."""
    query = sa.select(satellites.c.api_name, satellites.c.norad_id).where(satellites.c.norad_id.is_not(None))
    return {row.api_name: row.norad_id for row in conn.execute(query)}


def set_norad_id(conn: Connection, api_name: str, norad_id: int | None) -> bool:
    """Give a catalog entry its NORAD number (None takes it away); False for an unknown name."""
    return bool(
        conn.execute(
            satellites.update()
            .where(sa.func.lower(satellites.c.api_name) == folded(api_name))
            .values(norad_id=norad_id)
        ).rowcount
    )
