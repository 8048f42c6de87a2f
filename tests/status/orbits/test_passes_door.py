"""GET /api/v2/passes through the app, on SQLite and PostgreSQL: the passes against skyfield,
one entry per NORAD number with its modes' current status, geostationary satellites, the reasons
a satellite is left out, v2's 400s, and the ETag and the caches' revisions."""

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from sgp4.api import Satrec
from skyfield.api import EarthSatellite, load, wgs84
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.status import times
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import elements as elements_store
from tests.status.orbits import samples
from tests.status.seed import seed_catalog, set_visible, store_report

NOW = samples.EPOCH + timedelta(hours=6, seconds=17)
CATALOG = [
    {"name": "AO-91", "display_name": "AO-91 FM", "website": "", "norad_id": "43017"},
    {"name": "AO-7_[U/v]", "display_name": "AO-7 U/v", "website": "", "norad_id": "7530"},
    {"name": "AO-7_[V/a]", "display_name": "AO-7 V/a", "website": "", "norad_id": "7530"},
    {"name": "QO-100_[NB]", "display_name": "QO-100 NB", "website": "", "norad_id": "43700"},
    {"name": "SO-50", "display_name": "SO-50", "website": "", "norad_id": "27607"},
    {"name": "JO-97", "display_name": "JO-97", "website": "", "norad_id": "43803"},
    {"name": "FO-29", "display_name": "FO-29", "website": ""},
]


def element_sets(sets):
    return [(ElementSet.from_satrec(Satrec.twoline2rv(l1, l2), name), "tle") for name, l1, l2 in sets]


@pytest.fixture
def loaded(engine, monkeypatch):
    monkeypatch.setattr(times, "utc_now", lambda: NOW)
    seed_catalog(engine, CATALOG)
    with db.connect(engine, write=True) as conn:
        elements_store.save_element_sets(
            conn, element_sets((samples.AO_91, samples.AO_7, samples.QO_100, samples.SO_50))
        )
    return engine


def test_passes_of_every_satellite_sorted_by_rise_agree_with_skyfield(client, loaded):
    response = client.get("/api/v2/passes", params={"grid": "FN31pr", "min_elevation": "10"})
    assert response.status_code == 200
    answer = response.json()
    assert answer["meta"]["start"] == "2026-11-28T06:00:00Z" and answer["meta"]["end"] == "2026-11-29T06:00:00Z"
    rises = [p["rise"] for p in answer["data"]]
    assert rises == sorted(rises) and {p["norad_id"] for p in answer["data"]} == {43017, 7530, 27607}
    timescale = load.timescale()
    place = wgs84.latlon(answer["meta"]["latitude"], answer["meta"]["longitude"])
    name, line1, line2 = samples.AO_91
    start, end = (timescale.from_datetime(NOW.replace(second=0) + timedelta(hours=h)) for h in (0, 24))
    event_times, events = EarthSatellite(line1, line2, name, timescale).find_events(place, start, end, 10)
    expected = [t.utc_datetime() for t in event_times]
    ours = [p for p in answer["data"] if p["norad_id"] == 43017]
    assert len(ours) * 3 == len(expected) and list(events) == [0, 1, 2] * len(ours)
    for found, (rise, culmination, set_) in zip(ours, zip(*[iter(expected)] * 3, strict=True), strict=True):
        for key, when in (("rise", rise), ("culmination", culmination), ("set", set_)):
            assert abs(datetime.fromisoformat(found[key]) - when) < timedelta(seconds=10)
        assert found["max_elevation"] >= 10 and not found["in_progress"]


def test_modes_of_one_satellite_share_a_pass_each_with_its_status(client, loaded):
    store_report(loaded, "AO-7_[U/v]", NOW - timedelta(minutes=30), report="Heard")
    store_report(loaded, "AO-7_[V/a]", NOW - timedelta(minutes=30), report="Not Heard")
    answer = client.get("/api/v2/passes", params={"grid": "JO62", "name": "AO-7 U/v,AO-7_[V/a]"}).json()
    assert answer["data"] and {p["norad_id"] for p in answer["data"]} == {7530}
    assert answer["data"][0]["satellites"] == [
        {
            "name": "AO-7_[U/v]",
            "display_name": "AO-7 U/v",
            "status": "heard",
            "latest_report_time": "2026-11-28T05:30:00Z",
        },
        {
            "name": "AO-7_[V/a]",
            "display_name": "AO-7 V/a",
            "status": "not_heard",
            "latest_report_time": "2026-11-28T05:30:00Z",
        },
    ]


