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
