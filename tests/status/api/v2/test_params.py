"""/api/v2's query parameters and the walk's cursor (api/v2/params.py), without a server. The
expected values are docs/api-v2.md's: its example cursor, the 100 names, `order`'s two words,
integers as decimal digits, and `until` at or after the reported time HH:30:00."""

from datetime import UTC, date, datetime
from urllib.parse import urlencode

import pytest
from starlette.requests import Request

from sathub.status.api.responses import ApiError
from sathub.status.api.v2 import params

# links.next of docs/api-v2.md's example: the walk of search bc4ed2083e26ef52 after 2026-11-25
# 20:00, period 1, AO-91 and K1ABC.
DOCUMENTED_CURSOR = "WzEsImJjNGVkMjA4M2UyNmVmNTIiLCIyMDI2LTExLTI1IiwyMCwxLCJhby05MSIsIksxQUJDIl0"
DOCUMENTED_KEY = (date(2026, 11, 25), 20, 1, "ao-91", "K1ABC")


def request(*pairs: tuple[str, str]) -> Request:
    query = urlencode(pairs).encode()
    return Request({"type": "http", "method": "GET", "path": "/api/v2/reports", "headers": [], "query_string": query})


def refusal(read, *args) -> ApiError:
    with pytest.raises(ApiError) as raised:
        read(*args)
    return raised.value


def test_the_documented_cursor_reads_back_and_is_written_alike():
    assert params.read_cursor(DOCUMENTED_CURSOR, "bc4ed2083e26ef52") == DOCUMENTED_KEY
    assert params.cursor_text("bc4ed2083e26ef52", DOCUMENTED_KEY) == DOCUMENTED_CURSOR


@pytest.mark.parametrize(
    "cursor",
    [
        DOCUMENTED_CURSOR[:-4],  # truncated
        DOCUMENTED_CURSOR[:12] + "A" + DOCUMENTED_CURSOR[13:],  # altered: the search it names
        params.cursor_text("0123456789abcdef", DOCUMENTED_KEY),  # another search's
        params.cursor_text("bc4ed2083e26ef52", (date(2026, 11, 25), 2**15, 1, "ao-91", "K1ABC")),  # no SMALLINT
        "abc",
    ],
)
def test_a_cursor_of_another_search_or_altered_is_refused(cursor):
    assert refusal(params.read_cursor, cursor, "bc4ed2083e26ef52").code == "invalid_cursor"


def test_a_search_is_known_by_its_filters_and_order():
    assert params.fingerprint("AO-91", True) == params.fingerprint("AO-91", True)
    assert params.fingerprint("AO-91", True) != params.fingerprint("AO-91", False)


def test_names_are_trimmed_without_blanks_or_repeats_and_at_most_100():
    given = request(("name", " AO-91 "), ("name", ""), ("name", "FO-29"), ("name", "AO-91"))
    assert params.names(given) == ("AO-91", "FO-29")
    assert params.names(request(*[("name", "AO-91")] * 100)) == ("AO-91",)
    error = refusal(params.names, request(*[("name", "AO-91")] * 101))
    assert (error.status, error.code, error.details) == (400, "invalid_parameter", {"name": 101})


@pytest.mark.parametrize(("raw", "value"), [(None, 100), ("1", 1), ("1000", 1000)])
def test_an_integer_within_its_range(raw, value):
    given = request() if raw is None else request(("limit", raw))
    assert params.integer(given, "limit", 100, 1, 1000) == value


@pytest.mark.parametrize("raw", ["0", "1001", "", " 5", "+5", "1e1", "5.0", "ten"])
def test_anything_else_is_refused_with_the_raw_value(raw):
    error = refusal(params.integer, request(("limit", raw)), "limit", 100, 1, 1000)
    assert (error.code, error.details) == ("invalid_parameter", {"limit": raw})


def test_order_is_desc_by_default_or_asc():
    assert params.order(request()) is False
    assert params.order(request(("order", "desc"))) is False
    assert params.order(request(("order", "asc"))) is True
    assert refusal(params.order, request(("order", "ASC"))).details == {"order": "ASC"}


@pytest.mark.parametrize(
    ("until", "hour"),
    [
        (datetime(2019, 1, 1, 2, 30, tzinfo=UTC), (date(2019, 1, 1), 2)),  # 02:30:00 is hour 2's time
        (datetime(2019, 1, 1, 2, 29, 59, tzinfo=UTC), (date(2019, 1, 1), 1)),
        (datetime(2019, 1, 1, 0, 15, tzinfo=UTC), (date(2018, 12, 31), 23)),
    ],
)
def test_until_includes_the_hours_read_at_or_before_it(until, hour):
    assert params.last_included_hour(until) == hour


def test_text_filters_are_trimmed_and_blank_is_not_given():
    assert params.text(request(("callsign", "  w1aw ")), "callsign") == "w1aw"
    assert params.text(request(("callsign", "  ")), "callsign") is None
    assert params.status(request(("status", "telemetry"))) == "Telemetry Only"  # version 1's alias
    assert refusal(params.grid_square, request(("grid_square", "ZZ99"))).code == "invalid_grid_square"
