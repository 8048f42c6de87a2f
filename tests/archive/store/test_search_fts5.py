"""SQLite's statements of a search (archive/store/search_fts5.py) on the hand-built archive of
api_fixtures: by date, reading and sorting the matches' dates and walking the index of dates (from
WALK_FROM matches) give the same pages, the order of the fixtures' dates; a tree without words
reads the emails themselves, newest first. The expected order is the fixtures' dates, sorted here."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from sathub.archive.search.query import parse
from sathub.archive.store import search, search_fts5
from sathub.archive.store.listing import Page
from sathub.db import connect
from tests.archive.api_fixtures import MAILS, seed_archive
from tests.conftest import BACKENDS

pytestmark = pytest.mark.parametrize("database_url", [BACKENDS[0]], indirect=True)  # SQLite

# Public emails whose subject says "welcome": A–D on dev@, X (A cross-posted) on other@.
WELCOME = [(mail.date, n, mail.key) for n, mail in enumerate(MAILS) if "Welcome" in mail.subject]


def pages(engine, query: str, sort: str) -> tuple[list[str], list[str]]:
    """The keys of the emails of every page of two, and the statements that found them."""
    key = {(mail.list_name, mail.message_id): mail.key for mail in MAILS}
    ran: list[str] = []

    def record(conn, cursor, statement, *args) -> None:
        ran.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        with connect(engine) as conn:
            rows = [
                row
                for offset in (0, 2, 4)
                for row in search.search(conn, parse(query), sort=sort, page=Page(2, offset)).rows
            ]
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    return [key[row.list_name, row.message_id] for row in rows], ran


@pytest.mark.parametrize("sort", ["date-desc", "date-asc"])
@pytest.mark.parametrize("walk_from", [1_000, 1])
def test_by_date_the_matches_read_or_the_dates_walked_give_the_dates_order(engine, monkeypatch, sort, walk_from):
    seed_archive(engine)
    monkeypatch.setattr(search_fts5, "WALK_FROM", walk_from)
    order = [key for _, _, key in sorted(WELCOME, reverse=sort == "date-desc")]
    keys, ran = pages(engine, "welcome", sort)
    assert keys == order
    walked = any("emails.id + ?" in statement for statement in ran)
    assert walked is (walk_from == 1)


def test_a_tree_without_words_reads_the_emails_newest_first(engine):
    seed_archive(engine)
    dated = sorted((mail.date, n, mail.key) for n, mail in enumerate(MAILS) if mail.date.strftime("%Y-%m") == "2021-01")
    keys, ran = pages(engine, "d:2021-01", "relevance")
    assert keys == [key for _, _, key in reversed(dated)]
    # Dates alone are facets, which FTS5 finds but cannot rank: every email is tested, none scored.
    assert any("FROM emails JOIN mailing_lists" in statement for statement in ran)
    assert not any("bm25" in statement for statement in ran)
