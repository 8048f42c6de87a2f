"""Reading attachments (sathub.archive.store.attachments) on the hand-built archive of api_fixtures,
where E carries two (counters 2 and 3), both backends."""

from __future__ import annotations

from sathub.archive.store import attachments, lists, threads
from tests.archive.api_fixtures import ATTACHMENTS, MAIL


def test_descriptions_without_bytes_by_email_and_by_thread(engine, archive):
    with engine.connect() as conn:
        described = attachments.email_attachments(conn, archive["E"])
        assert [tuple(row) for row in described] == [
            (a["counter"], a["name"], a["content_type"], a["encoding"], len(a["content"])) for a in ATTACHMENTS
        ]
        dev = lists.find_list(conn, "dev@example.org")
        report = threads.find_thread(conn, dev.id, MAIL["E"].hash)
        by_email = attachments.thread_attachments(conn, report.id)
        assert list(by_email) == [archive["E"]] and [row.counter for row in by_email[archive["E"]]] == [2, 3]
        assert attachments.email_attachments(conn, archive["A"]) == []


def test_one_attachment_to_download_is_found_within_its_list(engine, archive):
    with engine.connect() as conn:
        dev, other = lists.find_list(conn, "dev@example.org"), lists.find_list(conn, "other@example.org")
        found = attachments.find_attachment(conn, dev.id, MAIL["E"].hash, 3)
        assert (found.name, found.content) == ("signature.asc", ATTACHMENTS[1]["content"])
        assert attachments.find_attachment(conn, other.id, MAIL["E"].hash, 3) is None
        assert attachments.find_attachment(conn, dev.id, MAIL["E"].hash, 4) is None


def test_the_bytes_that_rebuild_a_message_by_email(engine, archive):
    with engine.connect() as conn:
        found = attachments.attachments_to_rebuild(conn, [archive["A"], archive["E"]])
        assert found[archive["A"]] == []
        assert [(row.name, bytes(row.content)) for row in found[archive["E"]]] == [
            (a["name"], a["content"]) for a in ATTACHMENTS
        ]
        assert attachments.attachments_to_rebuild(conn, []) == {}
