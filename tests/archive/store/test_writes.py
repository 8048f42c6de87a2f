"""The import's writes (sathub.archive.store.writes): lists, senders, emails and attachments,
through imports on SQLite and PostgreSQL (`engine` fixture)."""

import time

import sqlalchemy as sa
from sqlalchemy import event

from sathub.archive.mail.dates import utc_now
from sathub.archive.mail.ids import default_mailman_id
from sathub.archive.mail.message import parse_email
from sathub.archive.mailman.user_ids import load_mailman_ids
from sathub.archive.store.lists import create_list
from sathub.archive.store.writes import write_batch
from sathub.archive.tables import attachments, emails, mailing_lists, senders
from tests.archive.import_fixtures import LIST, archive, message, rows, run
from tests.archive.messages import many_parts_message


def test_same_message_in_two_lists_is_two_emails_of_one_sender(engine, tmp_path):
    path = archive(tmp_path, "a.mbox", message("cross", sender="Esr <ESR@thyrsus.com>"))
    run(engine, path, list_name="one@example.org")
    run(engine, path, list_name="Two@Example.org")
    assert sorted(rows(engine, sa.select(mailing_lists.c.name))) == [("one@example.org",), ("two@example.org",)]
    stored = rows(engine, sa.select(emails.c.message_id_hash, emails.c.sender_id, emails.c.sender_name))
    assert len(stored) == 2 and len(set(stored)) == 1 and stored[0].sender_name == "Esr"
    assert rows(engine, sa.select(senders.c.address)) == [("esr@thyrsus.com",)]


def test_attachments_are_stored(engine, tmp_path):
    body = (
        "--B\nContent-Type: text/plain\n\nsee attached\n--B\nContent-Type: image/png\n"
        "Content-Transfer-Encoding: base64\nContent-Disposition: attachment; filename=dot.png\n\niVBORw==\n--B--\n"
    )
    raw = message("att", body=body).replace("Subject: att", "Subject: att\nContent-Type: multipart/mixed; boundary=B")
    run(engine, archive(tmp_path, "a.mbox", raw))
    (stored,) = rows(engine, sa.select(attachments))
    assert (stored.counter, stored.name, stored.content_type, stored.encoding, stored.size, bytes(stored.content)) == (
        2,
        "dot.png",
        "image/png",
        None,
        4,
        b"\x89PNG",
    )
    assert rows(engine, sa.select(emails.c.content)) == [("see attached\n",)]


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


def test_a_default_id_taken_by_a_loaded_mailman_id_does_not_stop_the_import(engine, tmp_path):
    # An administrator gave bob the default id of carol (to merge them, say); carol then posts.
    load_mailman_ids(engine, [("bob@example.com", default_mailman_id("carol@example.com"))])
    summary = run(engine, archive(tmp_path, "a.mbox", message("1", sender="carol@example.com")))
    assert summary.imported == 1
    assert dict(rows(engine, sa.select(senders.c.address, senders.c.mailman_id))) == {
        "bob@example.com": default_mailman_id("carol@example.com"),
        "carol@example.com": default_mailman_id("carol@example.com#"),
    }


def test_hostile_bytes_are_stored_on_every_backend(engine, tmp_path):
    raw = (
        b"From x Mon Jan  6 10:00:00 2020\nFrom: Caf\xe9 \x00<a\x00b@example.com>\nMessage-ID: <n\x00ul@x>\n"
        b"Subject: \xff\xfe bad \x00 bytes =?utf-8?b?/w==?=\nIn-Reply-To: <p\x00@x>\n"
        b"Content-Type: text/plain; charset=utf-8\n\nbody \x00 \xff\n"
    )
    path = tmp_path / "a.mbox"
    path.write_bytes(raw)
    summary = run(engine, path)
    assert (summary.imported, dict(summary.skipped)) == (1, {})
    (email,) = rows(
        engine,
        sa.select(emails.c.message_id, emails.c.in_reply_to, emails.c.subject, emails.c.content, emails.c.sender_name),
    )
    assert email == ("nul@x", "p@x", "ÿþ bad  bytes \ufffd", "body  \ufffd\n", "Café")
    # NUL characters are dropped from header text (no database stores them)
    assert rows(engine, sa.select(senders.c.address)) == [("ab@example.com",)]


def batch_seconds(engine, list_id: int, email) -> float:
    """Seconds write_batch takes for one message, its commit included."""
    started = time.perf_counter()
    with engine.begin() as conn:
        assert write_batch(conn, list_id, [email]) == (1, 0, 0)
    return time.perf_counter() - started


def test_a_batch_is_written_in_time_linear_in_its_parts(engine):
    # Issue 40's many-part message, through the import's writer: 4 times the parts must cost about
    # 4 times as long (quadratic: 16, seen 14 to 20). The sizes alternate, and the best of five of
    # each, with a bound of 10, leave room for a busy machine (a commit's checkpoint, another job).
    with engine.begin() as conn:
        list_id = create_list(conn, LIST, {"created_at": utc_now()}).id
    n = 1000
    times: dict[int, list[float]] = {n: [], 4 * n: []}
    for k in range(5):
        for size, seen in times.items():
            email = parse_email(many_parts_message(f"{size}.{k}@x", size), None, utc_now(), 5000)
            seen.append(batch_seconds(engine, list_id, email))
    assert min(times[4 * n]) / min(times[n]) < 10, times
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(attachments)).scalar_one() == 5 * 5 * n
