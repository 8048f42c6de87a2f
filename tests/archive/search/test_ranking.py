"""Relevance on SQLite and PostgreSQL: a word asked of a field is ranked by that field alone."""

from __future__ import annotations

import pytest

from sathub.archive.search.query import parse
from sathub.archive.store import search
from sathub.archive.store.listing import Page
from sathub.archive.tables import emails
from sathub.db import connect
from tests.archive.api_fixtures import seed_archive


def scores(engine, query: str) -> dict[int, float | None]:
    with connect(engine) as conn:
        found = search.search(conn, parse(query), page=Page(10, 0))
    return {row.id: score for row, score in zip(found.rows, found.scores, strict=True)}


def test_a_fielded_word_is_ranked_by_its_field_alone(engine):
    """B and D have the same subject; B's text says "welcome" three times, which does not raise B
    above D for `s:welcome` (SQLite's bm25 counts the hits in the asked column only; PostgreSQL
    ranks such a query by `heading`: ts_rank of `document` counted the text's words too). For
    `welcome`, B comes first on both."""
    ids = seed_archive(engine)
    with engine.begin() as conn:
        conn.execute(emails.update().where(emails.c.id == ids["B"]).values(content="Welcome, welcome, welcome!\n"))
    by_subject = scores(engine, "s:welcome")
    assert by_subject[ids["B"]] <= by_subject[ids["D"]]
    anywhere = scores(engine, "welcome")
    assert anywhere[ids["B"]] > anywhere[ids["D"]]


def test_dates_and_lists_asked_with_words_leave_their_scores_alone(engine):
    """On SQLite dates and lists are words of the index's facets column, which weighs nothing in
    bm25; on PostgreSQL they are columns. Either way the words alone make the score."""
    seed_archive(engine)
    alone = scores(engine, "welcome")
    for narrowed in ("welcome d:2000..2100", "welcome l:dev@example.org"):
        found = scores(engine, narrowed)
        assert found and found == pytest.approx({email_id: alone[email_id] for email_id in found}), narrowed
