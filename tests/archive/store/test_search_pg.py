"""PostgreSQL's statements of a search (archive/store/search_pg.py).

What each statement asks of the index, compiled for PostgreSQL (docs/archive-search.md, "The JSON
API"): words asked of the subject, the sender or the file names alone are matched and ranked on
`heading`, any other on `document`; the private lists' ids are always left out.

Its plans on the real corpus (the `corpus` fixture of tests/archive/corpus.py): sorted by date, a
word's matches come from the GIN index and are then sorted. With the dates' B-tree (migration 0016)
the planner walked it instead, newest first, testing every email's tsvector as if the page's end
would stop it; the count the statement carries reads every match first, so it read every email (a
rare word: 34 ms against 0.6)."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql

from sathub import db
from sathub.archive.search.query import And, Not, parse
from sathub.archive.store import search, search_pg
from sathub.archive.store.listing import Page
from sathub.archive.store.search_partitions import partitions
from sathub.archive.store.search_pg import PostgresSearch
from sathub.archive.tables import emails
from tests.archive.api_fixtures import seed_big_list
from tests.archive.corpus import CORPUS_GROUP
from tests.conftest import BACKENDS


@pytest.fixture(autouse=True)
def fresh_largest_id():
    """Each test's spans start from the index's largest id as it is: span_matches keeps it a second
    per engine, and a test's engine may be an earlier test's, whose mail was another."""
    search_pg._known.clear()


def plans(engine, query: str, sort: str) -> list[str]:
    """EXPLAIN of each statement the search ran, with the parameters it ran with."""
    ran: list[tuple[str, object]] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        ran.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        with db.connect(engine) as conn:
            search.search(conn, parse(query), sort=sort, page=Page(10, 0))
    finally:
        event.remove(engine, "before_cursor_execute", record)
    with db.connect(engine) as conn:
        return [
            "\n".join(conn.exec_driver_sql(f"EXPLAIN {statement}", parameters).scalars())
            for statement, parameters in ran
        ]


@CORPUS_GROUP
@pytest.mark.parametrize("corpus", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("sort", ["date-desc", "date-asc"])
@pytest.mark.parametrize("query", ["ephemeris", "satel*", "s:release"])
def test_words_sorted_by_date_are_found_by_the_word_index_not_by_walking_the_dates(corpus, query, sort):
    explained = plans(corpus.engine, query, sort)
    assert explained and not any("email_search_date" in plan for plan in explained), explained
    assert any("Bitmap Index Scan on email_search_" in plan for plan in explained), explained


def compiled(query: str, sort: str = "relevance") -> str:
    """The SQL of the ids of `query`'s first page, its words and predicates split as the front does."""
    tree = parse(query)
    items = list(tree.items) if isinstance(tree, And) else [tree]
    text = [item for item in items if not isinstance(item, Not)]
    negated = [item for item in items if isinstance(item, Not)]
    ids, _ = PostgresSearch().statement(text, negated, [], None, sort, walk=False, window=1000)
    return str(ids.compile(dialect=postgresql.dialect()))


@pytest.mark.parametrize("query", ["s:release", "f:raymond", "n:diff*", "s:release -s:candidate", "s:gps f:esr"])
def test_words_of_the_subject_sender_and_file_names_are_asked_of_heading(query):
    sql = compiled(query)
    assert "email_search.heading @@" in sql and "email_search.document @@" not in sql
    assert "ts_rank(ranked.heading" in sql


@pytest.mark.parametrize("query", ["release", "b:release", "s:release candidate", "gps -s:usb"])
def test_any_other_word_is_asked_of_document(query):
    sql = compiled(query)
    assert "email_search.document @@" in sql and "ts_rank(ranked.document" in sql


@pytest.mark.parametrize("sort", ["relevance", "date-desc", "date-asc", "arrival"])
def test_the_private_lists_are_always_left_out(sort):
    assert "email_search.list_id NOT IN (SELECT mailing_lists.id" in compiled("gps", sort)
    if sort != "arrival":  # the matches read by spans too
        spans = PostgresSearch().spans([parse("gps")], [], [], None, sort)
        within = str(spans.within.compile(dialect=postgresql.dialect()))
        assert "email_search.list_id NOT IN (SELECT mailing_lists.id" in within


