"""The status page and the satellite pages over HTTP, read the way the scraping apps read them
(clients.md item 16: the SatName select, the grid as the third table, exact bgcolor values,
upstream's tooltip data) and the way people read them."""

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest

from sathub.status import grid
from sathub.status.pages import report_grid
from tests.status.pages.conftest import now_minus
from tests.status.seed import seed_catalog, store_report


class Scraper(HTMLParser):
    """Collects what the apps read: the SatName option values and every table's rows of cells
    (attributes and text), counting tables in document order."""

    def __init__(self):
        super().__init__()
        self.options, self.tables = [], []
        self._open_tables, self._in_select, self._cell = [], False, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "select" and attrs.get("name") == "SatName":
            self._in_select = True
        elif tag == "option" and self._in_select:
            self.options.append(attrs.get("value"))
        elif tag == "table":
            self.tables.append([])
            self._open_tables.append(self.tables[-1])
        elif tag == "tr" and self._open_tables:
            self._open_tables[-1].append([])
        elif tag in ("td", "th") and self._open_tables:
            self._cell = {"attrs": attrs, "text": ""}
            self._open_tables[-1][-1].append(self._cell)

    def handle_endtag(self, tag):
        if tag == "select":
            self._in_select = False
        elif tag == "table":
            self._open_tables.pop()
        elif tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def scrape(html):
    parser = Scraper()
    parser.feed(html)
    return parser


@pytest.fixture
def seeded(catalog_seeded):
    return catalog_seeded


