"""Article numbers (migration 0028, given by store/writes.py and store/one_message.py) and the
NNTP server's reads (store/newsgroups.py), on SQLite and PostgreSQL: numbers in arrival order,
the same after a re-import, never given twice (a deleted message leaves a gap, a hidden one keeps
its number), and nothing of a private list."""

from __future__ import annotations

import threading

import sqlalchemy as sa

from sathub import db
from sathub.archive.mailman import live_ingest
from sathub.archive.removal.operations import run as remove
from sathub.archive.removal.operations import scope_of
from sathub.archive.store import newsgroups
from sathub.archive.tables import article_counters, emails, hidden_emails
from tests.archive.import_fixtures import LIST, archive, message, rows, run
from tests.archive.messages import raw_message
from tests.archive.nntp.listener import archive_live


def numbers(engine, table=emails) -> dict[str, int]:
    """Message-ID → article number."""
    return dict(rows(engine, sa.select(table.c.message_id, table.c.article_number)))


def last_given(engine) -> list[int]:
    return [row.last_article for row in rows(engine, sa.select(article_counters.c.last_article))]


def mid(key: str) -> str:
    return f"{key}@example.org"


def test_numbers_follow_arrival_not_dates_and_a_reimport_keeps_them(engine, tmp_path):
    # The reply arrives first and is dated last: arrival decides.
    first = archive(
        tmp_path,
        "a.mbox",
        message("reply", reply_to="root", date="Mon, 20 Jan 2020 10:00:00 +0000"),
        message("root", date="Mon, 06 Jan 2020 10:00:00 +0000"),
        message("other", date="Mon, 01 Jan 2020 10:00:00 +0000"),
    )
    run(engine, first, batch_size=2)
    expected = {mid("reply"): 1, mid("root"): 2, mid("other"): 3}
    assert numbers(engine) == expected and last_given(engine) == [3]
    run(engine, first)  # all duplicates: nothing numbered again
    assert numbers(engine) == expected and last_given(engine) == [3]
    # A later file with old and new mail: only the new get numbers, after the others.
    run(engine, archive(tmp_path, "b.mbox", message("new"), message("root"), message("newer")))
    assert numbers(engine) == expected | {mid("new"): 4, mid("newer"): 5}


def test_live_mail_continues_the_imports_numbers(engine, tmp_path):
    run(engine, archive(tmp_path, "a.mbox", message("one"), message("two")))
    assert archive_live(engine, raw_message(mid("three")), LIST).new
    assert not archive_live(engine, raw_message(mid("three")), LIST).new  # a duplicate takes no number
    assert archive_live(engine, raw_message(mid("four")), LIST).new
    assert numbers(engine) == {mid("one"): 1, mid("two"): 2, mid("three"): 3, mid("four"): 4}
    assert last_given(engine) == [4]


def test_a_hidden_message_keeps_its_number_and_a_deleted_one_leaves_a_gap(engine, tmp_path):
    run(engine, archive(tmp_path, "a.mbox", message("one"), message("two"), message("three")))
    remove(engine, "hide", scope_of(message_id=mid("two"), list_name=LIST), "test", "tester")
    assert numbers(engine) == {mid("one"): 1, mid("three"): 3}
    assert numbers(engine, hidden_emails) == {mid("two"): 2}
    remove(engine, "unhide", scope_of(message_id=mid("two"), list_name=LIST), "test", "tester")
    assert numbers(engine) == {mid("one"): 1, mid("two"): 2, mid("three"): 3}
    # The newest deleted: its number is not given again.
    remove(engine, "delete", scope_of(message_id=mid("three"), list_name=LIST), "test", "tester")
    assert archive_live(engine, raw_message(mid("four")), LIST).new
    run(engine, archive(tmp_path, "b.mbox", message("five")))
    assert numbers(engine) == {mid("one"): 1, mid("two"): 2, mid("four"): 4, mid("five"): 5}


def test_the_reads_show_public_lists_only(engine, tmp_path):
    run(engine, archive(tmp_path, "a.mbox", message("one"), message("two"), message("shared")))
    run(
        engine,
        archive(tmp_path, "s.mbox", message("secret"), message("shared")),
        list_name="s@example.org",
        private=True,
    )
    with db.connect(engine) as conn:
        (listed,) = newsgroups.readable_lists(conn)
        assert (listed.name, listed.first_article, listed.last_article) == (LIST, 1, 3)
        assert newsgroups.article_count(conn, listed.id) == 3
        assert newsgroups.article_numbers(conn, listed.id, 2, 9) == [2, 3]
        assert newsgroups.neighbour(conn, listed.id, 1, after=True).message_id == mid("two")
        assert newsgroups.neighbour(conn, listed.id, 1, after=False) is None
        assert newsgroups.article_by_message_id(conn, mid("secret"), None) is None
        assert newsgroups.article_by_message_id(conn, mid("shared"), None).list_id == listed.id
        assert newsgroups.email_of_message_id(conn, mid("secret"), None) is None
        assert newsgroups.email_of_message_id(conn, mid("shared"), None).list_id == listed.id


def test_on_postgresql_a_writer_that_waited_for_another_takes_the_next_number(engine):
    """Two archive calls of one list at once: the second waits for the first's row lock and then
    reads the number the first left (READ COMMITTED's statement snapshot would not see it)."""
    if engine.dialect.name != "postgresql":
        return  # SQLite's writers take turns for the whole transaction
    assert archive_live(engine, raw_message("first@x")).new
    second_done = threading.Event()
    outcome: list = []

    def second() -> None:
        try:
            outcome.append(archive_live(engine, raw_message("third@x")))
        except Exception as error:  # reported by the assertion below
            outcome.append(error)
        second_done.set()

    with engine.begin() as conn:
        assert live_ingest.store(conn, "dev@example.org", live_ingest.parse(raw_message("second@x"))).new
        thread = threading.Thread(target=second)
        thread.start()
        assert not second_done.wait(1)  # waiting for the list's row
    thread.join(10)
    assert outcome and not isinstance(outcome[0], Exception) and outcome[0].new
    assert numbers(engine) == {"first@x": 1, "second@x": 2, "third@x": 3}
