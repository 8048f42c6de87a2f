"""Listings (sathub.archive.store.listing and the stores that build them: emails, threads, lists):
every archive request costs the same number of SQL statements for a small and a large answer, and
a window of any size reads as the rows it covers."""

from __future__ import annotations

import pytest

from tests.archive.api_fixtures import MAIL, count_statements, mailman_id, seed_archive, seed_big_list

REPLIES = 150
# Before any of them, one read of the archive's revision, of which the answer's ETag is made (and a
# 304 is nothing more: archive/caching.py).
REVISION_READ = 1

# endpoint → (small case, large case, statements): the small one on the hand-built archive, the large
# one on big@example.org (a 151-email thread, a sender with 301 emails, a list of 151 threads).
CASES = {
    "thread emails": ("list/dev@example.org/thread/{A}/emails/", "list/big@example.org/thread/{root}/emails/", 3),
    "thread emails page": (
        "list/dev@example.org/thread/{A}/emails/?limit=2&offset=1",
        "list/big@example.org/thread/{root}/emails/?limit=100&offset=20",
        4,
    ),
    "thread detail": ("list/dev@example.org/thread/{A}/", "list/big@example.org/thread/{root}/", 4),
    "threads": ("list/dev@example.org/threads/", "list/big@example.org/threads/", 3),
    "threads page": (
        "list/dev@example.org/threads/?limit=2&offset=1",
        "list/big@example.org/threads/?limit=100&offset=20",
        4,
    ),
    "list emails": ("list/dev@example.org/emails/", "list/big@example.org/emails/", 3),
    "list emails page": (
        "list/dev@example.org/emails/?limit=2&offset=1",
        "list/big@example.org/emails/?limit=100&offset=20",
        4,
    ),
    "sender emails": ("sender/{alice}/emails/", "sender/{busy}/emails/", 3),
    "sender emails page": ("sender/{alice}/emails/?limit=2&offset=1", "sender/{busy}/emails/?limit=100&offset=20", 4),
    "sender by address": ("sender/alice@example.org/emails/", "sender/busy@example.org/emails/", 3),
    "email detail": ("list/dev@example.org/email/{A}/", "list/big@example.org/email/{root}/", 4),
    "lists": ("lists/?limit=1", "lists/?limit=100", 2),
}


@pytest.fixture
def both(engine):
    seed_archive(engine)
    big = seed_big_list(engine, REPLIES)
    return {"A": MAIL["A"].hash, "alice": mailman_id("alice@example.org"), "root": big["root"], "busy": big["sender"]}


def statements_of(client, engine, path: str) -> list[str]:
    statements, detach = count_statements(engine)
    try:
        response = client.get("/archive/api/" + path)
    finally:
        detach()
    assert response.status_code == 200, response.text
    return statements


@pytest.mark.parametrize("case", CASES)
def test_statement_count_does_not_grow_with_the_answer(client, engine, both, case):
    small, large, expected = CASES[case]
    small_statements = statements_of(client, engine, small.format(**both))
    large_statements = statements_of(client, engine, large.format(**both))
    assert len(small_statements) == len(large_statements) == REVISION_READ + expected


def test_the_large_answers_are_large(client, both):
    assert len(client.get(f"/archive/api/list/big@example.org/thread/{both['root']}/emails/").json()) == REPLIES + 1
    assert len(client.get(f"/archive/api/sender/{both['busy']}/emails/").json()) == 2 * REPLIES + 1
    assert len(client.get("/archive/api/list/big@example.org/threads/").json()) == REPLIES + 1


def test_a_page_of_any_size_reads_as_the_rows_it_covers(engine):
    """LIMIT and OFFSET bind as 32-bit integers on PostgreSQL and 64-bit ones on SQLite; a Page of
    larger numbers (?limit= and ?offset= are any integer) reads as its window would."""
    from sathub.archive.store import emails, listing, lists, threads

    seed_archive(engine)
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        everything = emails.list_emails(conn, dev, None)
        for limit, offset in [(2**31, 0), (2**63, 1), (10**40, 0), (1, 2**31), (2**64, 2**64), (3, 10**40)]:
            page = listing.Page(limit, offset)
            assert emails.list_emails(conn, dev, page) == everything[offset : offset + limit], (limit, offset)
            all_threads = threads.list_threads(conn, dev.id, None)
            assert threads.list_threads(conn, dev.id, page) == all_threads[offset : offset + limit]
            assert lists.public_lists(conn, page) == lists.public_lists(conn, None)[offset : offset + limit]
