"""The SQL of orbital elements: every set loaded (a satellite's newest epoch is its current set,
older ones its history), the catalog's NORAD numbers, the elements revision that pass
predictions are cached against, and the lease of the periodic refresh (orbit_refresh)."""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db.dialect import insert_for
from sathub.db.revision_probe import RevisionProbe
from sathub.status.orbits.elements import MEAN_ELEMENTS, ElementSet
from sathub.status.store.text import folded
from sathub.status.tables import data_revision, orbit_refresh, orbital_elements, satellites

ERROR_TEXT_LIMIT = 1000  # characters of a failed refresh's reason kept

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
    # The rows RETURNING names are the new ones: psycopg's rowcount of this INSERT is -1.
    statement = (
        insert_for(conn.dialect.name)(orbital_elements).on_conflict_do_nothing().returning(orbital_elements.c.norad_id)
    )
    added = len(conn.execute(statement, rows).all())
    if added:
        conn.execute(
            data_revision.update()
            .where(data_revision.c.id == 1)
            .values(elements_revision=data_revision.c.elements_revision + 1)
        )
    return added


def current_element_sets(conn: Connection, norad_ids: list[int] | None = None) -> dict[int, ElementSet]:
    """Each satellite's newest set, by NORAD number (of those given, or all)."""
    epochs = sa.select(orbital_elements.c.norad_id, sa.func.max(orbital_elements.c.epoch).label("epoch"))
    if norad_ids is not None:
        epochs = epochs.where(orbital_elements.c.norad_id.in_(norad_ids))
    newest = epochs.group_by(orbital_elements.c.norad_id).subquery()
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


_ELEMENTS_REVISION = sa.select(data_revision.c.elements_revision).where(data_revision.c.id == 1)


def elements_revision(conn: Connection) -> int:
    return conn.execute(_ELEMENTS_REVISION).scalar_one()


def probed_elements_revision(probe: RevisionProbe) -> int:
    """The elements revision, read on the revision probe's connection, as the data revision is
    before every cached answer (no pooled connection, no worker thread): /api/v2/passes' check."""
    return probe.execute(_ELEMENTS_REVISION, {})[0][0]


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


def named_element_sets(conn: Connection) -> list[tuple[str, int, ElementSet | None]]:
    """Every catalog entry with a NORAD number, by API name: (name, number, its current set or None)."""
    names = norad_ids_by_name(conn)
    current = current_element_sets(conn, sorted(set(names.values())))
    return [(name, norad_id, current.get(norad_id)) for name, norad_id in sorted(names.items(), key=_by_folded_name)]


def _by_folded_name(item: tuple[str, int]) -> str:
    return item[0].lower()


# -- the refresh's lease (orbit_refresh, row 1): one process at a time fetches -----------------------


def claim_refresh(conn: Connection, now: int, hold_seconds: int) -> tuple[bool, int]:
    """Claim the elements refresh when it is due: (True, until when it is held) for the one caller
    whose conditional UPDATE moved next_due, (False, next_due) for everyone else. Row 1 is made
    again when missing (its first maker holds it)."""
    held_until = now + hold_seconds
    claim = (
        orbit_refresh.update()
        .where(orbit_refresh.c.id == 1, orbit_refresh.c.next_due <= now)
        .values(next_due=held_until)
    )
    if conn.execute(claim).rowcount:
        return True, held_until
    next_due = conn.execute(sa.select(orbit_refresh.c.next_due).where(orbit_refresh.c.id == 1)).scalar()
    if next_due is not None:
        return False, next_due
    made = insert_for(conn.dialect.name)(orbit_refresh).on_conflict_do_nothing()
    if conn.execute(made, {"id": 1, "next_due": held_until, "failures": 0}).rowcount:
        return True, held_until
    return False, conn.execute(sa.select(orbit_refresh.c.next_due).where(orbit_refresh.c.id == 1)).scalar_one()


def refresh_succeeded(conn: Connection, now: int, next_due: int) -> None:
    conn.execute(
        orbit_refresh.update()
        .where(orbit_refresh.c.id == 1)
        .values(next_due=next_due, last_success=now, last_error=None, failures=0)
    )


def refresh_failed(conn: Connection, error: str) -> int:
    """Count a failed refresh and keep its reason; returns the failures in a row, this one included."""
    conn.execute(
        orbit_refresh.update()
        .where(orbit_refresh.c.id == 1)
        .values(failures=orbit_refresh.c.failures + 1, last_error=error[:ERROR_TEXT_LIMIT])
    )
    return conn.execute(sa.select(orbit_refresh.c.failures).where(orbit_refresh.c.id == 1)).scalar_one()


def set_refresh_due(conn: Connection, next_due: int) -> None:
    conn.execute(orbit_refresh.update().where(orbit_refresh.c.id == 1).values(next_due=next_due))


def refresh_state(conn: Connection) -> sa.Row | None:
    """The lease's row: next_due, last_success, last_error, failures (None when it is missing)."""
    return conn.execute(sa.select(orbit_refresh).where(orbit_refresh.c.id == 1)).first()
