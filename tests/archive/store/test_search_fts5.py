"""SQLite's statements of a search (archive/store/search_fts5.py) on the hand-built archive of
api_fixtures: by date, reading and sorting the matches' dates and walking the index of dates (from
WALK_FROM matches) give the same pages, the order of the fixtures' dates; a tree without words
reads the emails themselves, newest first. The expected order is the fixtures' dates, sorted here.
The index holds the mail of lists that are not private, whatever happens to the lists."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from sathub.archive.search.query import parse
from sathub.archive.store import search, search_fts5
from sathub.archive.store.listing import Page
from sathub.archive.tables import mailing_lists
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


def indexed(engine) -> set[int]:
    """The ids of the emails FTS5's index holds (its table of lengths has a row each), after FTS5
    checked the index against the view it reads, every row of each (`integrity-check`, 1)."""
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO email_search(email_search, rank) VALUES ('integrity-check', 1)"))
        return set(conn.scalars(sa.text("SELECT id FROM email_search_docsize")))


def test_the_index_holds_the_mail_of_lists_that_are_not_private_whatever_their_changes(engine):
    """bm25 counts words over the whole index (migration 0017): a list's mail joins and leaves it
    with the list's policy, in the transaction that changes it, and leaves it before a deleted
    list's emails are deleted (after the list's row, when the view no longer shows them)."""
    ids = seed_archive(engine)
    public = {email_id for key, email_id in ids.items() if key != "P"}
    assert indexed(engine) == public
    for policy, expected in (("public", public | {ids["P"]}), ("never", public | {ids["P"]}), ("private", public)):
        with engine.begin() as conn:
            changed = mailing_lists.update().where(mailing_lists.c.name == "private@example.org")
            conn.execute(changed.values(archive_policy=policy))
        assert indexed(engine) == expected, policy
    with engine.begin() as conn:
        conn.execute(mailing_lists.delete().where(mailing_lists.c.name == "dev@example.org"))
    assert indexed(engine) == {ids["X"]}
