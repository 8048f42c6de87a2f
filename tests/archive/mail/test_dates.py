"""A message's date and archived date (sathub.archive.mail.dates)."""

from datetime import datetime

import pytest

from sathub.archive.mail.dates import message_dates, parse_date
from sathub.archive.mail.message import first_headers, parse_message

IMPORT_TIME = datetime(2030, 1, 1)


@pytest.mark.parametrize("value, utc", [
    ("Thu, 19 Aug 2004 18:02:18 -0400", datetime(2004, 8, 19, 22, 2, 18)),
    ("Fri,  6 Apr 2007 15:43:55 -0700 (PDT)", datetime(2007, 4, 6, 22, 43, 55)),
    ("Tue, 30 Nov 1999 23:56:33 +05-30", datetime(1999, 11, 30, 18, 26, 33)),
    ("Tue, 30 Nov 1999 23:56:33 +05:30", datetime(1999, 11, 30, 18, 26, 33)),
    ("Tue, 30 Nov 1999 23:56:33 -3000 (CST)", datetime(1999, 11, 30, 23, 56, 33)),  # no such zone: UTC
    ("Mon Nov  9 21:54:11 1999", datetime(1999, 11, 9, 21, 54, 11)),  # asctime, From_ lines
    ("Thu, 19 Aug 2004 18:02:60 +0000", datetime(2004, 8, 19, 18, 2, 59)),  # leap second
    ("\u00bc\u00f6, 27 6 2001 15:23:36", None),
    ("yesterday", None),
    ("", None),
])
def test_parse_date(value, utc):
    assert parse_date(value) == utc


def dates(headers: str, from_line: str | None):
    return message_dates(first_headers(parse_message(headers.encode() + b"\n\nbody\n")), from_line, IMPORT_TIME)


def test_date_falls_back_to_resent_date_then_from_line_then_import_time():
    line = "From zzz@example.com  Mon Nov  9 21:54:11 1999"
    assert dates("Date: Mon, 8 Nov 1999 20:53:05 -0600", line)[0] == datetime(1999, 11, 9, 2, 53, 5)
    assert dates("Resent-Date: Mon, 8 Nov 1999 20:53:05 -0600", line)[0] == datetime(1999, 11, 9, 2, 53, 5)
    assert dates("Date: garbage", line)[0] == datetime(1999, 11, 9, 21, 54, 11)
    assert dates("Subject: no date", None)[0] == IMPORT_TIME


def test_archived_date_is_the_from_line_date_only_when_that_line_names_an_address():
    header = "Date: Mon, 8 Nov 1999 20:53:05 -0600"
    assert dates(header, "From zzz@example.com  Mon Nov  9 21:54:11 1999")[1] == datetime(1999, 11, 9, 21, 54, 11)
    # pipermail's separator reads `user at example.org`: no address, so the Date header
    assert dates(header, "From zzz at example.com  Mon Nov  9 21:54:11 1999")[1] == datetime(1999, 11, 9, 2, 53, 5)
    assert dates(header, "From MAILER-DAEMON Sat Aug 28 14:17:14 2021")[1] == datetime(1999, 11, 9, 2, 53, 5)
    assert dates(header, None)[1] == datetime(1999, 11, 9, 2, 53, 5)
