"""The pure rules of interface A, with the tables of status-api.md sections 2.5, 5.1-5.4."""

import pytest

from sathub.status import rules

VALID_CALLSIGNS = [
    "W1AW",
    "K1ABC",
    "KB1XYZ",
    "KH6XYZ",
    "WH6ABC",
    "N0CALL",
    "NL7AB",
    "NL12345",
    "PA12345",
    "ONL1234",
    "ONL12345",
    "OE60200755",
    "VK3FABC",
    "ONL1",
    "PM1ABC",
    "2E0ABC",
    "M0ABC",
    "4X4ABC",
    "9A1AA",
    "3DA0AB",
    "VP2EAB",
    "HB9ABC",
    "JA1ABC",
    "EA8/DL1ABC",
    "HB9/W1AW",
    "DL1ABC/P",
    "DL1ABC/MM",
    "K1ABC/2",
    "W1AW/FN42/X",
    "W1AW/?",
    "i12345ab",
]
INVALID_CALLSIGNS = [
    "KH6XY2",
    "K12AB",
    "N1A2",
    "NA1B2",
    "ABC1",
    "ABCD",
    "TEST",
    "1234",
    "AB1",
    "A1B",
    "DL1ABCD",
    "W1ABCDE",
    "DL1ABCDEFGH",
    "I12345AB",
    "W1AW ABC",
    "W1AW;X",
    "BAD!",
    "NOT_A_CALL",
    "W1AW.",
    "T.MICRO",
    "",
    "PM12",
]


@pytest.mark.parametrize("callsign", VALID_CALLSIGNS)
def test_valid_callsigns(callsign):
    assert rules.is_valid_callsign(callsign)


@pytest.mark.parametrize("callsign", INVALID_CALLSIGNS)
def test_invalid_callsigns(callsign):
    assert not rules.is_valid_callsign(callsign)


@pytest.mark.parametrize(
    "raw, callsign, grid",
    [
        ("w1aw", "W1AW", ""),
        ("W5API/EM25", "W5API", "EM25"),
        ("W1AW-FN42ab", "W1AW", "FN42ab"),
        ("W1AW/FN42AB", "W1AW", "FN42ab"),
        ("KB1XYZ-EM25LX", "KB1XYZ", "EM25lx"),
        ("W1AW//FN42", "W1AW/", "FN42"),
        ("W1AW/FN42/X", "W1AW/FN42/X", ""),
        ("PM12", "", "PM12"),
        ("FN42", "", "FN42"),
        ("EA8/DL1ABC/QRPP", "EA8/DL1ABC/QRP", ""),
        ("  k1abc/fn42ab12 ", "K1ABC", "FN42ab"),  # an extended locator keeps its first 6 characters
    ],
)
def test_api_callsign_normalization(raw, callsign, grid):
    assert rules.split_api_callsign(raw, "") == (callsign, grid)


def test_api_callsign_keeps_grid_when_grid_field_given():
    assert rules.split_api_callsign("W1AW/FN42", "EM48") == ("W1AW/FN42", "EM48")


@pytest.mark.parametrize(
    "raw, callsign, grid",
    [
        ("W1AW//FN42", "W1AW", "FN42"),
        ("FN42", "FN42", ""),  # the legacy form keeps a lone grid as the callsign
        ("w1aw/em25", "w1aw", "EM25"),
        ("ABCD/FN42", "ABCD/FN42", ""),  # the rest is not a valid callsign
    ],
)
def test_form_callsign_normalization(raw, callsign, grid):
    assert rules.split_form_callsign(raw, "") == (callsign, grid)


@pytest.mark.parametrize(
    "raw, stored",
    [
        ("em48", "EM48"),
        ("EM48AB", "EM48ab"),
        ("fn42AB", "FN42ab"),
        (" io91wm ", "IO91wm"),
        ("JO22ab12", "JO22ab"),
        ("JO22AB12CD", "JO22ab"),
        ("EM48A", None),
        ("ZZ99", None),
        ("BADGRID", None),
        ("EM48AB1", None),
        ("", None),
        ("EM4８", None),
        ("EM48ﬀ", None),
        ("ﬀ12", None),
    ],
)
def test_grid_squares(raw, stored):
    assert rules.parse_grid(raw) == stored


