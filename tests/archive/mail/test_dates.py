"""A message's date and archived date (sathub.archive.mail.dates), Header rules 4 of archive-api.md,
on the edge files' real headers and From_ lines."""

from datetime import datetime

from sathub.archive.mail.dates import message_dates
from sathub.archive.mail.message import first_headers, parse_message
from tests.conftest import SHARED_DATA

EDGE = SHARED_DATA / "mail" / "edge"
IMPORT_TIME = datetime(2030, 1, 1)


def edge_dates(name: str):
    from_line, _, data = (EDGE / name).read_bytes().partition(b"\n")
    return message_dates(first_headers(parse_message(data)), from_line.decode("latin-1"), IMPORT_TIME)


def test_an_unusable_date_gives_way_to_the_from_line():
    # Date: Tue, 30 Nov 1999 23:56:33 -3000 (CST); From owner-mailman-users@python.org  Wed Dec  1 00:56:19 1999
    assert edge_dates("bad_date_tz.txt") == (datetime(1999, 12, 1, 0, 56, 19), datetime(1999, 12, 1, 0, 56, 19))


def test_resent_date_when_there_is_no_date():
    # Resent-Date: Mon, 8 Nov 1999 20:53:05 -0600; From zzz@example.com  Mon Nov  9 21:54:11 1999
    assert edge_dates("resent-date.txt") == (datetime(1999, 11, 9, 2, 53, 5), datetime(1999, 11, 9, 21, 54, 11))


def test_from_line_when_there_is_no_date_at_all():
    assert edge_dates("unixfrom-date.txt") == (datetime(1999, 11, 9, 21, 54, 11), datetime(1999, 11, 9, 21, 54, 11))


def test_a_non_ascii_date_is_unusable():
    # Date: \xbc\xf6, 27 6 2001 15:23:36; From xxx@korea.com  Wed Jun 27 15:23:36 2001
    assert edge_dates("non-ascii-date-header.txt") == (
        datetime(2001, 6, 27, 15, 23, 36),
        datetime(2001, 6, 27, 15, 23, 36),
    )


def dates(headers: str, from_line: str | None):
    return message_dates(first_headers(parse_message(headers.encode() + b"\n\nbody\n")), from_line, IMPORT_TIME)


def test_archived_date_is_the_from_line_date_only_when_that_line_names_an_address():
    # gpsd-dev line 65603-65605: pipermail's separator names no address, so the Date header
    header = "Date: Fri, 6 May 2005 11:26:21 +0200 (CEST)"
    assert dates(header, "From gpsd at xs4all.nl  Fri May  6 11:26:21 2005") == (
        datetime(2005, 5, 6, 9, 26, 21),
        datetime(2005, 5, 6, 9, 26, 21),
    )
    assert dates(header, "From gpsd@xs4all.nl  Fri May  6 11:26:21 2005") == (
        datetime(2005, 5, 6, 9, 26, 21),
        datetime(2005, 5, 6, 11, 26, 21),
    )
    assert dates(header, None) == (datetime(2005, 5, 6, 9, 26, 21), datetime(2005, 5, 6, 9, 26, 21))


def test_without_any_date_the_arrival_time():
    assert dates("Subject: no date", None) == (IMPORT_TIME, IMPORT_TIME)


def test_a_year_of_four_digits_is_the_year_it_writes():
    # Issue 40: Python's parser takes every year under 100 for a two-digit one, so `0001` was 2001
    # (and, an hour east of UTC, 2000-12-31).
    assert dates("Date: Mon, 1 Jan 0001 00:00:00 +0000", None) == (datetime(1, 1, 1), datetime(1, 1, 1))
    assert dates("Date: Fri, 1 Jan 0099 12:00:00 -0100", None)[0] == datetime(99, 1, 1, 13, 0)
    assert dates("Date: 1 Jan 0001 00:00:00 GMT", "From ann@example.com Mon Jan  1 09:00:00 0001") == (
        datetime(1, 1, 1),
        datetime(1, 1, 1, 9, 0),
    )
    # One or two digits keep the parser's (HyperKitty's) rule: 00-68 are 2000-2068, 69-99 1969-1999.
    assert dates("Date: Mon, 1 Jan 01 00:00:00 +0000", None)[0] == datetime(2001, 1, 1)
    assert dates("Date: Fri, 1 Jan 99 00:00:00 +0000", None)[0] == datetime(1999, 1, 1)


def test_a_date_before_the_year_1_in_utc_is_unusable():
    # Stored dates are UTC, and a datetime has no year 0: such a Date gives way like an offset of
    # 24 hours does, here to the From_ line's date.
    from_line = "From ann@example.com Mon Jan  6 10:00:00 2020"
    expected = (datetime(2020, 1, 6, 10, 0), datetime(2020, 1, 6, 10, 0))
    assert dates("Date: Mon, 1 Jan 0001 00:00:00 +0100", from_line) == expected
    assert dates("Date: Sat, 1 Jan 0000 00:00:00 +0000", from_line) == expected
