"""The pages in a real browser: Debian's chromium driven by playwright, against a real server
(uvicorn in a thread, on a temporary SQLite database), saving screenshots (see conftest.screenshots)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import bcrypt
import pytest

from sathub import db
from sathub.status.store import accounts as account_store
from sathub.status.store import catalog as catalog_store
from tests.conftest import empty_all_tables
from tests.live_server import app_in_thread
from tests.status.seed import FIXTURE_CATALOG, set_visible, store_report

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real HTTP server on a free port; yields (base URL, engine)."""
    with app_in_thread(tmp_path_factory.mktemp("browser") / "sathub.db", secret_key="browser-test-secret") as served:
        yield served


@pytest.fixture
def site(server):
    """The server with a fresh catalog, one administrator and no reports."""
    base, engine = server
    empty_all_tables(engine)
    with db.connect(engine, write=True) as conn:
        catalog_store.load_catalog(
            conn,
            [
                *FIXTURE_CATALOG,
                {"name": "AO-7_[U/v]", "display_name": "AO-7 Mode B", "website": "https://www.amsat.org/"},
                {"name": "SO-50", "display_name": "SO-50", "website": ""},
            ],
        )
        account_store.save_user(conn, "admin", bcrypt.hashpw(b"browser-pass", bcrypt.gensalt(4)).decode())
    return base, engine


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    yield context.new_page()
    context.close()


def now_utc() -> datetime:
    return datetime.now(UTC)


def seed_reports(engine) -> None:
    now = now_utc().replace(second=0, microsecond=0)
    store_report(engine, "AO-91", now - timedelta(minutes=20), callsign="W1AW", report="Heard", grid="FN31")
    store_report(engine, "AO-91", now - timedelta(minutes=20), callsign="K1ABC", report="Heard", grid="FN42")
    store_report(engine, "AO-91", now - timedelta(days=1, hours=3), callsign="DL1ABC", report="Not Heard")
    store_report(engine, "FO-29", now - timedelta(hours=5), callsign="JA1ABC", report="Telemetry Only", grid="PM95")
    store_report(engine, "FO-29", now - timedelta(days=2), callsign="VK3FABC", report="Heard")
    store_report(engine, "FO-29", now - timedelta(days=2), callsign="G4ABC", report="Not Heard")
    store_report(engine, "ISS-FM", now - timedelta(days=3, hours=2), callsign="KB1XYZ", report="Crew Active")
    store_report(engine, "AO-7_[U/v]", now - timedelta(days=4), callsign="EA8/DL1ABC", report="Heard")
    for days in range(1, 29, 3):
        store_report(
            engine,
            "AO-7_[U/v]",
            now - timedelta(days=days, hours=days % 7),
            callsign="W5API",
            report="Heard" if days % 2 else "Not Heard",
        )


def grid_cell_colours(page) -> dict[str, list[str]]:
    """bgcolor of the non-empty cells of each row of the third table, read in the browser."""
    return page.evaluate("""() => {
        const rows = [...document.querySelectorAll('table')[2].rows].slice(1);
        return Object.fromEntries(rows.map(row => [row.cells[0].textContent.trim(),
            [...row.cells].slice(1).map(c => c.getAttribute('bgcolor')).filter(c => c !== 'C0C0C0')]));
    }""")


def test_the_page_renders_the_grid_with_the_right_colours(site, page, screenshots):
    base, engine = site
    seed_reports(engine)
    page.goto(f"{base}/")
    assert page.get_by_role("heading", name="AMSAT Live OSCAR Satellite Status Page").is_visible()
    assert page.locator('select[name="SatName"] option[value="AO-91"]').count() == 1
    colours = grid_cell_colours(page)
    assert colours["AO-91"] == ["#648fff", "#dc267f"]
    assert colours["FO-29"] == ["#ffb000", "#fe6100"]
    assert colours["ISS-FM"] == ["#785ef0"]
    page.screenshot(path=str(screenshots / "status-page.png"), full_page=True)


