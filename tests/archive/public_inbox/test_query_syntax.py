"""public-inbox's search syntax into sathub's: the prefixes of public-inbox 1.9's help
(PublicInbox::Search @HELP and %prob_prefix), the dates as lei sends them (Search::
query_argv_to_string: `d:2018-07-01..` as `d:20180701..`, approxidates as `dt:YYYYMMDDHHMMSS`),
and the forms public-inbox's own web search reads with git's approxidate. Every translation is
parsed by sathub's language too: what lei sends must parse."""

from __future__ import annotations

from datetime import datetime

import pytest

from sathub.archive.public_inbox.query_syntax import translate
from sathub.archive.search.query import DateRange, QueryError, parse

NOW = datetime(2024, 3, 15, 12, 30, 45)


@pytest.mark.parametrize(
    ("public_inbox", "sathub"),
    [
        ("gps", "gps"),
        ('"a quick brown fox"', '"a quick brown fox"'),
        ("\u201ca quick fox\u201d", '"a quick fox"'),  # Xapian takes curly quotes
        ('s:"a quick brown fox"', 's:"a quick brown fox"'),
        ("f:alice b:patch n:x.diff", "f:alice b:patch n:x.diff"),
        ("mid:a@b.c", "m:a@b.c"),
        ("m:a@b.c", "m:a@b.c"),
        ("bs:leak", "(s:leak OR b:leak)"),
        ("q:quoted nq:mine", "b:quoted b:mine"),
        ("dfn:Makefile dfa:removed dfb:added dfhh:main dfctx:context", "b:Makefile b:removed b:added b:main b:context"),
        ("l:python-committers.python.org", "l:python-committers@python.org"),
        ("l:<dev.example.org>", "l:dev@example.org"),
        ("+gps -s:spam", "gps -s:spam"),
        ("(gps OR s:ntp) AND NOT f:bot", "( gps OR s:ntp ) AND NOT f:bot"),
        ("linu*", "linu*"),
        ("http://example.org/x", "http://example.org/x"),
    ],
)
def test_fields_and_operators(public_inbox, sathub):
    assert translate(public_inbox, NOW) == sathub
    parse(sathub)


@pytest.mark.parametrize(
    ("public_inbox", "sathub"),
    [
        # lei's own rewrites (query_argv_to_string)
        ("d:20180701..", "d:20180701.."),
        ("d:..20180701", "d:..20180701"),
        ("d:20180701..20180705", "d:20180701..20180705"),
        ("dt:20240301123045..", "d:20240301123045.."),
        ("(gps) AND dt:20240301123045..", "( gps ) AND d:20240301123045.."),
        # a day alone is it and the next (date_parse_prepare's "+1 day" in an inclusive range)
        ("d:20180701", "d:20180701..20180702"),
        ("d:2018-07-01", "d:20180701..20180702"),
        ("d:2018-07-01..2018-07-31", "d:20180701..20180731"),
        ("dt:20240301123045", "d:20240301123045..20240302123045"),
        # rt: is epoch seconds (1709296245 is 2024-03-01 12:30:45 UTC)
        ("rt:1709296245..", "d:20240301123045.."),
        # the web form's approxidates
        ("d:2.weeks.ago..", "d:20240301123045.."),
        ("d:last.week..", "d:20240308123045.."),
        ("d:yesterday..now", "d:20240314123045..20240315123045"),
        ("d:..3.days.ago", "d:..20240312123045"),
        ("d:1.month.ago..", "d:20240215123045.."),
        ("d:2.years.ago..", "d:20220315123045.."),
        # sathub's own forms stay
        ("d:2018", "d:2018"),
        ("d:2018-07", "d:2018-07"),
    ],
)
def test_dates(public_inbox, sathub):
    assert translate(public_inbox, NOW) == sathub
    parse(sathub)


def test_a_second_is_a_range_inclusive_to_it():
    tree = parse(translate("dt:20240301123045..20240301123050", NOW))
    assert tree == DateRange(datetime(2024, 3, 1, 12, 30, 45), datetime(2024, 3, 1, 12, 30, 51))


@pytest.mark.parametrize(
    ("public_inbox", "said"),
    [
        ("t:alice", "t: is not searched here"),
        ("c:bob", "c: is not searched here"),
        ("a:alice", "a: is not searched here"),
        ("tc:x", "tc: is not searched here"),
        ("patchid:abc", "patchid: is not searched here"),
        ("z:1..", "z: is not searched here"),
        ("a XOR b", "XOR"),
        ("a NEAR b", "NEAR"),
        ("d:someday..", "'someday' is not a date"),
        ("d:99999999999.years.ago..", "before year 1"),
    ],
)
def test_what_sathub_does_not_search_is_refused(public_inbox, said):
    with pytest.raises(QueryError, match=said):
        translate(public_inbox, NOW)


def test_a_bad_second_is_not_a_date():
    with pytest.raises(QueryError, match="is not a date"):
        parse(translate("dt:20241301000000..", NOW))