@pytest.mark.parametrize(("grid", "where"), [("JO62", "always_above"), ("FN31", "always_below")])
def test_a_geostationary_satellite_is_always_above_or_below(client, loaded, grid, where):
    answer = client.get("/api/v2/passes", params={"grid": grid, "name": "QO-100_[NB]", "hours": "72"}).json()
    assert answer["data"] == []
    assert [s["norad_id"] for s in answer["meta"][where]] == [43700]


def test_satellites_without_elements_or_with_old_ones_are_left_out_with_a_reason(client, loaded, monkeypatch):
    answer = client.get("/api/v2/passes", params={"grid": "FN31", "name": ["FO-29", "JO-97", "AO-91"]}).json()
    assert answer["meta"]["left_out"] == [
        {"name": "FO-29", "reason": "no_norad_id"},
        {"name": "JO-97", "reason": "no_elements"},
    ]
    monkeypatch.setattr(times, "utc_now", lambda: NOW + timedelta(days=14))
    answer = client.get("/api/v2/passes", params={"grid": "FN31", "name": "AO-91"}).json()
    assert answer["data"] == []
    assert answer["meta"]["left_out"] == [
        {"name": "AO-91", "reason": "elements_too_old", "elements_epoch": "2026-11-28T00:00:00Z"}
    ]


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ({}, "invalid_grid_square"),
        ({"grid": ""}, "invalid_parameter"),  # blank, as every v2 parameter
        ({"grid": "ZZ99"}, "invalid_grid_square"),
        ({"grid": ["FN31", "JO62"]}, "invalid_parameter"),
        ({"grid": "FN31", "hours": "73"}, "invalid_parameter"),
        ({"grid": "FN31", "hours": "0"}, "invalid_parameter"),
        ({"grid": "FN31", "hours": ["2", "3"]}, "invalid_parameter"),
        ({"grid": "FN31", "hours": "1e3"}, "invalid_parameter"),
        ({"grid": "FN31", "min_elevation": "91"}, "invalid_parameter"),
        ({"grid": "FN31", "min_elevation": "-1"}, "invalid_parameter"),
        ({"grid": "FN31", "min_elevation": "1.5"}, "invalid_parameter"),
        ({"grid": "FN31", "name": "AO-91,,SO-50"}, "invalid_parameter"),
        ({"grid": "FN31", "name": "nope"}, "satellite_not_found"),
    ],
)
def test_bad_questions_are_400_in_v2_envelope(client, loaded, query, code):
    response = client.get("/api/v2/passes", params=query)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code and response.json()["error"]["status"] == 400


def test_etag_304_and_new_elements_are_seen_within_the_minute(client, loaded):
    query = {"grid": "FN31pr", "name": "SO-50"}
    first = client.get("/api/v2/passes", params=query)
    assert first.headers["cache-control"] == "public, max-age=60"
    again = client.get("/api/v2/passes", params=query, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    newer = samples.tle(
        27607,
        "SO-50",
        inclination=64.55,
        raan=210.0,
        eccentricity=0.0069,
        perigee=150.0,
        anomaly=210.0,
        revolutions_per_day=14.80,
        epoch=samples.EPOCH + timedelta(hours=1),
    )
    with db.connect(loaded, write=True) as conn:
        elements_store.save_element_sets(conn, element_sets([newer]))
    moved = client.get("/api/v2/passes", params=query, headers={"If-None-Match": first.headers["etag"]})
    assert moved.status_code == 200 and moved.json()["data"][0]["elements_epoch"] == "2026-11-28T01:00:00Z"
    assert moved.json()["data"] != first.json()["data"]
    assert datetime.fromisoformat(moved.json()["meta"]["start"]) == NOW.replace(second=0).astimezone(UTC)


@pytest.mark.parametrize(("setting", "status"), [("mark", "heard"), ("exclude", "none")])
def test_an_implausible_report_colours_the_passes_status_as_it_colours_the_grid(
    engine, settings, loaded, setting, status
):
    """SATHUB_STATUS_IMPLAUSIBLE: with `exclude` a report whose satellite was below the reporter's
    horizon does not make a pass's satellite 'heard', as it does not colour /api/v2/status."""
    stored = store_report(loaded, "AO-91", NOW - timedelta(minutes=30), report="Heard")
    set_visible(loaded, stored.id, False)
    app = create_app(dataclasses.replace(settings, status_implausible=setting), engine=engine)
    with TestClient(app, base_url="http://sathub.test") as test_client:
        answer = test_client.get("/api/v2/passes", params={"grid": "FN31pr", "name": "AO-91"}).json()
    assert answer["data"] and {s["status"] for p in answer["data"] for s in p["satellites"]} == {status}
