"""public-inbox's SQL (sathub.archive.store.public_inbox) on the hand-built archive of api_fixtures,
both backends: only readable lists, a Message-ID's first archived copy, a thread's candidates,
topics and the newest messages."""

from __future__ import annotations

from sathub.archive.store import lists, public_inbox
from sathub.archive.tables import PRIVATE
from tests.archive.api_fixtures import LISTS, MAIL


def test_only_readable_lists_are_inboxes(engine, archive):
    with engine.begin() as conn:
        assert [row.name for row in public_inbox.public_lists(conn)] == [
            name for name in LISTS if name != "private@example.org"
        ]
        lists.update_list(conn, lists.find_list(conn, "other@example.org").id, {"archive_policy": PRIVATE})
        assert "other@example.org" not in [row.name for row in public_inbox.public_lists(conn)]


def test_a_message_id_is_found_on_the_lists_given(engine, archive):
    with engine.connect() as conn:
        dev, other = (lists.find_list(conn, name).id for name in ("dev@example.org", "other@example.org"))
        both = public_inbox.find_message(conn, [other, dev], MAIL["A"].message_id)
        assert both is not None and both.list_id == dev  # the first archived of the cross-posted copies
        assert public_inbox.find_message(conn, [other], MAIL["A"].message_id).list_id == other
        assert public_inbox.find_message(conn, [other], MAIL["B"].message_id) is None
        assert public_inbox.find_message(conn, [], MAIL["A"].message_id) is None


def test_thread_candidates_are_the_thread_and_the_subject_word(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org").id
        root = public_inbox.find_message(conn, [dev], MAIL["A"].message_id)
        by_thread = public_inbox.thread_candidates(conn, dev, root.thread_id, None)
        assert [row.message_id for row in by_thread] == [MAIL[key].message_id for key in "ABCD"]  # arrival order
        by_word = public_inbox.thread_candidates(conn, dev, None, "TIE")  # any case
        assert [row.message_id for row in by_word] == [MAIL["F"].message_id, MAIL["G"].message_id]
        assert public_inbox.thread_candidates(conn, dev, None, "%") == []  # a LIKE wildcard is a character
        assert public_inbox.thread_candidates(conn, dev, None, None) == []


def test_topics_and_newest(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org").id
        topics = public_inbox.topics(conn, [dev], 2, 0)
        assert [row.message_id for row in topics] == [MAIL["H"].message_id, MAIL["F"].message_id]
        assert [row.message_id for row in public_inbox.topics(conn, [dev], 2, 2)] == [
            MAIL["G"].message_id,
            MAIL["E"].message_id,
        ]
        assert [row.message_id for row in public_inbox.newest(conn, [dev], 2)] == [
            MAIL["H"].message_id,
            MAIL["G"].message_id,
        ]
        found = public_inbox.find_message(conn, [dev], MAIL["C"].message_id)
        (row,) = public_inbox.message_rows(conn, [found.id])
        assert row.content == MAIL["C"].content and row.data is None  # no source kept: rebuilt when asked
        assert public_inbox.message_rows(conn, []) == []
