"""A satellite page's pass form in a real browser, with JavaScript off: Debian's chromium driven
by playwright against a real server (uvicorn in a thread, a temporary SQLite database). A square
entered shows the passes; opened again without it, the page remembers it (the cookie)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sgp4.api import Satrec

from sathub import db
from sathub.status import times
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import catalog as catalog_store
from sathub.status.store import elements as elements_store
from tests.live_server import app_in_thread
from tests.status.orbits import samples

pytestmark = pytest.mark.browser


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A real server whose clock reads six hours after the sample elements' epoch, its catalog
    AO-91 with its NORAD number and its elements loaded."""
    monkeypatch.setattr(times, "utc_now", lambda: samples.EPOCH + timedelta(hours=6, seconds=17))
    with app_in_thread(tmp_path / "sathub.db", secret_key="browser-test-secret") as (base, engine):
        with db.connect(engine, write=True) as conn:
            catalog_store.load_catalog(conn, [{"name": "AO-91", "display_name": "AO-91 FM", "norad_id": "43017"}])
            name, line1, line2 = samples.AO_91
            elements_store.save_element_sets(
                conn, [(ElementSet.from_satrec(Satrec.twoline2rv(line1, line2), name), "tle")]
            )
        yield base


def test_a_square_entered_shows_the_passes_and_is_remembered(site, browser, screenshots):
    context = browser.new_context(viewport={"width": 1000, "height": 900}, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{site}/satellite/AO-91")
        assert page.locator("tr.pass").count() == 0
        page.fill("#pass-grid", "fn31pr")
        page.click("text=Show passes")
        page.wait_for_url("**/satellite/AO-91?grid=fn31pr*")
        assert page.locator("tr.pass").count() >= 3
        assert page.input_value("#pass-grid") == "FN31pr"
        page.locator("#passes-heading").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / "satellite-passes.png"))
        page.goto(f"{site}/satellite/AO-91")  # opened again, without the square
        assert page.locator("tr.pass").count() >= 3 and page.input_value("#pass-grid") == "FN31pr"
        page.fill("#pass-grid", "not a square")
        page.click("text=Show passes")
        assert page.locator("#pass-grid-error").inner_text().startswith("“not a square” is not a grid square")
        page.goto(f"{site}/satellite/AO-91")  # a bad square left the remembered one be
        page.click("text=Forget FN31pr")
        assert page.locator("tr.pass").count() == 0 and page.input_value("#pass-grid") == ""
    finally:
        context.close()
