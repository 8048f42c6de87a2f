"""`archive reindex --sources` (sathub.archive.ingest.searched_text, SQLite and PostgreSQL): the
commented names and scrubbed text of mail stored before migration 0023, and the references of mail
stored before 0029 and OVER's kept fields of mail stored before 0030, read from the kept sources,
a batch at a time, resumably, of one list or all; mail without a kept source, and what the import
wrote meanwhile, left as they are."""

from __future__ import annotations

import zlib

import pytest
import sqlalchemy as sa

from sathub.archive.ingest import searched_text
from sathub.archive.ingest.searched_text import SearchedText, read_searched_text
from sathub.archive.store.email_sources import write_searched_text
from sathub.archive.store.lists import find_list
from sathub.archive.store.overviews import overview_range
from sathub.archive.tables import email_references, email_sources, emails
from tests.archive.import_fixtures import LIST, message, run
from tests.archive.import_fixtures import archive as mbox
from tests.archive.search.test_freshness import found

PIPERMAIL = "Patch below.\n\n-------------- next part --------------\nIndex: display.c\n+ XDrawString(pixmap)\n"
COMMENTED = "brett at python.org (Brett Cannon)"


def stored_before_0023(engine, tmp_path) -> None:
    """Three emails of dev@ (a commented name, scrubbed text, neither) and one of ops@ with a
    commented name, as the upgrade to 0023 leaves mail stored before it: not read (NULL)."""
    dev = [
        message("brett", sender=COMMENTED),
        message("patch", body=PIPERMAIL),
        message("plain", body="cannon fodder\n"),
    ]
    run(engine, mbox(tmp_path, "dev.mbox", *dev))
    run(engine, mbox(tmp_path, "ops.mbox", message("ops", sender=COMMENTED)), list_name="ops@lists.example.org")
    with engine.begin() as conn:
        conn.execute(sa.update(emails).values(sender_comment=None, scrubbed=None))


def columns(engine) -> dict[str, tuple]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(emails.c.message_id, emails.c.sender_comment, emails.c.scrubbed))
        return {row.message_id.split("@")[0]: (row.sender_comment, row.scrubbed) for row in rows}


def test_every_kept_source_is_read_once(engine, tmp_path):
    stored_before_0023(engine, tmp_path)
    assert found(engine, "f:cannon") == found(engine, "xdrawstring") == set()
    assert read_searched_text(engine) == SearchedText(read=4, found=3)
    read = columns(engine)
    assert read["brett"] == read["ops"] == ("Brett Cannon", "")
    assert read["patch"][0] == "" and "XDrawString(pixmap)" in read["patch"][1]
    assert read["plain"] == ("", "")
    assert found(engine, "f:cannon") == {"brett@example.org", "ops@example.org"}
    assert found(engine, "xdrawstring") == {"patch@example.org"}
    assert read_searched_text(engine) == SearchedText()
    assert columns(engine) == read


def test_one_lists_sources_alone(engine, tmp_path):
    stored_before_0023(engine, tmp_path)
    with engine.connect() as conn:
        ops = find_list(conn, "ops@lists.example.org").id
    assert read_searched_text(engine, ops) == SearchedText(read=1, found=1)
    assert [key for key, value in columns(engine).items() if value != (None, None)] == ["ops"]


def test_a_run_stopped_takes_up_where_it_stopped(engine, tmp_path, monkeypatch):
    stored_before_0023(engine, tmp_path)
    monkeypatch.setattr(searched_text, "BATCH", 2)
    parsed = []

    def parse_then_stop(*args):
        if len(parsed) == 3:  # the second batch's second source: that batch is not written
            raise KeyboardInterrupt
        parsed.append(args[0])
        return real_parse(*args)

    real_parse = searched_text.parse_email
    monkeypatch.setattr(searched_text, "parse_email", parse_then_stop)
    with pytest.raises(KeyboardInterrupt):
        read_searched_text(engine)
    assert sorted(key for key, value in columns(engine).items() if value == (None, None)) == ["ops", "plain"]
    monkeypatch.setattr(searched_text, "parse_email", real_parse)
    assert read_searched_text(engine) == SearchedText(read=2, found=1)


def test_mail_without_a_kept_source_stays_not_read(engine, tmp_path):
    """Mail archived before sources were kept (migration 0008) has nothing to read again."""
    stored_before_0023(engine, tmp_path)
    with engine.begin() as conn:
        brett = conn.scalar(sa.select(emails.c.id).where(emails.c.message_id == "brett@example.org"))
        conn.execute(sa.delete(email_sources).where(email_sources.c.email_id == brett))
    assert read_searched_text(engine) == SearchedText(read=3, found=2)
    assert columns(engine)["brett"] == (None, None)


