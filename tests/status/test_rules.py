"""The pure rules of interface A, with the tables of status-api.md sections 2.5, 5.1-5.4."""

from datetime import date, datetime, timezone

import pytest

from sathub.status import rules, times

VALID_CALLSIGNS = [
    "W1AW", "K1ABC", "KB1XYZ", "KH6XYZ", "WH6ABC", "N0CALL", "NL7AB", "NL12345", "PA12345", "ONL1234",
    "ONL12345", "OE60200755", "VK3FABC", "ONL1", "PM1ABC", "2E0ABC", "M0ABC", "4X4ABC", "9A1AA", "3DA0AB",
    "VP2EAB", "HB9ABC", "JA1ABC", "EA8/DL1ABC", "HB9/W1AW", "DL1ABC/P", "DL1ABC/MM", "K1ABC/2",
    "W1AW/FN42/X", "W1AW/?", "i12345ab",
]
INVALID_CALLSIGNS = [
    "KH6XY2", "K12AB", "N1A2", "NA1B2", "ABC1", "ABCD", "TEST", "1234", "AB1", "A1B", "DL1ABCD", "W1ABCDE",
    "DL1ABCDEFGH", "I12345AB", "W1AW ABC", "W1AW;X", "BAD!", "NOT_A_CALL", "W1AW.", "T.MICRO", "", "PM12",
]


@pytest.mark.parametrize("callsign", VALID_CALLSIGNS)
def test_valid_callsigns(callsign):
    assert rules.is_valid_callsign(callsign)


@pytest.mark.parametrize("callsign", INVALID_CALLSIGNS)
def test_invalid_callsigns(callsign):
    assert not rules.is_valid_callsign(callsign)


@pytest.mark.parametrize("raw, callsign, grid", [
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
])
def test_api_callsign_normalization(raw, callsign, grid):
    assert rules.split_api_callsign(raw, "") == (callsign, grid)


def test_api_callsign_keeps_grid_when_grid_field_given():
    assert rules.split_api_callsign("W1AW/FN42", "EM48") == ("W1AW/FN42", "EM48")


@pytest.mark.parametrize("raw, callsign, grid", [
    ("W1AW//FN42", "W1AW", "FN42"),
    ("FN42", "FN42", ""),  # the legacy form keeps a lone grid as the callsign
    ("w1aw/em25", "w1aw", "EM25"),
    ("ABCD/FN42", "ABCD/FN42", ""),  # the rest is not a valid callsign
])
def test_form_callsign_normalization(raw, callsign, grid):
    assert rules.split_form_callsign(raw, "") == (callsign, grid)


@pytest.mark.parametrize("raw, stored", [
    ("em48", "EM48"), ("EM48AB", "EM48ab"), ("fn42AB", "FN42ab"), (" io91wm ", "IO91wm"),
    ("JO22ab12", "JO22ab"), ("JO22AB12CD", "JO22ab"),
    ("EM48A", None), ("ZZ99", None), ("BADGRID", None), ("EM48AB1", None), ("", None), ("EM4８", None), ("EM48ﬀ", None), ("ﬀ12", None),
])
def test_grid_squares(raw, stored):
    assert rules.parse_grid(raw) == stored


@pytest.mark.parametrize("raw, canonical", [
    ("heard", "Heard"), ("ACTIVE", "Heard"), ("Satellite Active", "Heard"), (" Heard ", "Heard"),
    ("telemetry", "Telemetry Only"), ("Telemetry/Beacon only", "Telemetry Only"), ("beacon", "Telemetry Only"),
    ("no signal", "Not Heard"), ("NOT HEARD", "Not Heard"), ("ISS crew (voice) active", "Crew Active"),
    ("not  heard", None), ("Loud", None), ("", None),
])
def test_report_values(raw, canonical):
    assert rules.normalize_report(raw) == canonical


@pytest.mark.parametrize("raw, value", [
    (" 5", 5), ("5 ", 5), ("+3", 3), ("-3", -3), ("5.9", 5), (".5", 0), ("1e3", 1000),
    ("0x1A", None), ("1_000", None), ("12abc", None), ("abc", None), ("   ", None), ("", None),
])
def test_php_numeric_strings(raw, value):
    assert rules.php_int(raw) == value


def test_absurd_numbers_saturate():
    assert rules.clamp(rules.php_int("1e400"), 1, 720) == 720
    assert rules.clamp(rules.php_int("-99999999999999999999999"), 1, 500) == 1


@pytest.mark.parametrize("raw, value", [("1", True), (" TRUE ", True), ("yes", True), ("on", True),
                                        ("false", False), ("0", False), ("2", False), ("", False), (None, False)])
