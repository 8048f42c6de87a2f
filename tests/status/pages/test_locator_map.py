"""The satellite page's map of reported locators: placed by the Maidenhead definition (worked out
by hand below), zoomed to the fields with reports, coloured by the grid's rule, drawn offline."""

from datetime import UTC, datetime, timedelta

import pytest

from sathub.status import grid
from sathub.status.pages import locator_map
from tests.status.seed import seed_catalog, store_report

HOUR = 231_000  # an hour number (hours since 2000), as store.report_walk.located_hours gives it


def test_a_square_is_placed_by_its_longitude_and_latitude():
    drawn = locator_map.build([("FN42", "Heard", HOUR, 2), ("fn42", "Not Heard", HOUR, 1)])
    # Fields EM..GO around FN: 3 fields of 20° = 60° wide in 720 px, 12 px a degree; north edge 60° N.
    assert (drawn.width, drawn.height) == (720, 360)
    (square,) = drawn.squares
    # FN42 is 72° W-70° W, 42° N-43° N: x = (-72 + 100) * 12, y = (60 - 43) * 12.
    assert (square.x, square.y, square.width, square.height) == (336.0, 204.0, 24.0, 12.0)
    assert square.state is grid.HEARD and square.title == "FN42: 3 reports (2 Heard, 1 Not Heard)"
    assert sorted(field.label for field in drawn.fields) == ["EM", "EN", "EO", "FM", "FN", "FO", "GM", "GN", "GO"]
    assert drawn.report_count == 3


def test_subsquares_stay_visible_and_bad_locators_are_left_out():
    drawn = locator_map.build(
        [("FN42ab", "Telemetry Only", HOUR, 1), ("ZZ99", "Heard", HOUR, 5), ("", "Heard", HOUR, 1)]
    )
    (square,) = drawn.squares
    assert square.locator == "FN42ab" and square.width == square.height == locator_map.MIN_SIDE
    assert square.state is grid.TELEMETRY


def test_reports_far_apart_zoom_out_to_the_world_edges():
    drawn = locator_map.build([("AA00", "Heard", HOUR, 1), ("RR99", "Heard", HOUR, 1)])
    assert len(drawn.fields) == 18 * 18 and (drawn.width, drawn.height) == (720, 360)
    assert locator_map.build([]).empty


@pytest.fixture
def seeded(engine):
    seed_catalog(engine)
    return engine


def test_the_satellite_page_draws_the_map_without_fetching_anything(client, seeded):
    store_report(seeded, "AO-91", datetime.now(UTC) - timedelta(hours=3), grid="JO01ab", report="Heard")
    store_report(seeded, "AO-91", datetime.now(UTC) - timedelta(days=40), callsign="K1ABC", grid="PM95")
    html = client.get("/satellite/AO-91").text
    section = html.split('id="map-heading"')[1].split("</section>")[0]
    assert "<svg" in section and "JO01ab: 1 report (1 Heard)" in section
    assert "PM95" not in section  # older than the map's 30 days
    assert "http" not in section.split("<figcaption")[0].replace("http://www.w3.org/2000/svg", "")
    assert "/api/v2/grid-squares?name=AO-91" in section
    bare = client.get("/satellite/FO-29").text
    assert "No report of the last 30 days gives a grid square." in bare


@pytest.mark.browser
def test_the_map_draws_in_chromium_offline(browser, tmp_path):
    from playwright.sync_api import expect

    from tests.live_server import app_in_thread

    with app_in_thread(tmp_path / "sathub.db") as (site, engine):
        seed_catalog(engine)
        recent = datetime.now(UTC) - timedelta(hours=2)
        store_report(engine, "AO-91", recent, callsign="W1AW", grid="FN42")
        store_report(engine, "AO-91", recent, callsign="K1ABC", grid="FN31", report="Not Heard")
        context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
        page = context.new_page()
        elsewhere: list[str] = []
        page.on("request", lambda request: request.url.startswith(site) or elsewhere.append(request.url))
        page.goto(f"{site}/satellite/AO-91")
        drawing = page.locator("figure.locator-map svg")
        expect(drawing).to_be_visible()
        box = drawing.bounding_box()
        assert box is not None and box["width"] > 250 and box["x"] + box["width"] <= 390  # scaled to the phone
        expect(drawing.locator("g > title")).to_have_count(2)
        listed = page.locator("details.map-squares li", has_text="FN31: 1 report (1 Not Heard)")
        expect(listed).to_be_hidden()  # in the closed list, until opened
        page.locator("details.map-squares summary").click()
        expect(listed).to_be_visible()
        context.close()
        assert elsewhere == []
