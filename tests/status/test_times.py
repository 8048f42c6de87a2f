"""The timestamp rules of interface A (status-api.md 5.4): accepted forms, PHP's accidental
readings refused, windows and read forms."""

from datetime import UTC, date, datetime, timedelta

import pytest

from sathub.status import times

NOW = datetime(2026, 5, 23, 9, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text, expected",
    [
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
    ],
)
def test_timestamps(text, expected):
    assert times.iso_z(times.parse_timestamp(text, NOW)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a",
        "2026",
        "1",
        "12",
        "2026-02-30",
        "2026-13-01",
        "garbage",
        "",
        "9999-12-31T23:59:59-14:00",
        "31 Dec 9999 23:59:59 EST",
        "2026-05-23T25:00:00Z",
        "' OR 1=1 --",
    ],
)
def test_accidental_timestamps_are_rejected(text):
    assert times.parse_timestamp(text, NOW) is None


@pytest.mark.parametrize(
    "since, first",
    [
        (datetime(2026, 5, 23, 8, 10, tzinfo=UTC), (date(2026, 5, 23), 8)),  # 08:30 >= 08:10
        (datetime(2026, 5, 23, 8, 30, tzinfo=UTC), (date(2026, 5, 23), 8)),
        (datetime(2026, 5, 23, 8, 30, 1, tzinfo=UTC), (date(2026, 5, 23), 9)),
        (datetime(2026, 5, 23, 0, 0, tzinfo=UTC), (date(2026, 5, 23), 0)),
        (datetime(2026, 5, 22, 23, 45, tzinfo=UTC), (date(2026, 5, 23), 0)),
        (datetime(1, 1, 1, tzinfo=UTC), (date.min, 0)),
        (datetime(9999, 12, 31, 23, 30, tzinfo=UTC), (date.max, 23)),
        (datetime(9999, 12, 31, 23, 31, tzinfo=UTC), (date.max, 24)),  # no hour is late enough
    ],
)
def test_window_boundaries(since, first):
    assert times.first_included_hour(since) == first


def test_read_form_time_is_minute_30():
    assert times.read_form_time(date(2026, 5, 2), 8) == "2026-05-02T08:30:00Z"


@pytest.mark.parametrize(
    "hours, expected",
    [
        (0, "2000-01-01T00:30:00Z"),
        (23, "2000-01-01T23:30:00Z"),
        (24 * 366 + 5, "2001-01-01T05:30:00Z"),  # 2000 is a leap year
        (-1, "1999-12-31T23:30:00Z"),
        (-730119 * 24, "0001-01-01T00:30:00Z"),  # no lower bound on reported_at
    ],
)
def test_summary_hour_numbers_read_as_minute_30(hours, expected):
    assert times.read_form_time_of_hour_number(hours) == expected


def test_now_is_read_to_the_second_as_phps_time_does(monkeypatch):
    """Half a second into 12:30:00, a 72-hour window still starts with the report of 72 hours ago
    read as 12:30:00, as upstream's time() sees it (and one second's answers are all alike)."""

    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime(2026, 11, 24, 12, 30, 0, 500_000, tzinfo=tz)

    monkeypatch.setattr(times, "datetime", Clock)
    now = times.utc_now()
    assert now == datetime(2026, 11, 24, 12, 30, tzinfo=UTC)
    assert times.first_included_hour(now - timedelta(hours=72)) == (date(2026, 11, 21), 12)
