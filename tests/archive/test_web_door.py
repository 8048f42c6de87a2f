"""The base of the archive's HTML doors (sathub.archive.web_door): the templates' filters, and the
error page every web door answers instead of a 200, with its headers and a way back."""

from __future__ import annotations

from datetime import datetime

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from sathub.archive.edge import ArchiveError
from sathub.archive.web_door import HEADERS, WebDoor, iso_date, month_name, page_date, plural
from sathub.config import Settings


def test_the_filters():
    when = datetime(2021, 3, 4, 5, 6, 7)
    assert page_date(when) == "2021-03-04 05:06 UTC"
    assert iso_date(when) == "2021-03-04T05:06Z"
    assert [month_name(m) for m in (1, 6, 12)] == ["January", "June", "December"]
    assert (plural(1, "email"), plural(0, "email"), plural(12345, "thread")) == (
        "1 email",
        "0 emails",
        "12,345 threads",
    )


class Gone(WebDoor):
    async def respond(self, request: Request) -> Response:
        raise ArchiveError(404, "There is no <b>such</b> page.")


APP = Starlette(routes=[Route("/archives/{rest:path}", Gone("/archives/"))])
APP.state.settings = Settings(base_url="https://lists.example.net")
CLIENT = TestClient(APP)


def test_an_error_is_an_html_page_with_a_way_back():
    answer = CLIENT.get("/archives/x")
    assert answer.status_code == 404
    assert {key: answer.headers[key] for key in HEADERS} == HEADERS
    assert HEADERS["X-Frame-Options"] == "DENY" and "default-src 'none'" in HEADERS["Content-Security-Policy"]
    assert "<title>Not found – sathub archive</title>" in answer.text
    assert "There is no &lt;b&gt;such&lt;/b&gt; page." in answer.text  # escaped
    assert '<a href="https://lists.example.net/archives/">' in answer.text  # the index, under the same prefix
    assert "allow" not in answer.headers


def test_a_405_page_says_the_method_and_carries_allow():
    answer = CLIENT.post("/archives/x")
    assert (answer.status_code, answer.headers["allow"]) == (405, "GET, HEAD")
    assert "<title>Method not allowed – sathub archive</title>" in answer.text
    assert "POST is not allowed here." in answer.text


def test_a_year_before_1000_is_written_with_four_digits():
    """A Date: of 0001 is stored as written (docs/archive-import.md); C's strftime writes `1`."""
    assert page_date(datetime(1, 1, 1, 9, 5)) == "0001-01-01 09:05 UTC"
    assert iso_date(datetime(999, 12, 31, 23, 59)) == "0999-12-31T23:59Z"
