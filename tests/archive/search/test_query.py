"""The query language as docs/archive-search.md states it: each feature's tree, each refusal's message."""

from datetime import datetime

import pytest

from sathub.archive.search.query import MAX_WORDS, And, DateRange, Exact, Not, Or, QueryError, Term, parse


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("Horák", Term(("horak",))),
        ("gpsd release", And((Term(("gpsd",)), Term(("release",))))),
        ("release*", Term(("release",), prefix=True)),
        ('"release candidate"', Term(("release", "candidate"))),
        ("ntp OR chrony", Or((Term(("ntp",)), Term(("chrony",))))),
        ("ntp AND chrony", And((Term(("ntp",)), Term(("chrony",))))),
        ("gps NOT usb", And((Term(("gps",)), Not(Term(("usb",)))))),
        ("gps -usb", And((Term(("gps",)), Not(Term(("usb",)))))),
        ("(a OR b) c", And((Or((Term(("a",)), Term(("b",)))), Term(("c",))))),
        ("or and not", And((Term(("or",)), Term(("and",)), Term(("not",))))),
        ("s:release", Term(("release",), "subject")),
        ('s:"release candidate"', Term(("release", "candidate"), "subject")),
        ("b:patch", Term(("patch",), "body")),
        ("f:esr@thyrsus.com", Term(("esr", "thyrsus", "com"), "sender")),
        ("f:raymond", Term(("raymond",), "sender")),
        ("n:diff*", Term(("diff",), "files", True)),
        ("m:<abc@example.org>", Exact("m", "abc@example.org")),
        ("l:GPSD-Dev@lists.berlios.de", Exact("l", "gpsd-dev@lists.berlios.de")),
        ("d:2010-01-01..2010-12-31", DateRange(datetime(2010, 1, 1), datetime(2011, 1, 1))),
        ("d:20100101..", DateRange(datetime(2010, 1, 1), None)),
        ("d:..2010-06", DateRange(None, datetime(2010, 7, 1))),
        ("d:2010", DateRange(datetime(2010, 1, 1), datetime(2011, 1, 1))),
        ("d:2010-02", DateRange(datetime(2010, 2, 1), datetime(2010, 3, 1))),
        ("don't", Term(("don", "t"))),
        ("gps --", Term(("gps",))),
    ],
)
def test_each_feature_parses_to_its_tree(text, tree):
    assert parse(text) == tree


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the query is empty (at character 1)"),
        ("--", "the query has no word to search for (at character 1)"),
        ("gps AND", "the query ends where a word was expected (at character 8)"),
        ("(gps", "'(' is never closed (at character 1)"),
        ("gps)", "unexpected ')' (at character 4)"),
        ('"gps', "unclosed quote (at character 1)"),
        ("re*", "a prefix needs at least 3 characters before '*' (at character 1)"),
        ("x s:ab*", "a prefix needs at least 3 characters before '*' (at character 3)"),
        ("s:", "s: needs a word (at character 1)"),
        ("d:2010-13", "'2010-13' is not a date (at character 1)"),
        ("d:2011..2010", "the date range ends before it starts (at character 1)"),
        ("d:yesterday", "'yesterday' is not a date: YYYY, YYYY-MM or YYYY-MM-DD (at character 1)"),
        ("()", "empty parentheses (at character 1)"),
        ("x" * 501, "the query is longer than 500 characters (at character 501)"),
        ("((((((((( a )))))))))", "more than 8 levels of NOT and parentheses (at character 9)"),
    ],
)
def test_refused_queries_say_what_and_where(text, message):
    with pytest.raises(QueryError) as refused:
        parse(text)
    assert str(refused.value) == message


def test_thousands_of_terms_are_refused():
    with pytest.raises(QueryError, match=f"more than {MAX_WORDS} words"):
        parse(" ".join(f"w{i}" for i in range(MAX_WORDS + 1)))
    assert isinstance(parse(" ".join(f"w{i}" for i in range(MAX_WORDS))), And)
