"""OVER's kept fields (store/overviews.py, migration 0030), both backends: written by the live
archive call from its parse, moved by hide and back by unhide with their email, erased by delete,
and made from the stored fields where an email has none yet, within a range that mixes both."""

from __future__ import annotations

from datetime import UTC
from email.utils import format_datetime, parsedate_to_datetime

import sqlalchemy as sa

from sathub import db
from sathub.archive.removal.operations import DELETE, HIDE, UNHIDE, run, scope_of
from sathub.archive.store import lists
from sathub.archive.store.overviews import Overview, overview_of_email, overview_range
from sathub.archive.tables import emails, hidden_emails
from tests.archive.messages import DATE, raw_message
from tests.archive.store.test_public_inbox import DEV, arrive


def kept(engine, table=emails) -> dict[str, str | None]:
    with engine.connect() as conn:
        return dict(conn.execute(sa.select(table.c.message_id, table.c.overview)).all())


def test_the_live_archive_call_keeps_the_fields_from_its_parse(engine):
    arrive(engine, "a@x")
    arrive(engine, "b@x", "References: <a@x> <gone@x>", reply_to="gone@x")
    source = raw_message("b@x", subject="b@x", reply_to="gone@x", headers=("References: <a@x> <gone@x>",))
    subject, sender, date, message_id, references, size, lines = kept(engine)["b@x"].split("\t")
    assert (subject, sender, message_id, references) == (
        "b@x",
        "Ann Example <ann@example.com>",
        "<b@x>",
        "<a@x> <gone@x>",
    )
    assert date == format_datetime(parsedate_to_datetime(DATE).astimezone(UTC)).replace("-0000", "+0000")
    assert (int(size), int(lines)) == (len(source), source.split(b"\n\n", 1)[1].count(b"\n"))


def test_hide_moves_them_unhide_brings_them_back_delete_erases_them(engine):
    arrive(engine, "a@x")
    arrive(engine, "b@x", reply_to="a@x")
    shown = kept(engine)
    run(engine, HIDE, scope_of(message_id="b@x"), "spam", "test")
    assert kept(engine) == {"a@x": shown["a@x"]}
    assert kept(engine, hidden_emails) == {"b@x": shown["b@x"]}
    run(engine, UNHIDE, scope_of(message_id="b@x"), "mistake", "test")
    assert kept(engine) == shown and kept(engine, hidden_emails) == {}
    run(engine, DELETE, scope_of(message_id="b@x"), "erasure", "test", confirmed=True)
    assert kept(engine) == {"a@x": shown["a@x"]} and kept(engine, hidden_emails) == {}


def test_a_range_mixing_kept_and_unkept_fields_answers_both_in_order(engine):
    for key in ("a@x", "b@x", "c@x"):
        arrive(engine, key, reply_to=None if key == "a@x" else "a@x")
    shown = kept(engine)
    with engine.begin() as conn:
        conn.execute(emails.update().where(emails.c.message_id == "b@x").values(overview=None))
    with db.connect(engine) as conn:
        dev = lists.find_list(conn, DEV).id
        found = overview_range(conn, dev, 1, 3, 10)
        b_id = conn.scalar(sa.select(emails.c.id).where(emails.c.message_id == "b@x"))
        alone = overview_of_email(conn, b_id)
    without_lines = "\t".join([*shown["b@x"].split("\t")[:6], ""])
    assert found == [
        Overview(dev, 1, shown["a@x"]),
        Overview(dev, 2, without_lines),
        Overview(dev, 3, shown["c@x"]),
    ]
    assert alone == Overview(dev, 2, without_lines)
    with db.connect(engine) as conn:
        assert overview_range(conn, dev, 2, 3, 1) == [Overview(dev, 2, without_lines)]  # the limit