def test_the_page_is_usable_on_a_phone(site, browser, screenshots):
    base, engine = site
    seed_reports(engine)
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    phone = context.new_page()
    phone.goto(f"{base}/")
    widest = phone.evaluate("""() => Math.max(...[...document.querySelectorAll('body *')]
        .filter(e => !e.closest('.grid-scroll')).map(e => e.getBoundingClientRect().right))""")
    assert widest <= 390, "only the grid scrolls sideways, nothing else leaves the screen"
    phone.screenshot(path=str(screenshots / "status-page-phone.png"))
    context.close()


def test_block_details_are_reachable_with_the_keyboard(site, page):
    base, engine = site
    seed_reports(engine)
    page.goto(f"{base}/")
    first_cell = page.locator("table.status-grid td a[href^='#a']").first
    for _ in range(40):  # Tab through the skip link, the scroll region and the row names
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.matches(\"table.status-grid td a[href^='#a']\")"):
            break
    else:
        pytest.fail("no grid block can be reached with Tab")
    focused = page.evaluate("() => document.activeElement.getAttribute('href')")
    tooltip = page.locator("#grid-tip")
    assert tooltip.is_visible() and re.search(r"UTC", tooltip.inner_text())
    page.keyboard.press("Enter")
    assert page.url.endswith(focused)
    details = page.locator(f"section{focused}")
    assert details.is_visible()
    assert "UTC" in details.inner_text()
    assert first_cell.get_attribute("aria-label")


def test_details_work_without_javascript(site, browser):
    base, engine = site
    seed_reports(engine)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base}/")
    link = page.locator("table.status-grid td a[href^='#a']").first
    target = link.get_attribute("href")
    link.click()
    assert page.url.endswith(target)
    details = page.locator(f"section{target}")
    assert details.is_visible() and "UTC" in details.inner_text()
    context.close()


def submit_form(page, base, callsign, grid, report="Heard", hour=None, day=None, month=None):
    page.goto(f"{base}/")
    page.select_option('select[name="SatName"]', "AO-91")
    page.check(f'input[name="SatReport"][value="{report}"]')
    if month is not None:
        page.select_option('select[name="SatMonth"]', index=month)
    if day is not None:
        page.select_option('select[name="SatDay"]', index=day)
    if hour is not None:
        page.select_option('select[name="SatHour"]', index=hour)
    page.fill('input[name="SatCall"]', callsign)
    page.fill('input[name="SatGridSquare"]', grid)
    page.click('input[name="SatSubmit"]')


def test_a_report_submitted_through_the_form_appears_in_the_grid_and_sat_info(site, page):
    base, _ = site
    submit_form(page, base, "W5API", "em25")
    assert page.get_by_text("You Entered:").is_visible()
    assert page.get_by_text("W5API", exact=True).is_visible()
    page.get_by_role("link", name="Yes").click()
    assert page.get_by_text("Thank you for your submission").is_visible()
    items = page.request.get(f"{base}/api/v1/sat_info.php?name=AO-91").json()
    assert [(i["callsign"], i["grid_square"], i["report"]) for i in items] == [("W5API", "EM25", "Heard")]
    page.goto(f"{base}/")
    assert grid_cell_colours(page)["AO-91"] == ["#648fff"]

    submit_form(page, base, "W5API", "EM25", report="Not Heard")
    page.get_by_role("link", name="Yes").click()
    assert page.get_by_text("This report will replace the previous one.").is_visible()
    items = page.request.get(f"{base}/api/v1/sat_info.php?name=AO-91").json()
    assert [i["report"] for i in items] == ["Not Heard"]


@pytest.mark.parametrize(
    "callsign, grid, message",
    [
        ("", "", "You must enter a callsign."),
        ("NOT_A_CALL", "", "The callsign you entered does not appear to be valid"),
        ("W5API", "ZZ99", "The grid square you entered does not appear to be valid"),
    ],
)
def test_invalid_reports_are_refused_with_their_message(site, page, callsign, grid, message):
    base, _engine = site
    submit_form(page, base, callsign, grid)
    assert page.get_by_text(message).is_visible()
    assert page.request.get(f"{base}/api/v1/sat_info.php?name=AO-91").json() == []


