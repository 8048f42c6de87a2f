"""Elements loaded from a file or a URL (a local HTTP server serving data/): matched to the catalog
by NORAD number, stored in one transaction, summarised; a fetch that fails is one clear line."""

from __future__ import annotations

import socket

import pytest
from sgp4.api import SGP4_ERRORS

from sathub import db
from sathub.status.orbits import loading
from sathub.status.orbits.formats import ElementsFormatError
from sathub.status.store import elements as store
from tests.status.orbits.conftest import CATALOG, stored
from tests.status.orbits.elements_server import DATA, ElementsServer

REFUSED_33334 = SGP4_ERRORS[3]  # what sgp4 says of Vallado's 33334 at its epoch


@pytest.fixture(scope="module")
def server():
    with ElementsServer() as running:
        yield running


def test_a_file_is_matched_stored_and_summarised(catalogued):
    summary = loading.load(catalogued, (DATA / "amateur.tle").read_bytes(), "amateur.tle")
    assert summary.describe() == (
        "Read 9 element sets (TLE): 7 matched 8 catalog entries (7 stored, 0 already there); "
        "1 skipped (not in the catalog: 55123); "
        f"1 refused (line 26 (NORAD 33334): {REFUSED_33334})."
    )
    assert stored(catalogued) == [(number, "tle") for number in sorted({number for _name, number in CATALOG})]
    again = loading.load(catalogued, (DATA / "amateur.json").read_bytes(), "amateur.json")
    assert (again.format, again.stored, again.already, again.matched_entries) == ("json", 0, 7, 8)
    assert again.refused == [f"record 9 (NORAD 33334): {REFUSED_33334}"]
    assert stored(catalogued) == [(number, "tle") for number in sorted({number for _name, number in CATALOG})]


def test_a_file_with_one_bad_set_stores_nothing(catalogued):
    text = (DATA / "amateur.csv").read_text()
    broken = text.replace("12.536", "12.5x6")  # AO-7's mean motion, after three good rows
    with pytest.raises(ElementsFormatError, match=r"^line 5: MEAN_MOTION is '12\.5x6', not a number$"):
        loading.load(catalogued, broken.encode(), "amateur.csv")
    assert stored(catalogued) == []
    with db.connect(catalogued) as conn:
        assert store.elements_revision(conn) >= 0  # the revision row stays readable


def test_a_summary_names_at_most_ten_numbers():
    summary = loading.Summary("tle", read=25, skipped=list(range(1, 26)))
    assert "not in the catalog: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 15 more" in summary.describe()


def test_a_url_is_fetched_with_sathubs_user_agent(catalogued, server):
    summary = loading.load_source(catalogued, server.url("amateur.json"))
    assert (summary.format, summary.stored) == ("json", 7)
    assert server.user_agents[-1] == loading.USER_AGENT


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    "path, options, message",
    [
        ("status/500", {}, "answered 500 Internal Server Error"),
        ("status/404", {}, "answered 404 Not Found"),
        ("slow/amateur.tle", {"timeout": 0.3}, "did not answer in full within 0.3 s"),
        ("amateur.json", {"max_bytes": 1000}, "bytes, more than the 1,000 taken"),
        ("redirect-ftp", {}, "redirects to ftp://127.0.0.1/amateur.tle, not an http(s) address"),
    ],
)
def test_a_fetch_that_fails_is_one_clear_line(server, path, options, message):
    server.delay = 5.0
    with pytest.raises(loading.LoadError) as failed:
        loading.fetch(server.url(path), **options)
    assert message in str(failed.value) and "\n" not in str(failed.value)


def test_a_body_beyond_the_cap_is_cut_without_a_length(monkeypatch, server):
    """A server that sends no Content-Length is read up to the cap, no further."""
    monkeypatch.setattr(loading, "CHUNK_BYTES", 100)
    url = server.url("amateur.json")
    real_open = loading.urllib.request.OpenerDirector.open

    def without_length(self, *args, **kwargs):
        answer = real_open(self, *args, **kwargs)
        del answer.headers["Content-Length"]
        return answer

    monkeypatch.setattr(loading.urllib.request.OpenerDirector, "open", without_length)
    with pytest.raises(loading.LoadError, match="sends more than the 1,000 bytes taken"):
        loading.fetch(url, max_bytes=1000)


@pytest.mark.parametrize(
    "source, message",
    [
        ("file:///etc/passwd", "Not an http:// or https:// URL: file:///etc/passwd"),
        ("ftp://example.org/x.tle", "Not an http:// or https:// URL"),
        # the port is chosen when the test runs: in the test's id it would differ between xdist workers
        ("http://127.0.0.1:{closed_port}/x.tle", "Cannot fetch http://127.0.0.1:"),
        ("/no/such/file.tle", "Cannot read /no/such/file.tle: No such file or directory"),
    ],
)
def test_sources_that_cannot_be_read(engine, source, message):
    with pytest.raises(loading.LoadError) as failed:
        loading.load_source(engine, source.format(closed_port=closed_port()) if "{" in source else source)
    assert str(failed.value).startswith(message)


def test_a_format_error_names_the_source(engine, server):
    with pytest.raises(loading.LoadError) as failed:
        loading.load_source(engine, server.url("proxy-error.html"))
    assert (
        str(failed.value)
        == f"{server.url('proxy-error.html')}: line 1: HTML or XML, not orbital elements (a server's error page?)"
    )
