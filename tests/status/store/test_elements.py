"""The elements' SQL on both backends: a satellite's newest set is its current one, older ones its
history; the elements revision moves only when a load adds a set; the refresh's lease is claimed
by one caller at a time, and row 1 made again when it is missing."""

from __future__ import annotations

import dataclasses

import sqlalchemy as sa
from sgp4.api import Satrec

from sathub import db
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import catalog
from sathub.status.store import elements as store
from sathub.status.tables import orbit_refresh
from tests.status.orbits import samples

DAY = 86400.0


def element_set(sample, days_later: float = 0.0) -> ElementSet:
    name, line1, line2 = sample
    found = ElementSet.from_satrec(Satrec.twoline2rv(line1, line2), name)
    return dataclasses.replace(found, epoch=found.epoch + days_later * DAY)


def with_catalog(engine) -> None:
    with db.connect(engine, write=True) as conn:
        catalog.load_catalog(
            conn,
            [
                {"name": "AO-7_[U/v]", "norad_id": "7530"},
                {"name": "AO-7_[V/a]", "norad_id": "7530"},
                {"name": "ISS-FM", "norad_id": "25544"},
                {"name": "NO-NUMBER"},
            ],
        )


def test_the_newest_epoch_is_current_and_older_ones_history(engine):
    iss, ao_7 = samples.ISS, samples.AO_7
    with db.connect(engine, write=True) as conn:
        before = store.elements_revision(conn)
        added = store.save_element_sets(
            conn, [(element_set(iss), "tle"), (element_set(iss, 1), "omm"), (element_set(ao_7, -2), "tle")]
        )
        assert added == 3
        assert store.elements_revision(conn) == before + 1
    with db.connect(engine) as conn:
        current = store.current_element_sets(conn)
        assert set(current) == {25544, 7530}
        assert current[25544] == element_set(iss, 1)  # the set as it was saved, every field
        assert current[7530].epoch == samples.EPOCH.timestamp() - 2 * DAY
        assert store.current_element_sets(conn, [7530, 99999]) == {7530: element_set(ao_7, -2)}
        history = store.element_history(conn, 25544)
        assert [found.epoch for found in history] == [element_set(iss, 1).epoch, element_set(iss).epoch]
        assert store.element_history(conn, 99999) == []


def test_the_revision_moves_only_when_a_set_is_added(engine):
    with db.connect(engine, write=True) as conn:
        store.save_element_sets(conn, [(element_set(samples.SO_50), "tle")])
        revision = store.elements_revision(conn)
        assert store.save_element_sets(conn, [(element_set(samples.SO_50), "omm")]) == 0
        assert store.save_element_sets(conn, []) == 0
        assert store.elements_revision(conn) == revision
        kept = store.element_history(conn, 27607)
        assert len(kept) == 1
        # the same satellite and epoch twice in one load: one row, counted once
        assert store.save_element_sets(conn, [(element_set(samples.SO_50, 1), "tle")] * 2) == 1
        assert store.elements_revision(conn) == revision + 1


def test_norad_numbers_of_the_catalog(engine):
    with_catalog(engine)
    with db.connect(engine, write=True) as conn:
        assert store.norad_ids_by_name(conn) == {"AO-7_[U/v]": 7530, "AO-7_[V/a]": 7530, "ISS-FM": 25544}
        assert store.set_norad_id(conn, "iss-fm", None) is True
        assert store.set_norad_id(conn, "NO-SUCH", 5) is False
        assert store.set_norad_id(conn, "NO-NUMBER", 43017) is True
        store.save_element_sets(conn, [(element_set(samples.AO_7), "tle")])
        assert store.named_element_sets(conn) == [
            ("AO-7_[U/v]", 7530, element_set(samples.AO_7)),
            ("AO-7_[V/a]", 7530, element_set(samples.AO_7)),
            ("NO-NUMBER", 43017, None),
        ]


def test_the_refresh_lease_is_claimed_once_until_it_falls_due(engine):
    """The fixture empties every table, row 1 included: the first claim makes it again."""
    with db.connect(engine, write=True) as conn:
        assert store.refresh_state(conn) is None
        assert store.claim_refresh(conn, 1000, 600) == (True, 1600)
        assert store.claim_refresh(conn, 1599, 600) == (False, 1600)
        assert store.claim_refresh(conn, 1600, 600) == (True, 2200)  # a holder that died is replaced
        store.refresh_succeeded(conn, 1700, 1700 + 21600)
        state = store.refresh_state(conn)
        assert (state.next_due, state.last_success, state.last_error, state.failures) == (23300, 1700, None, 0)
        assert store.claim_refresh(conn, 23300, 600) == (True, 23900)
        assert store.refresh_failed(conn, "x" * 5000) == 1
        assert store.refresh_failed(conn, "answered 500") == 2
        store.set_refresh_due(conn, 24000)
        state = store.refresh_state(conn)
        assert (state.next_due, state.last_success, state.last_error, state.failures) == (
            24000,
            1700,
            "answered 500",
            2,
        )
        conn.execute(orbit_refresh.delete())


def test_a_failures_reason_is_kept_short(engine):
    with db.connect(engine, write=True) as conn:
        store.claim_refresh(conn, 1000, 600)
        store.refresh_failed(conn, "x" * 5000)
        stored = conn.execute(sa.select(orbit_refresh.c.last_error)).scalar_one()
    assert stored == "x" * store.ERROR_TEXT_LIMIT