def test_query_booleans(raw, value):
    assert rules.query_bool(raw) is value


@pytest.mark.parametrize("minute, period", [(0, 0), (15, 0), (16, 1), (30, 1), (31, 2), (45, 2), (46, 3), (59, 3)])
def test_periods(minute, period):
    assert rules.period_of_minute(minute) == period


NOW = datetime(2026, 5, 23, 9, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("text, expected", [
    ("2026-05-23T08:30:00Z", "2026-05-23T08:30:00Z"),
    ("2026-05-23T08:30:00+02:00", "2026-05-23T06:30:00Z"),
    ("2026-05-23T08:30:00-0500", "2026-05-23T13:30:00Z"),
    ("2026-05-23T08:30:00.123Z", "2026-05-23T08:30:00Z"),
    ("2026-05-23T08:30:00", "2026-05-23T08:30:00Z"),
    ("2026-05-23T08:30", "2026-05-23T08:30:00Z"),
    ("2026-05-23 08:30:15", "2026-05-23T08:30:15Z"),
    ("2026-05-23", "2026-05-23T00:00:00Z"),
    ("20260523T083000Z", "2026-05-23T08:30:00Z"),
    ("@1779525000", "2026-05-23T08:30:00Z"),
    ("May 23 2026 8:30", "2026-05-23T08:30:00Z"),
    ("05/23/2026", "2026-05-23T00:00:00Z"),
    ("Sat, 23 May 2026 08:30:00 +0000", "2026-05-23T08:30:00Z"),
    ("now", "2026-05-23T09:10:00Z"),
    ("today", "2026-05-23T00:00:00Z"),
    ("yesterday", "2026-05-22T00:00:00Z"),
    ("-1 hour", "2026-05-23T08:10:00Z"),
    ("-90 minutes", "2026-05-23T07:40:00Z"),
    ("-2 days", "2026-05-21T09:10:00Z"),
    ("1 hour ago", "2026-05-23T08:10:00Z"),
])
def test_timestamps(text, expected):
    assert times.iso_z(times.parse_timestamp(text, NOW)) == expected


@pytest.mark.parametrize("text", ["a", "2026", "1", "12", "2026-02-30", "2026-13-01", "garbage", "",
                                  "9999-12-31T23:59:59-14:00", "31 Dec 9999 23:59:59 EST", "2026-05-23T25:00:00Z", "' OR 1=1 --"])
def test_accidental_timestamps_are_rejected(text):
    assert times.parse_timestamp(text, NOW) is None


@pytest.mark.parametrize("since, first", [
    (datetime(2026, 5, 23, 8, 10, tzinfo=timezone.utc), (date(2026, 5, 23), 8)),  # 08:30 >= 08:10
    (datetime(2026, 5, 23, 8, 30, tzinfo=timezone.utc), (date(2026, 5, 23), 8)),
    (datetime(2026, 5, 23, 8, 30, 1, tzinfo=timezone.utc), (date(2026, 5, 23), 9)),
    (datetime(2026, 5, 23, 0, 0, tzinfo=timezone.utc), (date(2026, 5, 23), 0)),
    (datetime(2026, 5, 22, 23, 45, tzinfo=timezone.utc), (date(2026, 5, 23), 0)),
    (datetime(1, 1, 1, tzinfo=timezone.utc), (date.min, 0)),
    (datetime(9999, 12, 31, 23, 30, tzinfo=timezone.utc), (date.max, 23)),
    (datetime(9999, 12, 31, 23, 31, tzinfo=timezone.utc), (date.max, 24)),  # no hour is late enough
])
def test_window_boundaries(since, first):
    assert times.first_included_hour(since) == first


def test_read_form_time_is_minute_30():
    assert times.read_form_time(date(2026, 5, 2), 8) == "2026-05-02T08:30:00Z"


@pytest.mark.parametrize("text, value", [
    ("12", 12), (" +7abc", 7), ("-3", -3), ("abc", 0), ("", 0), ("12.9", 12), ("1e3", 1000),
    ("1.5e1", 15), ("1e-5", 0), ("1e20", 10 ** 20), ("1e400", 2 ** 63), ("-1e400", -(2 ** 63)),
])
def test_php_intval(text, value):
    assert rules.php_intval(text) == value


def test_callsigns_are_upper_cased_like_php():
    assert rules.split_api_callsign("w1aw/ß", "") == ("W1AW/ß", "")
    assert rules.ascii_upper("k1abﬁ-ß") == "K1ABﬁ-ß"
