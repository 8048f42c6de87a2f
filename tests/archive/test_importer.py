"""The streaming import (sathub.archive.importer) on small archives written for each test,
on SQLite and PostgreSQL (`engine` fixture)."""

from datetime import datetime

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from sathub.archive import importer, parsing
from sathub.archive.importer import import_archive, load_mailman_ids
from sathub.archive.ingest import PLACEHOLDER_ADDRESS, default_mailman_id, message_id_hash
from sathub.archive.tables import attachments, emails, mailing_lists, senders, threads
from tests.archive.import_checks import check_threads, snapshot

LIST = "dev@lists.example.org"


def message(key: str, *, reply_to: str | None = None, date: str = "Mon, 06 Jan 2020 10:00:00 +0000",
            sender: str = "alice@example.com", subject: str | None = None, body: str = "hello\n") -> str:
    headers = [f"From: {sender}", f"Date: {date}", f"Message-ID: <{key}@example.org>",
               f"Subject: {subject if subject is not None else key}"]
    if reply_to:
        headers.append(f"In-Reply-To: <{reply_to}@example.org>")
    return f"From {sender} Mon Jan  6 10:00:00 2020\n" + "\n".join(headers) + "\n\n" + body + "\n"


def archive(tmp_path, name: str, *messages: str):
    path = tmp_path / name
    path.write_text("".join(messages))
    return path


def run(engine, *paths, list_name=LIST, **options):
    return import_archive(engine, list_name, list(paths), **options)


def rows(engine, query):
    with engine.connect() as conn:
        return conn.execute(query).all()


def day(n: int) -> str:
    return f"Mon, {n:02d} Jan 2020 10:00:00 +0000"


def thread_of(engine, key: str) -> str:
    return rows(engine, sa.select(threads.c.thread_id).join(emails, emails.c.thread_id == threads.c.id)
                .where(emails.c.message_id == f"{key}@example.org"))[0][0]


def h(key: str) -> str:
    return message_id_hash(f"{key}@example.org")


def test_import_rows_and_summary(engine, tmp_path):
    path = archive(tmp_path, "a.mbox", message("root", date=day(1)), message("reply", reply_to="root", date=day(2)),
                   message("root", body="a second copy\n"))
    summary = run(engine, path)
    assert (summary.imported, summary.duplicates, dict(summary.skipped)) == (2, 1, {})
    assert summary.describe().startswith(f"{LIST}: 2 imported, 1 duplicates skipped, 0 skipped")
    (lst,) = rows(engine, sa.select(mailing_lists))
    assert (lst.name, lst.archive_policy, lst.display_name, lst.description) == (LIST, "public", "", None)
    stored = rows(engine, sa.select(emails).order_by(emails.c.id))
    assert [(e.message_id, e.message_id_hash, e.content, e.parent_id, e.thread_depth, e.thread_order)
            for e in stored] == [("root@example.org", h("root"), "hello\n", None, 0, 0),
                                 ("reply@example.org", h("reply"), "hello\n", stored[0].id, 1, 1)]
    (thread,) = rows(engine, sa.select(threads))
    assert (thread.thread_id, thread.starting_email_id, thread.subject, thread.emails_count, thread.date_active) == (
        h("root"), stored[0].id, "root", 2, datetime(2020, 1, 2, 10))
    (who,) = rows(engine, sa.select(senders))
    assert (who.address, who.mailman_id) == ("alice@example.com", default_mailman_id("alice@example.com"))


def test_reimport_adds_nothing(engine, tmp_path):
    path = archive(tmp_path, "a.mbox", message("root"), message("reply", reply_to="root"),
                   "From x Mon Jan  6 10:00:00 2020\nFrom: x@example.com\nSubject: no id\n\nbody\n")
    assert run(engine, path).imported == 3
    before = rows(engine, sa.select(emails).order_by(emails.c.id))
    again = run(engine, path)
    assert (again.imported, again.duplicates) == (0, 3)
    assert rows(engine, sa.select(emails).order_by(emails.c.id)) == before


