"""Threads kept right while emails arrive in any order (sathub.archive.store.rethreading), through
imports on SQLite and PostgreSQL (`engine` fixture)."""

from datetime import datetime

import pytest
import sqlalchemy as sa

from sathub.archive.tables import emails, threads
from tests.archive.import_checks import check_threads, snapshot
from tests.archive.import_fixtures import LIST, archive, day, h, message, rows, run, thread_of
from tests.archive.messages import raw_message


@pytest.mark.parametrize("batch_size", [1, 1000])
def test_replies_before_their_parents_join_the_parents_thread(engine, tmp_path, batch_size):
    path = archive(
        tmp_path,
        "a.mbox",
        message("grandchild", reply_to="child", date=day(3)),
        message("child", reply_to="root", date=day(2)),
        message("other-child", reply_to="root", date=day(4)),
        message("root", date=day(1)),
    )
    run(engine, path, batch_size=batch_size)
    with engine.connect() as conn:
        assert check_threads(conn, LIST) == 4
        assert snapshot(conn, LIST) == {
            h("root"): (h("root"), None, 0, 4),
            h("child"): (h("root"), h("root"), 1, 4),
            h("grandchild"): (h("root"), h("child"), 2, 4),
            h("other-child"): (h("root"), h("root"), 1, 4),
        }
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
        assert [r.message_id for r in conn.execute(sa.select(emails.c.message_id).order_by(emails.c.thread_order))] == [
            "a@example.org",
            "b@example.org",
            "c@example.org",
            "d@example.org",
        ]


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_reply_loops_are_cut_at_the_earliest_message_whatever_the_order(engine, tmp_path, order):
    loop = {
        "a": message("a", reply_to="b", date=day(2)),
        "b": message("b", reply_to="a", date=day(1)),
        "c": message("c", reply_to="a", date=day(3)),
    }
    for number, key in enumerate(order):
        run(engine, archive(tmp_path, f"{number}.mbox", loop[key]))
    run(engine, archive(tmp_path, "c.mbox", loop["c"]))
    with engine.connect() as conn:
        check_threads(conn, LIST)
        assert snapshot(conn, LIST) == {
            h("b"): (h("b"), None, 0, 3),
            h("a"): (h("b"), h("b"), 1, 3),
            h("c"): (h("b"), h("a"), 2, 3),
        }


def test_raw_8bit_bytes_in_reply_headers_neither_stop_the_import_nor_break_threading(engine, tmp_path):
    def raw(key: str, **fields) -> bytes:
        return raw_message(
            key,
            sender="a@example.com",
            subject="s",
            date=day(6),
            body="body\n\n",
            envelope="From a@example.com Mon Jan  6 10:00:00 2020",
            **fields,
        )

    path = tmp_path / "8bit.mbox"
    path.write_bytes(
        raw("café@w")
        + raw("r1@w", reply_to="café@w")
        + raw("r2@w", headers=(b"References: <a@b> <caf\xe9@x>",))
        + raw("last@w")
    )
    summary = run(engine, path)
    assert (summary.imported, dict(summary.skipped)) == (4, {})
    # Header rules 5: the Message-ID loses its non-ASCII character, the reference keeps it, so the
    # reply matches nothing and starts its own thread.
    parent, reply = (
        rows(
            engine,
            sa.select(emails.c.id, emails.c.thread_id, emails.c.parent_id, emails.c.in_reply_to).where(
                emails.c.message_id == key
            ),
        )[0]
        for key in ("caf@w", "r1@w")
    )
    assert (reply.parent_id, reply.in_reply_to) == (None, "café@w") and reply.thread_id != parent.thread_id
    assert rows(engine, sa.select(emails.c.in_reply_to).where(emails.c.message_id == "r2@w")) == [("café@x",)]
