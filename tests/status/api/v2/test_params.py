"""/api/v2's query parameters and the walk's cursor (api/v2/params.py), without a server. The
expected values are docs/api-v2.md's: its example cursor, the 100 names, `order`'s two words,
integers as decimal digits, and `until` at or after the reported time HH:30:00."""

import base64
import json
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


def test_names_are_trimmed_without_repeats_and_at_most_100():
    given = request(("name", " AO-91 "), ("name", "FO-29"), ("name", "AO-91"))
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


def test_text_filters_are_trimmed():
    assert params.text(request(("callsign", "  w1aw ")), "callsign") == "w1aw"
    assert params.text(request(), "callsign") is None
    assert params.status(request(("status", "telemetry"))) == "Telemetry Only"  # version 1's alias
    assert refusal(params.grid_square, request(("grid_square", "ZZ99"))).code == "invalid_grid_square"


# A filter given filters (issue 40): a blank value, or one holding a NUL (which PHP's trim would
# make blank), is a 400 naming the parameter, never an unfiltered answer.
REFUSED_TEXT = ["", "  ", "\x00", " \x00 ", "AO\x0091"]


@pytest.mark.parametrize("raw", REFUSED_TEXT)
@pytest.mark.parametrize("name", ["callsign", "grid_square", "status", "since", "until", "cursor"])
def test_a_blank_text_parameter_or_one_with_a_nul_is_refused_naming_it(name, raw):
    error = refusal(params.text, request(("callsign", "W1AW"), (name, raw)), name)
    assert (error.status, error.code, error.details) == (400, "invalid_parameter", {name: raw})
    assert f"'{name}'" in error.message


@pytest.mark.parametrize("raw", REFUSED_TEXT)
def test_a_blank_name_or_one_with_a_nul_is_refused(raw):
    error = refusal(params.names, request(("name", "AO-91"), ("name", raw), ("name", "FO-29")))
    assert (error.status, error.code, error.details) == (400, "invalid_parameter", {"name": raw})


def forged(name_key: str, callsign_key: str = "K1ABC") -> str:
    """A cursor of the documented search whose texts a client chose (JSON escapes them, as
    any encoder may: a lone surrogate travels as \\ud800)."""
    document = [1, "bc4ed2083e26ef52", "2026-11-25", 20, 1, name_key, callsign_key]
    return base64.urlsafe_b64encode(json.dumps(document).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("name_key", "callsign_key"),
    [("\ud800", "K1ABC"), ("ao-91", "\udfff"), ("ao\ud83d", "K1ABC"), ("ao-91\x00", "K1ABC"), ("ao-91", "\x00")],
)
def test_a_cursor_with_text_no_stored_row_holds_is_refused(name_key, callsign_key):
    assert params.read_cursor(forged("ao-91"), "bc4ed2083e26ef52") == DOCUMENTED_KEY  # the forgery itself reads
    error = refusal(params.read_cursor, forged(name_key, callsign_key), "bc4ed2083e26ef52")
    assert (error.status, error.code) == (400, "invalid_cursor")
