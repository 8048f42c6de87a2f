"""`reports.visible`, given in the writing transaction by every door (store_submitted for the API and
the form, store_imported for import-legacy), on SQLite and PostgreSQL. The expected verdicts come
from skyfield (tests/status/orbits/sky_reference.py: a grid of points over the square, every 5 s
of the slot), for cases chosen well away from the horizon."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import sqlalchemy as sa
from sgp4.api import Satrec

from sathub import db
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import catalog, elements
from sathub.status.store.writes import store_imported, store_submitted
from sathub.status.tables import reports
from tests.status.orbits import samples
from tests.status.orbits.sky_reference import skyfield_verdict, square_from

DAY = samples.EPOCH.date()  # the elements' epoch day: 2026-11-28
CATALOG = [
    {"name": "ISS-FM", "norad_id": "25544"},
    {"name": "QO-100_[NB]", "norad_id": "43700"},
    {"name": "SO-50", "norad_id": "27607"},  # a number, and no elements loaded for it
    {"name": "NO-NUMBER"},
]
LOADED = (samples.ISS, samples.QO_100)


def element_sets(tles=LOADED) -> list[tuple[ElementSet, str]]:
    return [(ElementSet.from_satrec(Satrec.twoline2rv(line1, line2), name), "tle") for name, line1, line2 in tles]


@pytest.fixture
def skies(engine):
    with db.connect(engine, write=True) as conn:
        catalog.load_catalog(conn, CATALOG)
        elements.save_element_sets(conn, element_sets())
    return engine


# (name, TLE, hour, period, degrees north and east of the ground point, locator length)
CASES = [
    ("ISS-FM", samples.ISS, 6, 1, 0, 0, 4),  # under it
    ("ISS-FM", samples.ISS, 6, 1, 3, -8, 6),
    ("ISS-FM", samples.ISS, 6, 1, 0, 180, 4),  # the far side of the Earth
    ("ISS-FM", samples.ISS, 17, 3, 30, 25, 4),
    ("QO-100_[NB]", samples.QO_100, 9, 0, 30, 20, 4),  # under a geostationary satellite, all day
    ("QO-100_[NB]", samples.QO_100, 21, 2, -40, -30, 6),
    ("QO-100_[NB]", samples.QO_100, 9, 0, 0, 180, 4),  # never seen from there
]


def report(name: str, grid: str | None, day: date = DAY, hour: int = 6, period: int = 1, callsign="W1AW") -> dict:
    return dict(name=name, day=day, hour=hour, period=period, callsign=callsign, report="Heard", grid_square=grid)


def visible_by_callsign(engine) -> dict[str, bool | None]:
    with engine.connect() as conn:
        return dict(conn.execute(sa.select(reports.c.callsign, reports.c.visible)).all())


def cases() -> tuple[list[dict], dict[str, bool]]:
    rows, expected = [], {}
    for number, (name, tle, hour, period, north, east, length) in enumerate(CASES):
        grid = square_from(tle, DAY, hour, period, north, east, length)
        rows.append(report(name, grid, DAY, hour, period, callsign=f"W{number}AW"))
        expected[f"W{number}AW"] = skyfield_verdict(tle, grid, DAY, hour, period)
    assert set(expected.values()) == {True, False}
    return rows, expected


def test_each_stored_report_gets_the_verdict_skyfield_finds(skies):
    rows, expected = cases()
    with db.connect(skies, write=True) as conn:
        store_submitted(conn, rows)
    assert visible_by_callsign(skies) == expected


def test_null_when_it_cannot_be_told(skies):
    far_from_epoch = date.fromordinal(DAY.toordinal() + 8)  # the default age is 7 days
    grid = square_from(samples.ISS, DAY, 6, 1, 0, 0)
    with db.connect(skies, write=True) as conn:
        store_submitted(
            conn,
            [
                report("ISS-FM", "", callsign="K1NOGRID"),
                report("NO-NUMBER", grid, callsign="K1NONUMBER"),
                report("SO-50", grid, callsign="K1NOELEMENTS"),
                report("ISS-FM", grid, day=far_from_epoch, callsign="K1TOOOLD"),
                report("ISS-FM", grid, callsign="K1PLAUSIBLE"),
            ],
        )
        store_imported(conn, [report("UNKNOWN-SAT", grid, callsign="K1UNKNOWN") | {"grid_square": None}])
    assert visible_by_callsign(skies) == {
        "K1NOGRID": None,
        "K1NONUMBER": None,
        "K1NOELEMENTS": None,
        "K1TOOOLD": None,
        "K1PLAUSIBLE": True,
        "K1UNKNOWN": None,
    }


def test_the_age_limit_is_the_setting(skies, monkeypatch):
    grid = square_from(samples.QO_100, DAY, 9, 0, 30, 20)
    later = date.fromordinal(DAY.toordinal() + 12)
    monkeypatch.setenv("SATHUB_ELEMENTS_MAX_AGE_DAYS", "14")
    with db.connect(skies, write=True) as conn:  # read when the revisions move: move one
        catalog.load_catalog(conn, [{"name": "AO-91", "norad_id": "43017"}])
    with db.connect(skies, write=True) as conn:
        store_submitted(conn, [report("QO-100_[NB]", grid, day=later, hour=9, period=0)])
    assert visible_by_callsign(skies) == {"W1AW": True}


def test_a_replacement_takes_its_own_verdict(skies):
    seen = square_from(samples.QO_100, DAY, 9, 0, 30, 20)
    unseen = square_from(samples.QO_100, DAY, 9, 0, 0, 180)
    for grid, expected in ((seen, True), (unseen, False), ("", None)):
        with db.connect(skies, write=True) as conn:
            store_submitted(conn, [report("QO-100_[NB]", grid, hour=9, period=0)])
        assert visible_by_callsign(skies) == {"W1AW": expected}


def test_imports_get_verdicts_and_an_unchanged_report_keeps_its_own(skies):
    rows, expected = cases()
    with db.connect(skies, write=True) as conn:
        store_imported(conn, rows)
    assert visible_by_callsign(skies) == expected
    with db.connect(skies, write=True) as conn:
        conn.execute(sa.update(reports).values(visible=None))
        assert store_imported(conn, rows).unchanged == len(rows)
    assert set(visible_by_callsign(skies).values()) == {None}


def test_a_load_or_a_catalog_change_elsewhere_is_seen_by_the_next_write(engine):
    """Another process stands as another engine on the same database: it shares no Python state."""
    grid = square_from(samples.ISS, DAY, 6, 1, 0, 0)
    other = db.create_engine(engine.url.render_as_string(hide_password=False))
    try:
        with db.connect(engine, write=True) as conn:
            catalog.load_catalog(conn, CATALOG)
            store_submitted(conn, [report("ISS-FM", grid, callsign="K1BEFORE")])
        with db.connect(other, write=True) as conn:
            elements.save_element_sets(conn, element_sets())
        with db.connect(engine, write=True) as conn:
            store_submitted(conn, [report("ISS-FM", grid, callsign="K1AFTER")])
        with db.connect(other, write=True) as conn:
            elements.set_norad_id(conn, "ISS-FM", None)
        with db.connect(engine, write=True) as conn:
            store_submitted(conn, [report("ISS-FM", grid, callsign="K1UNNUMBERED")])
    finally:
        other.dispose()
    assert visible_by_callsign(engine) == {"K1BEFORE": None, "K1AFTER": True, "K1UNNUMBERED": None}


# -- from every door --------------------------------------------------------------------------------


def door_cases() -> list[tuple[str, datetime, bool]]:
    """(grid square, moment, skyfield's verdict): QO-100 over two squares, one under it."""
    moment = datetime(DAY.year, DAY.month, DAY.day, 9, 7, tzinfo=UTC)
    grids = [square_from(samples.QO_100, DAY, 9, 0, north, east) for north, east in ((30, 20), (0, 180))]
    return [(grid, moment, skyfield_verdict(samples.QO_100, grid, DAY, 9, 0)) for grid in grids]


def test_the_api_post_stores_the_verdict_and_version_1_never_shows_it(skies, client):
    for number, (grid, moment, _expected) in enumerate(door_cases()):
        body = {
            "name": "QO-100_[NB]",
            "report": "Heard",
            "callsign": f"W{number}AW",
            "grid_square": grid,
            "reported_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        answer = client.post("/api/v1/reports.php", json=body)
        assert answer.status_code == 201, answer.text
        assert "visible" not in answer.text
    expected = {f"W{number}AW": verdict for number, (_, _, verdict) in enumerate(door_cases())}
    assert visible_by_callsign(skies) == expected
    listed = client.get("/api/v1/reports.php?since=2026-11-27")
    assert listed.json()["meta"]["count"] == 2 and "visible" not in listed.text


def test_the_form_stores_the_verdict(skies, client):
    for number, (grid, moment, _expected) in enumerate(door_cases()):
        fields = {
            "SatSubmit": "yes",
            "Confirm": "yes",
            "SatName": "QO-100_[NB]",
            "SatReport": "Heard",
            "SatYear": str(moment.year),
            "SatMonth": f"{moment.month:02d}",
            "SatDay": f"{moment.day:02d}",
            "SatHour": f"{moment.hour:02d}",
            "SatPeriod": "0",
            "SatCall": f"W{number}AW",
            "SatGridSquare": grid,
        }
        answer = client.post("/submit.php", data=fields)
        assert "Thank you for your submission" in answer.text
    assert visible_by_callsign(skies) == {f"W{n}AW": verdict for n, (_, _, verdict) in enumerate(door_cases())}


def test_import_legacy_stores_the_verdict(skies, tmp_path):
    from sathub.status.migrate import importer

    lines = ["id,name,longname,day,hour,period,callsign,report,grid_square,upmode,downmode"]
    for number, (grid, _moment, _expected) in enumerate(door_cases()):
        lines.append(f"{number + 1},QO-100_[NB],,{DAY.isoformat()},9,0,W{number}AW,Heard,{grid},,")
    source = tmp_path / "satellite.csv"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    importer.run(skies, str(source))
    assert visible_by_callsign(skies) == {f"W{n}AW": verdict for n, (_, _, verdict) in enumerate(door_cases())}
