"""A search's deadline (archive/store/search_deadline.py), kept by the database on SQLite and
PostgreSQL: past it the statements stop (SearchTooCostly) and the connection is left as it was;
within it nothing changes. And what the doors that search answer then (search/results.py): the
JSON API a 400 in the archive's error shape, the page a 400 showing why, never a 500; here rather
than beside them, so that the generated archive is seeded once.

The archive is generated: emails of many common words, so that the costliest query the language
accepts (four prefixes and 24 words ORed, docs/archive-search.md, "Limits") ranks and counts
thousands of matches, many times the tiny deadline asked."""

from __future__ import annotations

import random
from dataclasses import replace
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.search.query import parse
from sathub.archive.search.results import TOO_COSTLY
from sathub.archive.store import search
from sathub.archive.store.listing import Page
from sathub.archive.store.search_deadline import SearchTooCostly
from tests.archive.import_fixtures import archive, day, message, run
from tests.conftest import empty_all_tables

EMAILS, WORDS_AN_EMAIL = 3000, 120
_pick = random.Random(37)
VOCABULARY = sorted({"".join(_pick.choices("abcdefghijklmnopqrstuvwxyz", k=6)) for _ in range(200)})
# Four prefixes and 24 words, ORed: every email matches, most of them many times over.
COSTLY = " OR ".join([*(f"{word[:3]}*" for word in VOCABULARY[:4]), *VOCABULARY[4:28]])
TINY_MS = 1


def seed_costly_archive(engine, folder) -> None:
    """EMAILS emails on one list, each of WORDS_AN_EMAIL words of VOCABULARY."""
    pick = random.Random(37)
    mails = [
        message(f"costly-{n}", date=day(1 + n % 28), body=" ".join(pick.choices(VOCABULARY, k=WORDS_AN_EMAIL)))
        for n in range(EMAILS)
    ]
    run(engine, archive(folder, "costly.mbox", *mails))


@pytest.fixture(scope="module")
def costly(migrated_engine, tmp_path_factory):
    """The generated archive, seeded once for this module's tests (which write nothing)."""
    empty_all_tables(migrated_engine)
    seed_costly_archive(migrated_engine, tmp_path_factory.mktemp("costly"))
    yield migrated_engine
    empty_all_tables(migrated_engine)


def searched(conn, deadline_ms: int | None) -> search.Found:
    return search.search(conn, parse(COSTLY), page=Page(10, 0), count_limit=10_000, deadline_ms=deadline_ms)


def timeout_setting(conn) -> str | None:
    return conn.exec_driver_sql("SHOW statement_timeout").scalar() if conn.dialect.name == "postgresql" else None


def test_a_search_past_its_deadline_is_stopped_and_leaves_the_connection_clean(costly):
    with costly.connect() as conn:
        before = timeout_setting(conn)
        conn.rollback()
        with pytest.raises(SearchTooCostly, match=f"more than {TINY_MS} ms"):
            searched(conn, TINY_MS)
        conn.rollback()  # as the door's connection does when the error leaves it
        # The same connection, no deadline: the search runs whole (it takes several times TINY_MS,
        # so a progress handler or a statement_timeout left behind would stop it again).
        whole = searched(conn, None)
        assert whole.count == EMAILS and len(whole.rows) == 10
        assert timeout_setting(conn) == before


def test_a_search_within_its_deadline_finds_what_it_finds_without_one(costly):
    with costly.connect() as conn:
        free = searched(conn, None)
        bounded = searched(conn, 60_000)
        assert (bounded.count, bounded.count_exact, bounded.scores) == (free.count, free.count_exact, free.scores)
        assert [row.id for row in bounded.rows] == [row.id for row in free.rows]
        # Statements after the search, in the same read, still work.
        assert conn.execute(sa.select(sa.literal(1))).scalar() == 1


def test_the_doors_answer_a_search_stopped_at_its_deadline_with_400_and_why(costly, settings):
    tiny = replace(settings, search_timeout_ms=TINY_MS)
    why = TOO_COSTLY.format(ms=TINY_MS)
    with TestClient(create_app(tiny, engine=costly), base_url="http://sathub.test") as client:
        answer = client.get(f"/archive/api/search/?q={quote(COSTLY)}")
        assert (answer.status_code, answer.json()) == (400, {"detail": why})
        assert "max-age" not in answer.headers.get("cache-control", "")  # no cache keeps the refusal
        page = client.get(f"/archive/search?q={quote(COSTLY)}")
        assert page.status_code == 400 and f"took more than {TINY_MS} ms and was stopped" in page.text
        assert 'name="q"' in page.text  # the query is shown again, to narrow
        assert "max-age" not in page.headers.get("cache-control", "")
    # The pool's connections the stopped searches used serve again: a cheap search and the costly
    # one under the default deadline (a cheap one under 1 ms was at the mercy of a loaded machine).
    with TestClient(create_app(settings, engine=costly), base_url="http://sathub.test") as client:
        cheap = client.get("/archive/api/search/?q=m:costly-7@example.org")
        assert cheap.status_code == 200 and cheap.json()["count"] == 1
        answer = client.get(f"/archive/api/search/?q={quote(COSTLY)}")  # the default deadline
        assert answer.status_code == 200 and answer.json()["count"] == EMAILS