@pytest.mark.calendar_bound
def test_a_report_for_the_next_hour_is_refused(site, page):
    base, _ = site
    later = now_utc() + timedelta(hours=1)
    if later.year != now_utc().year:
        pytest.skip("the form offers no next year to pick on 31 December at 23:xx")
    # Options: index 0 is the current value, then the full list in order.
    submit_form(page, base, "W5API", "", hour=later.hour + 1, day=later.day, month=later.month)
    assert page.get_by_text("The time heard you entered does not appear to be valid").is_visible()
    assert page.request.get(f"{base}/api/v1/sat_info.php?name=AO-91").json() == []


def test_the_satellite_page_and_its_feed(site, page, screenshots):
    base, engine = site
    seed_reports(engine)
    page.goto(f"{base}/")
    page.get_by_role("link", name="AO-7_[U/v]", exact=True).click()
    assert page.get_by_role("heading", name="AO-7 Mode B").is_visible()
    assert page.locator("figure.history svg rect").count() > 5
    feed = page.request.get(f"{base}/feeds/AO-7_%5BU%2Fv%5D.atom")
    assert feed.ok and "<feed" in feed.text()
    page.screenshot(path=str(screenshots / "satellite-page.png"), full_page=True)


def test_the_admin_adds_and_deletes_a_satellite(site, page, screenshots):
    base, _ = site
    page.goto(f"{base}/admin/")
    page.fill('input[name="username"]', "admin")
    page.fill('input[name="password"]', "browser-pass")
    page.click('input[type="submit"][value="Login"]')
    assert page.get_by_role("heading", name="Amsat Status Dashboard").is_visible()
    page.locator("main").get_by_role("link", name="Add Satellite").click()
    page.fill('input[name="satellite_name"]', "RS-44 Linear")
    page.fill('input[name="html_satellite_name"]', "RS-44_[V/u]")
    page.fill('input[name="website"]', "https://example.org/rs44")
    page.click('input[type="submit"][value="Add Satellite"]')
    assert page.get_by_text("New record created successfully").is_visible()
    names = [item["name"] for item in page.request.get(f"{base}/api/v1/catalog.php").json()["data"]]
    assert "RS-44_[V/u]" in names

    page.goto(f"{base}/admin/manage_satellites.php")
    row = page.locator("tr", has_text="RS-44_[V/u]")
    assert row.count() == 1
    page.screenshot(path=str(screenshots / "admin-manage.png"), full_page=True)
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("link", name="Delete").click()
    assert page.get_by_text("Satellite deleted successfully").is_visible()
    page.goto(f"{base}/admin/manage_satellites.php")
    assert page.locator("tr", has_text="RS-44_[V/u]").count() == 0


def test_a_wrong_password_is_refused(site, page):
    base, _ = site
    page.goto(f"{base}/admin/")
    page.fill('input[name="username"]', "admin")
    page.fill('input[name="password"]', "nope")
    page.click('input[type="submit"][value="Login"]')
    assert page.get_by_text("Login failed. Username or password is incorrect.").is_visible()


def test_an_implausible_report_is_marked_on_the_satellite_page(site, page, screenshots):
    base, engine = site
    now = now_utc().replace(second=0, microsecond=0)
    below = store_report(engine, "AO-91", now - timedelta(minutes=20), callsign="W1AW", grid="FN31")
    store_report(engine, "AO-91", now - timedelta(hours=2), callsign="K1ABC", grid="FN42")
    set_visible(engine, below.id, False)
    page.goto(f"{base}/satellite/AO-91")
    rows = page.locator("table.reports tbody tr")
    assert rows.count() == 2  # shown, not hidden
    marked, plain = rows.nth(0), rows.nth(1)
    assert marked.locator(".implausible-mark").is_visible()
    # what a screen reader reads: the words, not the symbol (aria-hidden)
    assert page.get_by_role("row", name="implausible: the satellite was below this grid square's horizon").count() == 1
    assert plain.locator(".implausible-mark").count() == 0
    shaded = marked.locator("td").first.evaluate("td => getComputedStyle(td).backgroundColor")
    assert shaded != plain.locator("td").first.evaluate("td => getComputedStyle(td).backgroundColor")
    page.locator("section[aria-labelledby=recent-heading]").screenshot(path=str(screenshots / "implausible-report.png"))
