"""PostgreSQL's plans of a search on the real corpus (the `corpus` fixture of tests/archive/corpus.py):
sorted by date, a word's matches come from the GIN index and are then sorted. With the dates'
B-tree (migration 0016) the planner walked it instead, newest first, testing every email's tsvector
as if the page's end would stop it; the count the statement carries reads every match first, so it
read every email (a rare word: 34 ms against 0.6)."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from sathub import db
from sathub.archive.search.query import parse
from sathub.archive.store import search
from sathub.archive.store.listing import Page
from tests.archive.corpus import CORPUS_GROUP
from tests.conftest import BACKENDS

pytestmark = [CORPUS_GROUP, pytest.mark.parametrize("corpus", [BACKENDS[1]], indirect=True)]


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


@pytest.mark.parametrize("sort", ["date-desc", "date-asc"])
@pytest.mark.parametrize("query", ["ephemeris", "satel*", "s:release"])
def test_words_sorted_by_date_are_found_by_the_word_index_not_by_walking_the_dates(corpus, query, sort):
    explained = plans(corpus.engine, query, sort)
    assert explained and not any("email_search_date" in plan for plan in explained), explained
    assert any("Bitmap Index Scan on email_search_" in plan for plan in explained), explained
