"""The pass section of a satellite's page, through the app on SQLite and PostgreSQL: the passes
over the entered grid square against skyfield's find_events on the same elements, the square
remembered in a cookie and forgotten, a bad square's 400 beside the form, the sentences for a
satellite without a number, elements or fresh elements, a geostationary satellite, and the page's
validators varying with the square, the elements and the minute."""

import html
import re
from datetime import datetime, timedelta

import pytest
from sgp4.api import Satrec
from skyfield.api import EarthSatellite, load, wgs84

from sathub import db
from sathub.status import times
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import elements as elements_store
from tests.status.orbits import samples
from tests.status.seed import seed_catalog, store_report

NOW = samples.EPOCH + timedelta(hours=6, seconds=17)
START = NOW.replace(second=0)  # the window starts at the current minute
CATALOG = [
    {"name": "AO-91", "display_name": "AO-91 FM", "website": "", "norad_id": "43017"},
    {"name": "QO-100_[NB]", "display_name": "QO-100 NB", "website": "", "norad_id": "43700"},
    {"name": "JO-97", "display_name": "JO-97", "website": "", "norad_id": "43803"},
    {"name": "FO-29", "display_name": "FO-29", "website": ""},
]
# The centre of FN31pr by the Maidenhead definition: field F,N (20° x 10°), square 3,1 (2° x 1°),
# subsquare p,r (5' x 2.5'), plus half a subsquare.
FN31PR = (-90 + 13 * 10 + 1 + 17 / 24 + 1 / 48, -180 + 5 * 20 + 3 * 2 + 15 / 12 + 1 / 24)
JO62 = (50 + 2 + 0.5, 0 + 6 * 2 + 1)  # field J,O and square 6,2, centre: 52.5° N, 13° E
PASS_ROW = re.compile(r'<tr class="pass">(.*?)</tr>', re.S)
TIME = re.compile(r'<time datetime="([^"]+)">')


def element_sets(*sets):
    return [(ElementSet.from_satrec(Satrec.twoline2rv(l1, l2), name), "tle") for name, l1, l2 in sets]


@pytest.fixture
def loaded(engine, monkeypatch):
    monkeypatch.setattr(times, "utc_now", lambda: NOW)
    seed_catalog(engine, CATALOG)
    store_report(engine, "AO-91", NOW - timedelta(hours=1), callsign="W1AW", grid="FN42")
    with db.connect(engine, write=True) as conn:
        elements_store.save_element_sets(conn, element_sets(samples.AO_91, samples.QO_100))
    return engine


def section(page: str) -> str:
    return page[page.index("<!--passes-->") : page.index("<!--/passes-->")]


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", fragment)))


def skyfield_passes(tle, place, start: datetime, hours: float) -> list[tuple[list[datetime], float]]:
    """(rise, culmination, set) and the maximum elevation of each pass rising in the window, by
    skyfield, followed to its set (up to 2 hours past the window, as the page is)."""
    timescale = load.timescale()
    satellite = EarthSatellite(tle[1], tle[2], tle[0], timescale)
    end = timescale.from_datetime(start + timedelta(hours=hours + 2))
    found, events = satellite.find_events(place, timescale.from_datetime(start), end, 0.0)
    moments = [t.utc_datetime() for t in found]
    first = list(events).index(0)  # a pass already up at the start is not compared here
    passes = []
    for n in range(first, len(events) - 2, 3):
        assert list(events[n : n + 3]) == [0, 1, 2]
        if moments[n] < start + timedelta(hours=hours):
            altitude = (satellite - place).at(found[n + 1]).altaz()[0].degrees
            passes.append((moments[n : n + 3], altitude))
    return passes