def test_a_source_the_rules_cannot_parse_is_marked_read_with_nothing_found(engine, tmp_path, monkeypatch):
    stored_before_0023(engine, tmp_path)
    real_parse = searched_text.parse_email

    def refusing_the_patch(source, *args):
        if b"XDrawString" in source:
            raise ValueError("unparseable")
        return real_parse(source, *args)

    monkeypatch.setattr(searched_text, "parse_email", refusing_the_patch)
    summary = read_searched_text(engine)
    assert summary == SearchedText(read=4, found=2, unreadable=1)
    assert summary.describe() == (
        "Read 4 source(s): 2 with a commented name or scrubbed text, indexed again. 1 could not be parsed."
    )
    assert columns(engine)["patch"] == ("", "")


def test_what_the_import_wrote_meanwhile_stays(engine, tmp_path):
    stored_before_0023(engine, tmp_path)
    with engine.begin() as conn:
        conn.execute(
            sa.update(emails).where(emails.c.message_id == "brett@example.org").values(sender_comment="B", scrubbed="")
        )
        brett = conn.scalar(sa.select(emails.c.id).where(emails.c.message_id == "brett@example.org"))
        kept = conn.scalar(sa.select(emails.c.overview).where(emails.c.id == brett))
        write_searched_text(
            conn, [{"email_id": brett, "comment": "Brett Cannon", "text": ""}], {brett: ["x@y"]}, {brett: 99}
        )
    assert columns(engine)["brett"] == ("B", "")
    assert references(engine)["brett"] == []  # read by the import: nothing written over it
    assert overviews(engine)["brett"] == kept


def references(engine) -> dict[str, list[str]]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(emails.c.message_id, email_references.c.message_id.label("named"))
            .outerjoin(email_references, email_references.c.email_id == emails.c.id)
            .order_by(emails.c.id, email_references.c.position)
        )
        found: dict[str, list[str]] = {}
        for row in rows:
            found.setdefault(row.message_id.split("@")[0], []).extend([row.named] if row.named else [])
        return found


def test_the_references_of_mail_stored_before_0029_are_read(engine, tmp_path):
    """As the upgrade to 0029 leaves mail stored before it: no rows, not read (NULL); its text was
    read already (nothing found again, nothing indexed again)."""
    run(engine, mbox(tmp_path, "dev.mbox", message("root"), message("reply", reply_to="root")))
    written = references(engine)
    assert written == {"root": [], "reply": ["root@example.org"]}
    with engine.begin() as conn:
        conn.execute(email_references.delete())
        conn.execute(sa.update(emails).values(references_read=None))
    assert read_searched_text(engine) == SearchedText(read=2)
    assert references(engine) == written
    assert read_searched_text(engine) == SearchedText()


def overviews(engine) -> dict[str, str | None]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(emails.c.message_id, emails.c.overview))
        return {row.message_id.split("@")[0]: row.overview for row in rows}


def test_overs_kept_fields_of_mail_stored_before_0030_are_made(engine, tmp_path):
    """As the upgrade to 0030 leaves mail stored before it: no kept fields (NULL). OVER makes them
    from the stored fields meanwhile, with :lines empty; the reindex makes them as the import
    wrote them, :lines counted from the source (public-inbox's rule, counted here by hand)."""
    body = "first line\n\n> quoted\nlast\n"
    run(engine, mbox(tmp_path, "dev.mbox", message("root", body=body), message("reply", reply_to="root")))
    written = overviews(engine)
    with engine.connect() as conn:
        sources = dict(conn.execute(sa.select(emails.c.message_id, email_sources.c.data).join(email_sources)).all())
    for key, fields in written.items():
        source = zlib.decompress(sources[f"{key}@example.org"])
        assert fields.split("\t")[6] == str(source.split(b"\n\n", 1)[1].count(b"\n"))
    assert written["root"].split("\t")[6] == "4"  # the body's line feeds (the blank line after it is the mbox's)
    with engine.begin() as conn:
        conn.execute(sa.update(emails).values(overview=None))
        list_id = find_list(conn, LIST).id
        meanwhile = {row.article_number: row.fields for row in overview_range(conn, list_id, 1, 9, 9)}
    assert meanwhile == {1: blank_lines(written["root"]), 2: blank_lines(written["reply"])}
    assert read_searched_text(engine) == SearchedText(read=2)
    assert overviews(engine) == written
    assert read_searched_text(engine) == SearchedText()


def blank_lines(fields: str) -> str:
    """The kept fields with :lines empty."""
    values = fields.split("\t")
    return "\t".join([*values[:6], ""])