@pytest.mark.parametrize("batch_size", [1, 1000])
def test_replies_before_their_parents_join_the_parents_thread(engine, tmp_path, batch_size):
    path = archive(tmp_path, "a.mbox",
                   message("grandchild", reply_to="child", date=day(3)),
                   message("child", reply_to="root", date=day(2)),
                   message("other-child", reply_to="root", date=day(4)),
                   message("root", date=day(1)))
    run(engine, path, batch_size=batch_size)
    with engine.connect() as conn:
        assert check_threads(conn, LIST) == 4
        assert snapshot(conn, LIST) == {
            h("root"): (h("root"), None, 0, 4), h("child"): (h("root"), h("root"), 1, 4),
            h("grandchild"): (h("root"), h("child"), 2, 4), h("other-child"): (h("root"), h("root"), 1, 4)}
    (thread,) = rows(engine, sa.select(threads))
    # date_active: the date of the email archived last (the root), not the newest date.
    assert (thread.subject, thread.date_active) == ("root", datetime(2020, 1, 1, 10))


def test_orphan_threads_merge_when_the_parent_arrives_in_a_later_run(engine, tmp_path):
    run(engine, archive(tmp_path, "1.mbox", message("c", reply_to="b", date=day(3))))
    run(engine, archive(tmp_path, "2.mbox", message("d", reply_to="a", date=day(4))))
    assert sorted(r[0] for r in rows(engine, sa.select(threads.c.thread_id))) == sorted([h("c"), h("d")])
    run(engine, archive(tmp_path, "3.mbox", message("b", reply_to="a", date=day(2))))
    assert sorted(r[0] for r in rows(engine, sa.select(threads.c.thread_id))) == sorted([h("b"), h("d")])
    run(engine, archive(tmp_path, "4.mbox", message("a", date=day(1))))
    assert [r[0] for r in rows(engine, sa.select(threads.c.thread_id))] == [h("a")]
    assert thread_of(engine, "c") == h("a")
    with engine.connect() as conn:
        assert check_threads(conn, LIST) == 4
        assert [r.message_id for r in conn.execute(sa.select(emails.c.message_id).order_by(emails.c.thread_order))] \
            == ["a@example.org", "b@example.org", "c@example.org", "d@example.org"]


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_reply_loops_are_cut_at_the_earliest_message_whatever_the_order(engine, tmp_path, order):
    loop = {"a": message("a", reply_to="b", date=day(2)), "b": message("b", reply_to="a", date=day(1)),
            "c": message("c", reply_to="a", date=day(3))}
    for number, key in enumerate(order):
        run(engine, archive(tmp_path, f"{number}.mbox", loop[key]))
    run(engine, archive(tmp_path, "c.mbox", loop["c"]))
    with engine.connect() as conn:
        check_threads(conn, LIST)
        assert snapshot(conn, LIST) == {h("b"): (h("b"), None, 0, 3), h("a"): (h("b"), h("b"), 1, 3),
                                        h("c"): (h("b"), h("a"), 2, 3)}


def test_same_message_in_two_lists_is_two_emails_of_one_sender(engine, tmp_path):
    path = archive(tmp_path, "a.mbox", message("cross", sender="Esr <ESR@thyrsus.com>"))
    run(engine, path, list_name="one@example.org")
    run(engine, path, list_name="Two@Example.org")
    assert sorted(rows(engine, sa.select(mailing_lists.c.name))) == [("one@example.org",), ("two@example.org",)]
    stored = rows(engine, sa.select(emails.c.message_id_hash, emails.c.sender_id, emails.c.sender_name))
    assert len(stored) == 2 and len(set(stored)) == 1 and stored[0].sender_name == "Esr"
    assert rows(engine, sa.select(senders.c.address)) == [("esr@thyrsus.com",)]


