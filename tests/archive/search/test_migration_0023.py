"""What pipermail hid, searched (migration 0023, SQLite and PostgreSQL): the names in From comments
and the text inlined after "next part", as mail arrives and, for mail stored before 0023, read from
the stored sources by `archive reindex --sources` (the migration reads no mail); the downgrade
forgets them, and FTS5's index stays consistent with its view both ways."""

from __future__ import annotations

from itertools import pairwise

import sqlalchemy as sa
from alembic import command
from click.testing import CliRunner

from sathub.archive.commands import archive
from sathub.archive.search.query import parse
from sathub.archive.store import search
from sathub.archive.tables import emails
from sathub.db import connect
from tests.archive.import_fixtures import archive as mbox
from tests.archive.import_fixtures import message, run
from tests.archive.store.test_search_index import index_rows_written
from tests.conftest import migrate, scratch_engine

PIPERMAIL_BODY = """Patch below.

-------------- next part --------------
Index: display.c
+	XDrawString(XtDisplay(draww), pixmap, drawGC,
-------------- next part --------------
A non-text attachment was scrubbed...
Name: signature.asc
Type: application/pgp-signature
"""


def test_pipermails_commented_names_and_inlined_text_are_searched(engine, tmp_path):
    """`brett at python.org (Brett Cannon)` is named by its address (HyperKitty's rule, kept), and
    found by `f:cannon`; the patch inlined after "next part" is found, pipermail's note of the
    signature it removed is not, and neither is `content`."""
    run(
        engine,
        mbox(
            tmp_path,
            "pipermail.mbox",
            message("brett", sender="brett at python.org (Brett Cannon)", body=PIPERMAIL_BODY),
            message("other", sender="Brett Other <other@example.org>"),
        ),
    )
    with connect(engine) as conn:

        def message_ids(query: str) -> list[str]:
            return [row.message_id for row in search.emails_by_id(conn, search.matching_ids(conn, parse(query)))]

        brett = ["brett@example.org"]
        assert message_ids("f:cannon") == message_ids('f:"brett cannon"') == message_ids("xdrawstring") == brett
        assert message_ids("b:display.c") == message_ids('b:"XtDisplay draww"') == brett
        assert message_ids("f:brett") == ["other@example.org", "brett@example.org"]
        assert message_ids("scrubbed") == message_ids("signature") == message_ids("f:other cannon") == []
        row = conn.execute(sa.select(emails).where(emails.c.message_id == "brett@example.org")).one()
    assert (row.sender_name, row.sender_address) == ("brett@python.org", "brett@python.org")
    assert row.content == "Patch below.\n\n"


def found(engine, query: str) -> int:
    with connect(engine) as conn:
        return len(search.matching_ids(conn, parse(query)))


def consistent(engine) -> None:
    if engine.dialect.name == "sqlite":  # raises when the index holds what its view does not show
        with engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO email_search(email_search, rank) VALUES ('integrity-check', 1)")


def searched_only(engine) -> dict[str, tuple]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(emails.c.message_id, emails.c.sender_comment, emails.c.scrubbed))
        return {row.message_id: (row.sender_comment, row.scrubbed) for row in rows}


def reindex(engine, *options: str) -> str:
    url = engine.url.render_as_string(hide_password=False)
    result = CliRunner().invoke(archive, ["reindex", *options, "--database-url", url])
    assert result.exit_code == 0, result.output
    return result.output


def test_mail_stored_before_0023_is_found_by_its_commented_names_and_scrubbed_text(database_url, tmp_path):
    """The upgrade leaves the new columns not read (NULL) and the index as it was; `archive
    reindex --sources` reads them from the sources, once: a second run reads nothing."""
    pipermail = message("brett", sender="brett at python.org (Brett Cannon)", body=PIPERMAIL_BODY)
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "head")
        run(engine, mbox(tmp_path, "pipermail.mbox", pipermail, message("plain", body="cannon fodder\n")))
        assert [found(engine, q) for q in ("f:cannon", "xdrawstring", "cannon")] == [1, 1, 2]
        migrate(engine, "0022", step=command.downgrade)
        consistent(engine)
        assert [found(engine, q) for q in ("f:cannon", "xdrawstring", "cannon")] == [0, 0, 1]
        with engine.begin() as conn:  # an indexed column changed still re-indexes its email
            conn.execute(sa.text("UPDATE emails SET subject = 'renamed' WHERE message_id = 'plain@example.org'"))
        migrate(engine, "head")
        consistent(engine)
        assert searched_only(engine) == {"brett@example.org": (None, None), "plain@example.org": (None, None)}
        assert [found(engine, q) for q in ("f:cannon", "xdrawstring", "cannon", "renamed")] == [0, 0, 1, 1]
        assert reindex(engine) == "Indexed 2 email(s) for search.\n"  # what is not read yet reads as ''
        consistent(engine)
        assert [found(engine, q) for q in ("f:cannon", "xdrawstring", "cannon", "renamed")] == [0, 0, 1, 1]
        assert (
            reindex(engine, "--sources")
            == "Read 2 source(s): 1 with a commented name or scrubbed text, indexed again.\n"
        )
        consistent(engine)
        assert [found(engine, q) for q in ("f:cannon", "xdrawstring", "cannon", "renamed")] == [1, 1, 2, 1]
        read = searched_only(engine)
        assert read["plain@example.org"] == ("", "")
        comment, scrubbed = read["brett@example.org"]
        assert comment == "Brett Cannon" and "XDrawString" in scrubbed and "was scrubbed" not in scrubbed
        assert (
            reindex(engine, "--sources")
            == "Read 0 source(s): 0 with a commented name or scrubbed text, indexed again.\n"
        )
        assert searched_only(engine) == read
        assert [found(engine, q) for q in ("f:cannon", "xdrawstring", "cannon", "renamed")] == [1, 1, 2, 1]
        with engine.begin() as conn:  # the new columns are watched: a change re-indexes the email
            conn.execute(sa.text("UPDATE emails SET scrubbed = 'moved' WHERE message_id = 'brett@example.org'"))
        consistent(engine)
        assert [found(engine, q) for q in ("xdrawstring", "moved")] == [0, 1]


def test_marking_an_email_read_with_nothing_found_does_not_index_it_again(engine, tmp_path):
    """NULL to '' is no change of the text the index reads: the triggers leave the email alone, so
    the many emails with nothing found cost `archive reindex --sources` no indexing. Seen by the
    rows written: PostgreSQL's statistics of the index in the transaction, SQLite's
    total_changes() (which counts the rows triggers change, FTS5's shadow tables' too)."""
    run(engine, mbox(tmp_path, "plain.mbox", message("plain", body="cannon fodder\n")))
    with engine.begin() as conn:
        conn.execute(sa.update(emails).values(sender_comment=None, scrubbed=None))

    def written(conn) -> int:
        if conn.dialect.name == "postgresql":
            return index_rows_written(conn)
        return conn.exec_driver_sql("SELECT total_changes()").scalar_one()

    with engine.begin() as conn:
        steps = [written(conn)]
        for change in ({"thread_order": emails.c.thread_order}, {"sender_comment": "", "scrubbed": ""}):
            conn.execute(sa.update(emails).values(change))
            steps.append(written(conn))
        conn.execute(sa.update(emails).values(sender_comment="Fodder"))
        steps.append(written(conn))
    # An UPDATE of no indexed column writes what marking the email read writes (on SQLite the
    # email's row and its list's revision); a changed comment writes the index as well.
    untouched, marked, changed = [after - before for before, after in pairwise(steps)]
    assert marked == untouched < changed
    assert found(engine, "f:fodder") == 1
