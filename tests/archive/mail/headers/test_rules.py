"""Header values read as HyperKitty reads them (sathub.archive.mail.headers): Header rules 3 and 4
of archive-api.md. Raw header text copied from the corpus (file and line named); expected values
written out from the rules."""

from datetime import datetime

import pytest

from sathub.archive.mail.headers import archived_subject, header_datetime


@pytest.mark.parametrize(
    "raw, archived",
    [
        # gpsd-dev.mbox line 6778: a single-line subject is kept verbatim, its trailing space too
        ("[Gpsd-dev] Not working with TripMate, either ", "[Gpsd-dev] Not working with TripMate, either "),
        # gpsd-dev line 65606: one space before the fold goes, the continuation's five spaces stay
        (
            "[Gpsd-dev] Should gpsd automatically jack up the connection \n     speed to 57600?",
            "[Gpsd-dev] Should gpsd automatically jack up the connection     speed to 57600?",
        ),
        # gpsd-dev line 92076: six blanks before the fold all stay, then the continuation's five
        (
            "[Gpsd-dev] 2.26 release is waiting on reports about NMEA      \n     devices",
            "[Gpsd-dev] 2.26 release is waiting on reports about NMEA           devices",
        ),
        # python-committers line 720: a tab continuation stays a tab
        (
            "[python-committers] Everyone is now subscribed (and two people to\n\tdrop)",
            "[python-committers] Everyone is now subscribed (and two people to\tdrop)",
        ),
        # python-committers line 27013
        (
            "[python-committers] [Python-Dev] On track for Python 2.6.4\n final this Sunday?",
            "[python-committers] [Python-Dev] On track for Python 2.6.4 final this Sunday?",
        ),
        # gpsd-dev line 124719: adjacent encoded words across a fold join without the whitespace
        (
            "[Gpsd-dev] =?ISO-8859-1?Q?Re:_[Gpsd-dev]_Assorted_issues_from_while_I_was_off_learni?=\n"
            " =?ISO-8859-1?Q?ng_to_swordfight?=",
            "[Gpsd-dev] Re: [Gpsd-dev] Assorted issues from while I was off learning to swordfight",
        ),
        # the rule's own example
        ("being \n     lost", "being     lost"),
        # edge/bad-subject-header.txt: text before an encoded word keeps its space; Latin-1 0x85 is U+0085
        ("(et en plus, en =?iso-8859-1?b?bG9jYWyFKQ==?=", "(et en plus, en local\x85)"),
        # edge/bad_folding.txt: a line break decoded from `=0D` and the space after it become one space
        (
            "=?iso-8859-1?q?=5B=3Credacted=3E=5D__Sicherheit_2005=3A_Stichworte_?=\n"
            " =?iso-8859-1?q?und_Vorschlag_PC-Mitglieder=3B=0D_Erg=E4nzung!?=",
            "[<redacted>]  Sicherheit 2005: Stichworte und Vorschlag PC-Mitglieder; Ergänzung!",
        ),
        ("", ""),
        (None, ""),
    ],
)
def test_subject(raw, archived):
    assert archived_subject(raw) == archived


@pytest.mark.parametrize(
    "raw, utc",
    [
        # gpsd-dev line 65604: converted to UTC
        ("Fri, 6 May 2005 11:26:21 +0200 (CEST)", datetime(2005, 5, 6, 9, 26, 21)),
        # edge/bad_date_tz.txt: an offset of 24 hours or more makes the Date unusable
        ("Tue, 30 Nov 1999 23:56:33 -3000 (CST)", None),
        # edge/resent-date.txt
        ("Mon, 8 Nov 1999 20:53:05 -0600", datetime(1999, 11, 9, 2, 53, 5)),
        # edge/non-ascii-date-header.txt (Latin-1 bytes, read as such)
        ("\xbc\xf6, 27 6 2001 15:23:36", None),
        # a From_ line's asctime date (edge/unixfrom-date.txt), no zone: UTC
        ("Mon Nov  9 21:54:11 1999", datetime(1999, 11, 9, 21, 54, 11)),
        ("Mon, 06 Jan 2020 10:00:00 +2359", datetime(2020, 1, 5, 10, 1)),  # under 24 h: converted
        ("yesterday", None),
        ("", None),
        (None, None),
    ],
)
def test_header_datetime(raw, utc):
    assert header_datetime(raw) == utc