@pytest.mark.parametrize(
    "raw, canonical",
    [
        ("heard", "Heard"),
        ("ACTIVE", "Heard"),
        ("Satellite Active", "Heard"),
        (" Heard ", "Heard"),
        ("telemetry", "Telemetry Only"),
        ("Telemetry/Beacon only", "Telemetry Only"),
        ("beacon", "Telemetry Only"),
        ("no signal", "Not Heard"),
        ("NOT HEARD", "Not Heard"),
        ("ISS crew (voice) active", "Crew Active"),
        ("not  heard", None),
        ("Loud", None),
        ("", None),
    ],
)
def test_report_values(raw, canonical):
    assert rules.normalize_report(raw) == canonical


@pytest.mark.parametrize(
    "raw, value",
    [
        (" 5", 5),
        ("5 ", 5),
        ("+3", 3),
        ("-3", -3),
        ("5.9", 5),
        (".5", 0),
        ("1e3", 1000),
        ("0x1A", None),
        ("1_000", None),
        ("12abc", None),
        ("abc", None),
        ("   ", None),
        ("", None),
    ],
)
def test_php_numeric_strings(raw, value):
    assert rules.php_int(raw) == value


def test_absurd_numbers_saturate():
    assert rules.clamp(rules.php_int("1e400"), 1, 720) == 720
    assert rules.clamp(rules.php_int("-99999999999999999999999"), 1, 500) == 1


@pytest.mark.parametrize(
    "raw, value",
    [
        ("1", True),
        (" TRUE ", True),
        ("yes", True),
        ("on", True),
        ("false", False),
        ("0", False),
        ("2", False),
        ("", False),
        (None, False),
    ],
)
def test_query_booleans(raw, value):
    assert rules.query_bool(raw) is value


@pytest.mark.parametrize("minute, period", [(0, 0), (15, 0), (16, 1), (30, 1), (31, 2), (45, 2), (46, 3), (59, 3)])
def test_periods(minute, period):
    assert rules.period_of_minute(minute) == period


@pytest.mark.parametrize(
    "text, value",
    [
        ("12", 12),
        (" +7abc", 7),
        ("-3", -3),
        ("abc", 0),
        ("", 0),
        ("12.9", 12),
        ("1e3", 1000),
        ("1.5e1", 15),
        ("1e-5", 0),
        ("1e20", 10**20),
        ("1e400", 2**63),
        ("-1e400", -(2**63)),
        (" +0007x", 7),
        ("-0", 0),
        ("9223372036854775807", 2**63 - 1),
        ("99999999999999999999", 2**63),
        ("9" * 5000, 2**63),
        ("-" + "9" * 5000, -(2**63)),
        ("0" * 5000 + "12", 12),  # int() refuses 4,301 digits
    ],
)
def test_php_intval(text, value):
    assert rules.php_intval(text) == value


def test_callsigns_are_upper_cased_like_php():
    assert rules.split_api_callsign("w1aw/ß", "") == ("W1AW/ß", "")
    assert rules.ascii_upper("k1abﬁ-ß") == "K1ABﬁ-ß"


@pytest.mark.parametrize(
    "text, ok",
    [
        ("https://www.amsat.org/ao-91/", True),
        ("http://example.org", True),
        ("HTTPS://EXAMPLE.ORG/x", True),
        ("javascript:alert(3)", False),
        ("JaVaScRiPt:alert(3)", False),
        ("data:text/html,x", False),
        ("//evil.org/", False),
        ("www.amsat.org", False),
        ("https://", False),
        ("http://a b.org/", False),
        ("https://[::1", False),
    ],
)
def test_websites_are_http_urls_with_a_host(text, ok):
    assert rules.is_web_url(text) is ok