def test_the_next_day_of_passes_over_the_square_agrees_with_skyfield(client, loaded):
    response = client.get("/satellite/AO-91", params={"grid": " fn31PR "})
    assert response.status_code == 200
    shown = section(response.text)
    assert 'value="FN31pr"' in shown
    assert "Over the centre of FN31pr (41.73° N, 72.71° W), for 24 hours from 2026-11-28 06:00 UTC." in text_of(shown)
    rows = [row for row in PASS_ROW.findall(shown) if "up now" not in row]
    expected = skyfield_passes(samples.AO_91, wgs84.latlon(*FN31PR), START, 24)
    assert len(rows) == len(expected) >= 3
    for row, (moments, altitude) in zip(rows, expected, strict=True):
        shown_times = [datetime.fromisoformat(value) for value in TIME.findall(row)]
        assert all(
            abs(ours - theirs) < timedelta(seconds=10) for ours, theirs in zip(shown_times, moments, strict=True)
        )
        assert abs(float(re.search(r"<td>(-?[\d.]+)°</td>", row).group(1)) - altitude) < 0.2
    # The rest of the page is the cached page's: the history and the reports around the section.
    assert 'id="history-heading"' in response.text and "W1AW" in response.text


def test_the_square_is_remembered_in_a_cookie_until_forgotten(client, loaded):
    first = client.get("/satellite/AO-91", params={"grid": "FN31pr"})
    cookie = first.headers["set-cookie"]
    assert cookie.startswith("sathub_grid=FN31pr;")
    assert {"httponly", "path=/satellite/", "samesite=lax", "max-age=31536000"} <= {
        part.strip().lower() for part in cookie.split(";")
    }
    again = client.get("/satellite/AO-91")  # the client sends the cookie back, as a browser does
    assert "set-cookie" not in again.headers
    assert section(again.text) == section(first.text) and PASS_ROW.search(again.text)
    assert 'name="forget"' in section(again.text)
    # Another satellite's page shows the same square.
    assert 'value="FN31pr"' in section(client.get("/satellite/QO-100_[NB]").text)
    forgotten = client.get("/satellite/AO-91", params={"forget": "1", "grid": "FN31pr"})
    assert forgotten.status_code == 200 and "max-age=0" in forgotten.headers["set-cookie"].lower()
    assert not PASS_ROW.search(forgotten.text) and "Enter a Maidenhead grid square" in forgotten.text
    after = client.get("/satellite/AO-91")
    assert 'value=""' in section(after.text) and not PASS_ROW.search(after.text)


def test_a_cookie_that_is_not_a_square_is_dropped(client, loaded):
    client.cookies.set("sathub_grid", "nonsense", domain="sathub.test", path="/satellite/")
    response = client.get("/satellite/AO-91")
    assert response.status_code == 200 and not PASS_ROW.search(response.text)
    assert "max-age=0" in response.headers["set-cookie"].lower()


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ZZ99", "“ZZ99” is not a grid square: 4 or 6 characters, such as FN31 or FN31pr."),
        ("FN3", "“FN3” is not a grid square"),
        ("<b>FN31</b>", "“<b>FN31</b>” is not a grid square"),
        ("ＦＮ３１", "“ＦＮ３１” is not a grid square"),
        ("", "Enter a grid square: 4 or 6 characters"),
        ("A" * 5000, "“" + "A" * 40 + "” is not"),
    ],
)
def test_a_bad_square_is_400_beside_the_form_with_the_page_intact(client, loaded, typed, message):
    client.get("/satellite/AO-91", params={"grid": "JO62"})  # remembered: a bad square leaves it be
    response = client.get("/satellite/AO-91", params={"grid": typed})
    assert response.status_code == 400 and "set-cookie" not in response.headers
    form = section(response.text).split("</form>")[0]
    assert 'role="alert"' in form and message in text_of(form) and 'aria-invalid="true"' in form
    assert "<b>" not in form  # the typed text is escaped
    assert not PASS_ROW.search(response.text)
    assert 'id="history-heading"' in response.text and "W1AW" in response.text
    assert 'value="JO62"' in section(client.get("/satellite/AO-91").text)