@CORPUS_GROUP
@pytest.mark.parametrize("corpus", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("query", ["gpsd", "ephemeris", "s:release", "gpsd -python", "ntp OR chrony", "zzzznothing"])
def test_matches_read_newest_first_are_every_matchs_newest(corpus, query, monkeypatch):
    """span_matches widens its span of ids until it holds what is needed (spans forced: the corpus
    is small), or finds it would hold every id (None): what it finds are every match's newest,
    sorted whole here."""
    force_spans(monkeypatch)
    tree = parse(query)
    items = list(tree.items) if isinstance(tree, And) else [tree]
    text = [item for item in items if not isinstance(item, Not)]
    negated = [item for item in items if isinstance(item, Not)]
    spans = PostgresSearch().spans(text, negated, [], None, "relevance")
    with db.connect(corpus.engine) as conn:
        every = list(conn.scalars(spans.within.limit(None), {"bound": 0}))
        assert every == sorted(every, reverse=True)
        answers = {needed: search_pg.span_matches(conn, spans, needed) for needed in (1, 7, 1001, 10_001)}
    for needed, found in answers.items():
        assert found is None or found == every[:needed], needed
    if query == "zzzznothing":
        assert set(answers.values()) == {None}


@CORPUS_GROUP
@pytest.mark.parametrize("corpus", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("sort", ["relevance", "date-desc", "date-asc"])
@pytest.mark.parametrize("query", ["gpsd", "ephemeris", "s:release", "gps time", "gpsd -python"])
@pytest.mark.parametrize("spans", [False, True], ids=["as set", "spans forced"])
def test_pages_read_by_spans_are_the_pages_of_every_match_read(corpus, query, sort, spans, monkeypatch):
    """With a count limit, the matches are read in the search's order a span at a time as far as
    needed, or whole (as set, the corpus is read whole: a span of 20,002 is most of it); the pages
    (rows, scores, whether more follow) are those of the statement that reads every match (no
    count limit): by relevance in the ranked window, across its end and past it, by date at the
    start and deep."""
    if spans:
        force_spans(monkeypatch)
    with db.connect(corpus.engine) as conn:
        for offset in (0, 995, 5000):
            page = Page(10, offset)
            capped = search.search(conn, parse(query), sort=sort, page=page, count_limit=10_000)
            every = search.search(conn, parse(query), sort=sort, page=page)
            assert [row.id for row in capped.rows] == [row.id for row in every.rows], offset
            assert capped.scores == pytest.approx(every.scores), offset
            assert capped.more == every.more
            assert (capped.count, capped.count_exact) == (min(every.count, 10_000), every.count <= 10_000)


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("whole", [search_pg._WHOLE, 0], ids=["as set", "never whole"])
def test_a_span_is_widened_until_it_holds_what_is_needed(engine, whole, monkeypatch):
    """big@example.org's 45 emails hold "text", the newest ids: a span of twice the matches needed
    holds them; more than there are widens the span until it would hold every id (None). Spans of
    up to all the mail are asked here (_HALF 1), as a large archive's are of its newest part."""
    monkeypatch.setattr(search_pg, "_WHOLE", whole)
    monkeypatch.setattr(search_pg, "_HALF", 1)
    seed_big_list(engine, replies=22)
    newest = PostgresSearch().spans([parse("text")], [], [], None, "relevance")
    with db.connect(engine) as conn:
        every = list(conn.scalars(sa.select(emails.c.id).order_by(emails.c.id.desc())))
        assert len(every) == 45
        for needed in (1, 3, 20, 22):
            assert search_pg.span_matches(conn, newest, needed) == every[:needed], needed
        assert search_pg.span_matches(conn, newest, 46) is None
        # The thread's 23, older than the 22 single emails: the first spans hold none of them.
        big = list(conn.scalars(sa.select(emails.c.id).where(emails.c.subject == "Big").order_by(emails.c.id.desc())))
        assert len(big) == 23 and big[0] < min(set(every) - set(big))
        found = search_pg.span_matches(conn, PostgresSearch().spans([parse("s:big")], [], [], None, "relevance"), 2)
        assert found == (None if whole else big[:2])  # widened from 4 ids when never read whole
        nothing = PostgresSearch().spans([parse("zzzznothing")], [], [], None, "relevance")
        assert search_pg.span_matches(conn, nothing, 3) is None
        # As set, a span of more than half the ids is not asked: the match is read whole. (The ids
        # run to every[0], from wherever the database's sequence stood: a shared test database's
        # are in the thousands.)
        monkeypatch.setattr(search_pg, "_HALF", 2)
        asked = []
        monkeypatch.setattr(conn, "scalars", lambda *args: asked.append(args) or [])
        assert search_pg.span_matches(conn, newest, every[0] // 4 + 1) is None
        assert asked == []


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
def test_a_stale_largest_id_changes_the_spans_not_what_they_find(engine, monkeypatch):
    """The largest id is read again only after _TOP_SECONDS: mail that arrived since (the largest id
    read as a middle one's) or was deleted (read as larger than any) still gives the newest matches."""
    force_spans(monkeypatch)
    seed_big_list(engine, replies=22)
    newest = PostgresSearch().spans([parse("text")], [], [], None, "relevance")
    with db.connect(engine) as conn:
        every = list(conn.scalars(sa.select(emails.c.id).order_by(emails.c.id.desc())))
        for stale in (every[len(every) // 2], every[0] + 1_000):
            search_pg._known[engine] = search_pg._Known(time.monotonic(), stale, partitions(conn))
            found = {needed: search_pg.span_matches(conn, newest, needed) for needed in (1, 3, 20, 45)}
            # None: the caller reads the match whole, in the one statement of before.
            assert all(ids is None or ids == every[:needed] for needed, ids in found.items()), (stale, found)
            assert found[1] == every[:1]
    read = []
    event.listen(engine, "before_cursor_execute", lambda *args: read.append(args[2]))
    search_pg._known.pop(engine)
    with db.connect(engine) as conn:
        search_pg.span_matches(conn, newest, 3)
        search_pg.span_matches(conn, newest, 3)
    assert sum("max(email_search.email_id)" in statement for statement in read) == 1


def force_spans(monkeypatch) -> None:
    """span_matches asks spans of up to all the mail and never chooses to read the match whole."""
    monkeypatch.setattr(search_pg, "_WHOLE", 0)
    monkeypatch.setattr(search_pg, "_HALF", 1)
