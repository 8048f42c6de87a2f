"""The streaming import (sathub.archive.ingest.importer) on small archives written for each
test, on SQLite and PostgreSQL (`engine` fixture)."""

import zlib
from datetime import datetime

import sqlalchemy as sa

from sathub.archive.ingest import importer
from sathub.archive.mail import kept_source
from sathub.archive.mail.ids import default_mailman_id
from sathub.archive.tables import attachments, email_sources, emails, mailing_lists, senders, threads
from tests.archive.import_fixtures import LIST, archive, day, h, message, rows, run
from tests.archive.messages import many_parts_message


def test_import_rows_and_summary(engine, tmp_path):
    path = archive(
        tmp_path,
        "a.mbox",
        message("root", date=day(1)),
        message("reply", reply_to="root", date=day(2)),
        message("root", body="a second copy\n"),
    )
    summary = run(engine, path)
    assert (summary.imported, summary.duplicates, dict(summary.skipped)) == (2, 1, {})
    assert summary.describe().startswith(f"{LIST}: 2 imported, 1 duplicates skipped, 0 skipped")
    (lst,) = rows(engine, sa.select(mailing_lists))
    assert (lst.name, lst.archive_policy, lst.display_name, lst.description) == (LIST, "public", "", None)
    stored = rows(engine, sa.select(emails).order_by(emails.c.id))
    assert [
        (e.message_id, e.message_id_hash, e.content, e.parent_id, e.thread_depth, e.thread_order) for e in stored
    ] == [
        ("root@example.org", h("root"), "hello\n", None, 0, 0),
        ("reply@example.org", h("reply"), "hello\n", stored[0].id, 1, 1),
    ]
    (thread,) = rows(engine, sa.select(threads))
    assert (thread.thread_id, thread.starting_email_id, thread.subject, thread.emails_count, thread.date_active) == (
        h("root"),
        stored[0].id,
        "root",
        2,
        datetime(2020, 1, 2, 10),
    )
    (who,) = rows(engine, sa.select(senders))
    assert (who.address, who.mailman_id) == ("alice@example.com", default_mailman_id("alice@example.com"))


def test_reimport_adds_nothing(engine, tmp_path):
    path = archive(
        tmp_path,
        "a.mbox",
        message("root"),
        message("reply", reply_to="root"),
        "From x Mon Jan  6 10:00:00 2020\nFrom: x@example.com\nSubject: no id\n\nbody\n",
    )
    assert run(engine, path).imported == 3
    before = rows(engine, sa.select(emails).order_by(emails.c.id))
    again = run(engine, path)
    assert (again.imported, again.duplicates) == (0, 3)
    assert rows(engine, sa.select(emails).order_by(emails.c.id)) == before


def test_one_bad_message_does_not_stop_the_import(engine, tmp_path, monkeypatch):
    parse = kept_source.parse_email

    def fragile_parse(data, from_line, fallback, max_parts):
        if b"<boom@" in data:
            raise ValueError("cannot parse")
        return parse(data, from_line, fallback, max_parts)

    write = importer.write_batch

    def fragile_write(conn, list_id, batch):
        if any(email.message_id.startswith("rejected@") for email in batch):
            raise sa.exc.IntegrityError("INSERT", {}, Exception("rejected"))
        if any(email.message_id.startswith("unstorable@") for email in batch):
            raise UnicodeEncodeError("utf-8", "\udce9", 0, 1, "surrogates not allowed")
        return write(conn, list_id, batch)

    monkeypatch.setattr(kept_source, "parse_email", fragile_parse)
    monkeypatch.setattr(importer, "write_batch", fragile_write)
    path = archive(
        tmp_path, "a.mbox", message("ok1"), message("boom"), message("rejected"), message("unstorable"), message("ok2")
    )
    summary = run(engine, path)
    assert (summary.imported, dict(summary.skipped)) == (
        2,
        {
            "cannot be decoded (ValueError)": 1,
            "rejected by the database (Exception)": 1,
            "could not be stored (UnicodeEncodeError)": 1,
        },
    )
    assert sorted(rows(engine, sa.select(emails.c.message_id))) == [("ok1@example.org",), ("ok2@example.org",)]


def test_parts_beyond_the_limit_are_archived_in_the_source_only(engine, tmp_path):
    many = many_parts_message("many@example.org", 20, to=LIST)
    path = tmp_path / "a.mbox"
    path.write_bytes(b"From alice@example.com Mon Jan  6 10:00:00 2020\n" + many + message("plain").encode())
    summary = run(engine, path, max_parts=10)
    assert (summary.imported, summary.parts_left_out) == (2, ["many@example.org"])
    assert "kept in the source only: <many@example.org>" in summary.describe()
    # The message is part 0 and its text part 1: the first 10 parts hold attachments 1 to 8.
    assert rows(engine, sa.select(attachments.c.name).order_by(attachments.c.counter)) == [
        (f"f{n}.txt",) for n in range(1, 9)
    ]
    (source,) = rows(
        engine,
        sa.select(email_sources.c.data)
        .join(emails, emails.c.id == email_sources.c.email_id)
        .where(emails.c.message_id == "many@example.org"),
    )
    assert zlib.decompress(source.data) == many
