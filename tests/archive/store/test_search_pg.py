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

import pytest
from sqlalchemy import event
from sqlalchemy.dialects import postgresql

from sathub import db
from sathub.archive.search.query import And, Not, parse
from sathub.archive.store import search
from sathub.archive.store.listing import Page
from sathub.archive.store.search_pg import PostgresSearch
from tests.archive.corpus import CORPUS_GROUP
from tests.conftest import BACKENDS


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
        if sort == "relevance":
            read = [spans.newest.sql, spans.every.sql]
        else:
            read = [str(spans.within.compile(dialect=postgresql.dialect())), spans.dated.sql]
        assert all("email_search.list_id NOT IN (SELECT mailing_lists.id" in sql for sql in read)
