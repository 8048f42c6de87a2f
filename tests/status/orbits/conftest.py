"""What the elements' loading, refresh and command tests share: a catalog of the sample
satellites, and the sets stored."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from sathub import db
from sathub.status.store import catalog
from sathub.status.tables import orbital_elements

# Eight catalog entries for the seven sample satellites (samples.py): AO-7's two modes share 7530.
CATALOG = [
    ("AO-7_[U/v]", 7530),
    ("AO-7_[V/a]", 7530),
    ("ISS-FM", 25544),
    ("SO-50", 27607),
    ("AO-91", 43017),
    ("FO-29", 24278),
    ("RS-44", 44909),
    ("QO-100_[NB]", 43700),
]


@pytest.fixture
def catalogued(engine):
    """The engine, its catalog the sample satellites and one entry without a NORAD number."""
    with db.connect(engine, write=True) as conn:
        catalog.load_catalog(conn, [{"name": name, "norad_id": str(number)} for name, number in CATALOG])
        catalog.load_catalog(conn, [{"name": "NO-NUMBER"}])
    return engine


def stored(engine) -> list[tuple[int, str]]:
    """(NORAD number, source) of every set stored, by number."""
    with engine.connect() as conn:
        query = sa.select(orbital_elements.c.norad_id, orbital_elements.c.source).order_by(orbital_elements.c.norad_id)
        return [tuple(row) for row in conn.execute(query)]
