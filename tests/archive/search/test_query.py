"""The query language as docs/archive-search.md states it: each feature's tree, each refusal's
message; and, for queries built from every shape of the language, that each tree it accepts is
well formed and runs on SQLite and PostgreSQL, finding what brute.py's scan finds."""

from datetime import datetime

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sathub.archive.search.query import MAX_WORDS, And, DateRange, Exact, Not, Or, QueryError, Term, parse
from sathub.archive.store import search
from sathub.archive.store.listing import Page
from sathub.archive.store.search import SORTS
from sathub.db import connect
from tests.archive.api_fixtures import seed_archive
from tests.archive.search.brute import matches
from tests.archive.store.test_search import load


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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # issue 40: an OR of punctuation alone parsed to Or(And(), And()), which no database runs
        ("-- OR --", "the query has no word to search for (at character 1)"),
        ("!! OR ??", "the query has no word to search for (at character 1)"),
        ("... OR ...", "the query has no word to search for (at character 1)"),
        ("-- AND --", "the query has no word to search for (at character 1)"),
        ("gps (-- OR --)", "the parentheses hold no word to search for (at character 5)"),
        ("NOT (-- OR --)", "the parentheses hold no word to search for (at character 5)"),
        ("d:2010 (-- OR --)", "the parentheses hold no word to search for (at character 8)"),
        ("gps (--)", "the parentheses hold no word to search for (at character 5)"),
        ("gps -(... !!)", "the parentheses hold no word to search for (at character 6)"),
        ("(a OR (--)) b", "the parentheses hold no word to search for (at character 7)"),
        ("(-- AND ??) OR gps", "the parentheses hold no word to search for (at character 1)"),
        ("gps NOT --", "NOT of nothing searchable (at character 5)"),
        ("NOT NOT ...", "NOT of nothing searchable (at character 5)"),
        ("gps b:--", "b: needs a word (at character 5)"),
        ('gps m:"<>"', "m: needs a value (at character 5)"),
    ],
)
def test_a_group_a_not_or_a_query_of_punctuation_alone_is_refused_where_it_stands(text, message):
    with pytest.raises(QueryError) as refused:
        parse(text)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("gps OR --", Term(("gps",))),
        ("-- OR gps", Term(("gps",))),
        ("gps (-- OR -- OR usb)", And((Term(("gps",)), Term(("usb",))))),
        ("(gps -- OR !!) usb", And((Term(("gps",)), Term(("usb",))))),
    ],
)
def test_punctuation_beside_words_is_left_out(text, tree):
    assert parse(text) == tree


# Queries built from the language's own shapes: words, prefixes, phrases and punctuation alone,
# with or without a field, exact fields and dates, in groups, under NOT and `-`, joined by OR, AND
# and juxtaposition. The words are those of api_fixtures' archive, so that many queries find mail.
WORDS = st.sampled_from(
    ["welcome", "hello", "report", "zoë", "ÇA", "secret", "tie", "alice", "zzzz", "welc*", '"tie one"', '"tie tw"*',
     "don't", "signature.asc"]
)  # fmt: skip
PUNCTUATION = st.sampled_from(["--", "!!", "??", "...", "-", "*", '""', '"--"', "'", "—", "+", "@", "«»", '"'])
FIELD = st.sampled_from(["", "", "", "s:", "b:", "f:", "n:"])
EXACT = st.sampled_from(
    ["m:<a-msg@example.org>", "m:nobody@example.org", "l:dev@example.org", "l:PRIVATE@example.org", "l:nowhere@x",
     "d:2021", "d:2021-01..", "d:..2021-01-02", "d:2021-03-01..2021-03-01", "d:20210101", "d:9999", "d:..0001"]
)  # fmt: skip
LEAVES = st.one_of(st.tuples(FIELD, WORDS).map("".join), PUNCTUATION, st.tuples(FIELD, PUNCTUATION).map("".join), EXACT)


def _composed(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        inner.map(lambda text: f"({text})"),
        inner.map(lambda text: f"NOT {text}"),
        inner.map(lambda text: f"-{text}"),
        st.tuples(inner, st.sampled_from([" OR ", " AND ", " "]), inner).map("".join),
    )


QUERIES = st.recursive(LEAVES, _composed, max_leaves=8)
# Tried first: the shapes issue 40 found accepted and failing in both databases, and the NOT of a
# list that is not there, which found nothing on PostgreSQL (NOT of `list_id = NULL`).
KNOWN = ("-- OR --", "!! OR ??", "... OR ...", "gps (-- OR --)", "NOT (-- OR --)", "d:2010 (-- OR --)", "-l:nowhere@x")


def with_known_shapes(test):
    for text in KNOWN:
        test = example(text)(test)
    return test


def well_formed(node) -> bool:
    """Whether `node` is a tree both compilers can say: no AND or OR of fewer than two parts, no
    term without a word, no empty exact value, no date range open at both ends."""
    if isinstance(node, And | Or):
        return len(node.items) >= 2 and all(well_formed(item) for item in node.items)
    if isinstance(node, Not):
        return well_formed(node.item)
    if isinstance(node, Term):
        return bool(node.words) and all(node.words)
    if isinstance(node, Exact):
        return bool(node.value)
    return isinstance(node, DateRange) and (node.start is not None or node.end is not None)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(QUERIES)
@with_known_shapes
def test_every_tree_the_parser_accepts_is_well_formed(text):
    try:
        tree = parse(text)
    except QueryError as refused:
        assert 1 <= refused.position <= len(text) + 1, (text, refused.position)
        return
    assert well_formed(tree), (text, tree)


def test_every_tree_the_parser_accepts_runs_and_finds_what_a_scan_finds(engine):
    """On both backends: every order of `search`, `matching_ids` and `count` run, and find the
    emails of public lists brute.py's scan finds."""
    seed_archive(engine)
    docs, _ = load(engine)
    accepted = []

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(QUERIES)
    @with_known_shapes
    def check(text):
        try:
            tree = parse(text)
        except QueryError:
            return
        accepted.append(text)
        expected = {doc.id for doc in docs if matches(doc, tree)}
        with connect(engine) as conn:
            for sort in SORTS:
                found = search.search(conn, tree, sort=sort, page=Page(100, 0))
                assert (found.count, {row.id for row in found.rows}) == (len(expected), expected), (text, sort)
            assert set(search.matching_ids(conn, tree)) == expected, text
            assert search.count(conn, tree) == len(expected), text

    check()
    assert len(accepted) > 100  # the property held for queries the parser takes, not only refusals