def test_attachments_are_stored(engine, tmp_path):
    body = ("--B\nContent-Type: text/plain\n\nsee attached\n--B\nContent-Type: image/png\n"
            "Content-Transfer-Encoding: base64\nContent-Disposition: attachment; filename=dot.png\n\niVBORw==\n--B--\n")
    raw = message("att", body=body).replace("Subject: att", "Subject: att\nContent-Type: multipart/mixed; boundary=B")
    run(engine, archive(tmp_path, "a.mbox", raw))
    (stored,) = rows(engine, sa.select(attachments))
    assert (stored.counter, stored.name, stored.content_type, stored.encoding, stored.size, bytes(stored.content)) == (
        2, "dot.png", "image/png", None, 4, b"\x89PNG")
    assert rows(engine, sa.select(emails.c.content)) == [("see attached\n",)]


def test_one_bad_message_does_not_stop_the_import(engine, tmp_path, monkeypatch):
    parse = parsing.parse_email

    def fragile_parse(data, from_line, fallback):
        if b"<boom@" in data:
            raise ValueError("cannot parse")
        return parse(data, from_line, fallback)

    write = importer.write_batch

    def fragile_write(conn, list_id, batch):
        if any(email.message_id.startswith("rejected@") for email in batch):
            raise sa.exc.IntegrityError("INSERT", {}, Exception("rejected"))
        if any(email.message_id.startswith("unstorable@") for email in batch):
            raise UnicodeEncodeError("utf-8", "\udce9", 0, 1, "surrogates not allowed")
        return write(conn, list_id, batch)

    monkeypatch.setattr(parsing, "parse_email", fragile_parse)
    monkeypatch.setattr(importer, "write_batch", fragile_write)
    path = archive(tmp_path, "a.mbox", message("ok1"), message("boom"), message("rejected"), message("unstorable"),
                   message("ok2"))
    summary = run(engine, path)
    assert (summary.imported, dict(summary.skipped)) == (
        2, {"cannot be decoded (ValueError)": 1, "rejected by the database (Exception)": 1,
            "could not be stored (UnicodeEncodeError)": 1})
    assert sorted(rows(engine, sa.select(emails.c.message_id))) == [("ok1@example.org",), ("ok2@example.org",)]