def test_without_a_number_elements_or_fresh_elements_a_sentence_says_so(client, loaded, monkeypatch):
    def said(name: str) -> str:
        response = client.get(f"/satellite/{name}", params={"grid": "FN31"})
        assert response.status_code == 200 and not PASS_ROW.search(response.text)
        return text_of(section(response.text))

    assert "FO-29 has no NORAD catalog number here" in said("FO-29")
    assert "No orbital elements are loaded for NORAD 43803" in said("JO-97")
    monkeypatch.setattr(times, "utc_now", lambda: NOW + timedelta(days=14))
    assert "Its newest orbital elements (NORAD 43017, epoch 2026-11-28 00:00:00 UTC) are more than 7 days" in said(
        "AO-91"
    )


@pytest.mark.parametrize(("grid", "centre", "where"), [("JO62", JO62, "above"), ("FN31", (41.5, -73.0), "below")])
def test_a_geostationary_satellite_is_always_above_or_below_with_its_direction(client, loaded, grid, centre, where):
    shown = text_of(section(client.get("/satellite/QO-100_[NB]", params={"grid": grid}).text))
    found = re.search(rf"Always {where} the horizon here[^:]*: elevation (-?[\d.]+)°, azimuth (\d+)°", shown)
    assert found, shown
    timescale = load.timescale()
    satellite = EarthSatellite(samples.QO_100[1], samples.QO_100[2], samples.QO_100[0], timescale)
    altitude, azimuth, _ = (satellite - wgs84.latlon(*centre)).at(timescale.from_datetime(START)).altaz()
    assert abs(float(found.group(1)) - altitude.degrees) < 0.1
    assert abs(float(found.group(2)) - azimuth.degrees) <= 0.6  # shown to the degree
    assert (altitude.degrees > 0) == (where == "above")


def test_the_validator_varies_with_the_square_the_elements_and_the_minute(client, loaded, monkeypatch):
    plain = client.get("/satellite/AO-91")
    assert "Cookie" in plain.headers["vary"] and "Accept-Encoding" in plain.headers["vary"]
    over = client.get("/satellite/AO-91", params={"grid": "FN31pr"})
    assert "Cookie" in over.headers["vary"] and over.headers["cache-control"] == "no-cache"
    elsewhere = client.get("/satellite/AO-91", params={"grid": "JO62"})
    assert len({plain.headers["etag"], over.headers["etag"], elsewhere.headers["etag"]}) == 3
    client.get("/satellite/AO-91", params={"grid": "FN31pr"})
    unchanged = client.get("/satellite/AO-91", headers={"If-None-Match": over.headers["etag"]})
    assert unchanged.status_code == 304 and "Cookie" in unchanged.headers["vary"]
    # Newer elements, loaded within the same minute: the next page predicts with them.
    newer = samples.tle(
        43017,
        "RADFXSAT (FOX-1B)",
        inclination=97.5,
        raan=310.0,
        eccentricity=0.0225,
        perigee=90.0,
        anomaly=270.0,
        revolutions_per_day=14.79,
        epoch=samples.EPOCH + timedelta(hours=1),
    )
    with db.connect(loaded, write=True) as conn:
        elements_store.save_element_sets(conn, element_sets(newer))
    moved = client.get("/satellite/AO-91", headers={"If-None-Match": over.headers["etag"]})
    assert moved.status_code == 200 and "epoch 2026-11-28 01:00:00 UTC" in text_of(section(moved.text))
    assert PASS_ROW.findall(moved.text) != PASS_ROW.findall(over.text)
    # The next minute: the window moves with it.
    monkeypatch.setattr(times, "utc_now", lambda: NOW + timedelta(minutes=1))
    later = client.get("/satellite/AO-91", headers={"If-None-Match": moved.headers["etag"]})
    assert later.status_code == 200 and "from 2026-11-28 06:01 UTC" in text_of(section(later.text))


def test_a_display_name_redirects_with_the_square(client, loaded):
    response = client.get("/satellite/AO-91 FM", params={"grid": "FN31"}, follow_redirects=False)
    assert (
        response.status_code == 301 and response.headers["location"] == "http://sathub.test/satellite/AO-91?grid=FN31"
    )
