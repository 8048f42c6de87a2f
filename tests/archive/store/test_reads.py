"""The read statements (sathub.archive.store.reads): every archive request costs the same number of SQL
statements for a small and a large answer."""

from __future__ import annotations

import pytest

from tests.archive.api_fixtures import MAIL, count_statements, mailman_id, seed_archive, seed_big_list

REPLIES = 150

# endpoint → (small case, large case, statements): the small one on the hand-built archive, the large
# one on big@example.org (a 151-email thread, a sender with 301 emails, a list of 151 threads).
CASES = {
    "thread emails": ("list/dev@example.org/thread/{A}/emails/", "list/big@example.org/thread/{root}/emails/", 3),
    "thread emails page": ("list/dev@example.org/thread/{A}/emails/?limit=2&offset=1",
                           "list/big@example.org/thread/{root}/emails/?limit=100&offset=20", 4),
    "thread detail": ("list/dev@example.org/thread/{A}/", "list/big@example.org/thread/{root}/", 4),
    "threads": ("list/dev@example.org/threads/", "list/big@example.org/threads/", 3),
    "threads page": ("list/dev@example.org/threads/?limit=2&offset=1", "list/big@example.org/threads/?limit=100&offset=20", 4),
    "list emails": ("list/dev@example.org/emails/", "list/big@example.org/emails/", 3),
    "list emails page": ("list/dev@example.org/emails/?limit=2&offset=1", "list/big@example.org/emails/?limit=100&offset=20", 4),
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
    return {"A": MAIL["A"].hash, "alice": mailman_id("alice@example.org"), "root": big["root"],
            "busy": big["sender"]}


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
    assert len(small_statements) == len(large_statements) == expected


def test_the_large_answers_are_large(client, both):
    assert len(client.get(f"/archive/api/list/big@example.org/thread/{both['root']}/emails/").json()) == REPLIES + 1
    assert len(client.get(f"/archive/api/sender/{both['busy']}/emails/").json()) == 2 * REPLIES + 1
    assert len(client.get("/archive/api/list/big@example.org/threads/").json()) == REPLIES + 1