def test_private_list_is_private_before_its_first_email_is_written(engine, tmp_path):
    seen = []

    def check(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("INSERT INTO EMAILS") and not seen:
            with engine.connect() as other:  # another connection sees only committed rows
                seen.append(other.execute(sa.select(mailing_lists.c.archive_policy)).scalar_one())

    event.listen(engine, "before_cursor_execute", check)
    try:
        run(engine, archive(tmp_path, "a.mbox", message("secret")), private=True)
    finally:
        event.remove(engine, "before_cursor_execute", check)
    assert seen == ["private"]
    run(engine, archive(tmp_path, "b.mbox", message("more")))  # without --private: stays private
    assert rows(engine, sa.select(mailing_lists.c.archive_policy)) == [("private",)]


def test_an_existing_public_list_can_be_made_private(engine, tmp_path):
    run(engine, archive(tmp_path, "a.mbox", message("one")))
    run(engine, archive(tmp_path, "b.mbox", message("two")), private=True)
    assert rows(engine, sa.select(mailing_lists.c.archive_policy)) == [("private",)]


def test_mailman_ids_replace_the_default_ones_before_or_after_the_import(engine, tmp_path):
    real = "0123456789abcdef0123456789abcdef"
    loaded = load_mailman_ids(engine, [("Bob@Example.com", "01234567-89ab-cdef-0123-456789abcdef")])
    assert (loaded.loaded, loaded.rejected) == (1, [])
    run(engine, archive(tmp_path, "a.mbox", message("1", sender="bob@example.com"),
                        message("2", sender="carol@example.com")))
    other = "fedcba9876543210fedcba9876543210"
    result = load_mailman_ids(engine, [("carol@example.com", other), ("dan@example.com", real),
                                       ("eve@example.com", "not-an-id"), ("nobody", other)])
    assert result.loaded == 1
    assert result.rejected == [f"line 3: {real} already belongs to bob@example.com",
                               "line 4: 'not-an-id' is not a Mailman user id", "line 5: 'nobody' is not an address"]
    assert sorted(rows(engine, sa.select(senders.c.address, senders.c.mailman_id))) == [
        ("bob@example.com", real), ("carol@example.com", other)]


def test_a_helper_process_parses_big_archives_with_the_same_result(engine, tmp_path, monkeypatch):
    monkeypatch.setattr(parsing, "CHUNK", 3)
    monkeypatch.setattr(parsing, "IN_PLACE_CHUNKS", 2)  # messages 7 and later go to the helper
    messages = [message(f"m{n}", reply_to=f"m{n // 2}" if n else None, date=day(1 + n % 28)) for n in range(30)]
    path = archive(tmp_path, "a.mbox", *reversed(messages), messages[5])
    here = run(engine, path, list_name="here@example.org", parse_processes=0, batch_size=4)
    helper = run(engine, path, list_name="helper@example.org", parse_processes=1, batch_size=4)
    assert (here.imported, here.duplicates) == (helper.imported, helper.duplicates) == (30, 1)
    with engine.connect() as conn:
        assert check_threads(conn, "helper@example.org") == 30
        assert snapshot(conn, "helper@example.org") == snapshot(conn, "here@example.org")


def test_a_default_id_taken_by_a_loaded_mailman_id_does_not_stop_the_import(engine, tmp_path):
    # An administrator gave bob the default id of carol (to merge them, say); carol then posts.
    load_mailman_ids(engine, [("bob@example.com", default_mailman_id("carol@example.com"))])
    summary = run(engine, archive(tmp_path, "a.mbox", message("1", sender="carol@example.com")))
    assert summary.imported == 1
    assert dict(rows(engine, sa.select(senders.c.address, senders.c.mailman_id))) == {
        "bob@example.com": default_mailman_id("carol@example.com"),
        "carol@example.com": default_mailman_id("carol@example.com#")}


def test_hostile_bytes_are_stored_on_every_backend(engine, tmp_path):
    raw = (b"From x Mon Jan  6 10:00:00 2020\nFrom: Caf\xe9 \x00<a\x00b@example.com>\nMessage-ID: <n\x00ul@x>\n"
           b"Subject: \xff\xfe bad \x00 bytes =?utf-8?b?/w==?=\nIn-Reply-To: <p\x00@x>\n"
           b"Content-Type: text/plain; charset=utf-8\n\nbody \x00 \xff\n")
    path = tmp_path / "a.mbox"
    path.write_bytes(raw)
    summary = run(engine, path)
    assert (summary.imported, dict(summary.skipped)) == (1, {})
    (email,) = rows(engine, sa.select(emails.c.message_id, emails.c.in_reply_to, emails.c.subject,
                                      emails.c.content, emails.c.sender_name))
    assert email == ("nul@x", "p@x", "ÿþ bad  bytes \ufffd", "body  \ufffd\n", "Café")
    assert rows(engine, sa.select(senders.c.address)) == [(PLACEHOLDER_ADDRESS,)]  # NUL in the address


def test_raw_8bit_bytes_in_reply_headers_neither_stop_the_import_nor_break_threading(engine, tmp_path):
    def raw(key: bytes, extra: bytes = b"") -> bytes:
        return (b"From a@example.com Mon Jan  6 10:00:00 2020\nFrom: a@example.com\nDate: " + day(6).encode()
                + b"\nMessage-ID: <" + key + b">\nSubject: s\n" + extra + b"\nbody\n\n")

    path = tmp_path / "8bit.mbox"
    path.write_bytes(raw("café@w".encode()) + raw(b"r1@w", "In-Reply-To: <café@w>\n".encode())
                     + raw(b"r2@w", b"References: <a@b> <caf\xe9@x>\n") + raw(b"last@w"))
    summary = run(engine, path)
    assert (summary.imported, dict(summary.skipped)) == (4, {})
    parent, reply = (rows(engine, sa.select(emails.c.id, emails.c.thread_id, emails.c.parent_id)
                          .where(emails.c.message_id == key))[0] for key in ("café@w", "r1@w"))
    assert (reply.parent_id, reply.thread_id) == (parent.id, parent.thread_id)
    assert rows(engine, sa.select(emails.c.in_reply_to).where(emails.c.message_id == "r2@w")) == [("café@x",)]