def test_the_page_answers_at_both_paths_with_title_heading_and_no_survey(client, seeded):
    for path in ("/", "/index.php"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert "<title>AMSAT OSCAR Satellite Status</title>" in response.text
        assert "AMSAT Live OSCAR Satellite Status Page" in response.text
        assert "Take our survey" not in response.text and "paypal" not in response.text.lower()
        assert "https://www.amsat.org/donations/amsat-general-fund-donations/" in response.text


def test_the_satname_select_lists_api_names_by_display_name_after_a_blank_placeholder(client, seeded):
    page = scrape(client.get("/").text)
    assert page.options == ["", "AO-7_[U/v]", "AO-91", "ISS-FM"]
    assert '<option value="AO-7_[U/v]">AO-7 Mode B &lt;b&gt;</option>' in client.get("/").text


def test_the_grid_is_the_third_table_with_scraped_colours(client, seeded):
    block = now_minus(hours=0)
    store_report(seeded, "AO-91", block.replace(minute=5), callsign="W1AW", report="Heard")
    store_report(seeded, "AO-91", block.replace(minute=5), callsign="K1ABC", report="Heard")
    store_report(seeded, "ISS-FM", now_minus(days=1), callsign="W1AW", report="Not Heard", grid="")
    store_report(seeded, "AO-7_[U/v]", now_minus(days=2), callsign="DL1ABC", report="Telemetry Only")
    store_report(seeded, "AO-7_[U/v]", now_minus(days=2), callsign="G4ABC", report="Heard")
    store_report(seeded, "RETIRED-1", now_minus(days=3), callsign="G4ABC", report="Crew Active")
    store_report(seeded, "AO-91", now_minus(days=7), callsign="OLD1ABC")
    page = scrape(client.get("/").text)
    table = page.tables[2]
    header, *rows = table
    assert [cell["text"] for cell in header] == ["Name", *[label for label, _ in report_grid.day_headers(block.date())]]
    assert [row[0]["text"] for row in rows] == ["AO-7_[U/v]", "AO-91", "ISS-FM", "RETIRED-1"]
    for row in rows:
        assert len(row) == 1 + grid.COLUMNS
    colours = {
        row[0]["text"]: [c["attrs"]["bgcolor"] for c in row[1:] if c["attrs"]["bgcolor"] != "C0C0C0"] for row in rows
    }
    assert colours == {"AO-7_[U/v]": ["#fe6100"], "AO-91": ["#648fff"], "ISS-FM": ["#dc267f"], "RETIRED-1": ["#785ef0"]}
    ao91 = rows[1][1 + (23 - block.hour) // 2]  # today's columns run from 22:00-23:59 down to 00:00-01:59
    assert ao91["text"] == "2"
    empty = rows[0][1]
    assert empty == {"attrs": {"width": "9", "bgcolor": "C0C0C0"}, "text": " "}


def test_empty_cells_keep_upstreams_exact_markup_and_cells_their_tooltip_hooks(client, seeded):
    stored = store_report(seeded, "AO-91", now_minus(hours=0).replace(minute=5), grid="FN42")
    html = client.get("/").text
    assert '<td width=9 bgcolor="C0C0C0"> </td>' in html
    assert f"onMouseOver=docTips.show('a{stored.id}') onMouseOut=docTips.hide()" in html
    assert re.search(
        rf"tips\.a{stored.id} = new Array\( 5, 5, 120, "
        rf"'Heard<br>W1AW<br>FN42<br>\d{{4}}-\d\d-\d\d<br>\d+:00-:15 UTC'\);",
        html,
    )


def test_every_block_has_a_keyboard_reachable_details_section(client, seeded):
    stored = store_report(seeded, "AO-91", now_minus(hours=0).replace(minute=5), grid="FN42")
    html = client.get("/").text
    assert f'href="#a{stored.id}"' in html
    assert re.search(r'aria-label="AO-91 \w+ \d+, \d\d:00-\d\d:59 UTC: Sat/Mode Active, 1 report"', html)
    section = html.split(f'id="a{stored.id}" tabindex="-1">')[1].split("</section>")[0]
    assert "Sat/Mode Active" in section and "W1AW · FN42" in section


def test_row_labels_link_to_the_satellite_page(client, seeded):
    store_report(seeded, "AO-7_[U/v]", now_minus(hours=1))
    html = client.get("/").text
    assert '<a href="http://sathub.test/satellite/AO-7_%5BU%2Fv%5D">AO-7_[U/v]</a>' in html


def test_reports_from_lists_callsigns_newest_first(client, seeded):
    store_report(seeded, "AO-91", now_minus(hours=30), callsign="k1abc")
    store_report(seeded, "AO-91", now_minus(hours=2), callsign="W1AW")
    store_report(seeded, "AO-91", now_minus(hours=3), callsign="TEST")
    html = client.get("/").text
    listed = html.split('class="reports-from-list"')[1].split("</div>")[0]
    assert re.findall(r"<b>([^<]+)</b>", listed) == ["W1AW", "K1ABC"]


def test_names_and_callsigns_are_escaped(client, seeded, engine):
    from sathub import db
    from sathub.status.store import writes as report_writes

    with db.connect(engine, write=True) as conn:
        report_writes.store_submitted(
            conn,
            [
                dict(
                    name="<img src=x>",
                    day=now_minus(hours=1).date(),
                    hour=now_minus(hours=1).hour,
                    period=0,
                    callsign="<script>",
                    report="Heard",
                    grid_square="",
                )
            ],
        )[0]
    html = client.get("/").text
    assert "<img src=x>" not in html and "<script>alert" not in html and "&lt;img src=x&gt;" in html


def test_the_page_gzips_for_clients_that_accept_it(client, seeded):
    response = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert "AMSAT Live OSCAR Satellite Status Page" in response.text


def test_the_page_is_revalidated_and_changes_as_soon_as_a_report_is_stored(client, seeded):
    first = client.get("/")
    tag = first.headers["etag"]
    assert tag.startswith('W/"') and first.headers["cache-control"] == "no-cache"
    again = client.get("/", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    assert client.get("/", headers={"If-None-Match": f'W/"other", {tag}'}).status_code == 304
    assert "K9NEW" not in first.text
    when = now_minus(minutes=1)
    assert (
        client.post(
            "/api/v1/reports.php",
            json={
                "name": "AO-91",
                "report": "Heard",
                "callsign": "K9NEW",
                "reported_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
        ).status_code
        == 201
    )
    changed = client.get("/", headers={"If-None-Match": tag})
    assert changed.status_code == 200 and "K9NEW" in changed.text and changed.headers["etag"] != tag
    new_tag = changed.headers["etag"]
    assert client.get("/", headers={"If-None-Match": new_tag.removeprefix("W/")}).status_code == 304  # weak match
    assert client.post("/", headers={"If-None-Match": new_tag}).status_code == 200  # only GET and HEAD get 304


def test_the_page_follows_the_quarter_hour_its_form_preselects(client, seeded, monkeypatch):
    from sathub.status import times

    def first_option(html, select):
        return html.split(f'<select name="{select}" id="{select}">')[1].split('<option value="')[1].split('"')[0]

    clock = [datetime(2026, 5, 23, 8, 15, 59, tzinfo=UTC)]  # quarters start at :00, :16, :31, :46
    monkeypatch.setattr(times, "utc_now", lambda: clock[0])
    before = client.get("/")
    clock[0] = datetime(2026, 5, 23, 8, 16, 0, tzinfo=UTC)
    after = client.get("/")
    assert (first_option(before.text, "SatHour"), first_option(before.text, "SatPeriod")) == ("08", "0")
    assert (first_option(after.text, "SatHour"), first_option(after.text, "SatPeriod")) == ("08", "1")
    assert before.headers["etag"] != after.headers["etag"]


def test_deploy_facts_show_in_the_footer_only_when_both_are_configured(engine, settings):
    from dataclasses import replace

    from starlette.testclient import TestClient

    from sathub.app import create_app

    configured = replace(settings, commit="abcdef0123", deployed_at="2026-05-23T08:30:00Z")
    with TestClient(create_app(configured, engine=engine), base_url="http://sathub.test") as client:
        assert "Last updated 05/23/2026 08:30 UTC (commit abcdef0)" in client.get("/").text
    with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test") as client:
        assert "Last updated" not in client.get("/").text


def test_assets_are_served_with_validators(client):
    css = client.get("/assets/status.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert client.get("/assets/status.css", headers={"If-None-Match": css.headers["etag"]}).status_code == 304
    assert client.get("/assets/tooltips.js").status_code == 200
    assert client.get("/assets/secrets.py").status_code == 404


# --- satellite pages ---


def test_under_a_path_prefix_every_link_and_cookie_carries_it(engine, settings):
    from dataclasses import replace

    import bcrypt
    from starlette.testclient import TestClient

    from sathub import db
    from sathub.app import create_app
    from sathub.status.store import accounts as account_store

    seed_catalog(engine)
    with db.connect(engine, write=True) as conn:
        account_store.save_user(conn, "admin", bcrypt.hashpw(b"pw", bcrypt.gensalt(4)).decode())
    prefixed = replace(settings, base_url="https://www.amsat.org/status")
    with TestClient(create_app(prefixed, engine=engine), base_url="https://www.amsat.org") as client:
        html = client.get("/status/").text
        assert 'action="https://www.amsat.org/status/submit.php"' in html
        assert 'href="https://www.amsat.org/status/assets/status.css?v=' in html
        assert client.get("/status/assets/status.css").status_code == 200
        login = client.post(
            "/status/admin/login.php", data={"username": "admin", "password": "pw"}, follow_redirects=False
        )
        assert login.headers["location"] == "https://www.amsat.org/status/admin/dashboard.php"
        assert "Path=/status/admin" in login.headers["set-cookie"] and "Secure" in login.headers["set-cookie"]
        assert "Amsat Status Dashboard" in client.get("/status/admin/dashboard.php").text
