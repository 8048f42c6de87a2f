"""Migration 0014 on a PostgreSQL database that already holds mail (on SQLite it changes nothing:
test_search_migrations takes SQLite through it, to 0015's facets, which SQLite's search needs):
searches find what they found; the tsvectors written after it are those 0013 wrote (ASCII text
cut into words by replace() instead of a regular expression); a batch's entries are merged into
the GIN indexes by the statement that indexes it, one email's wait in the pending lists; a role
that owns nothing can index; the downgrade gives 0013's back."""

from __future__ import annotations

import importlib
import uuid

import pytest
import sqlalchemy as sa
from alembic import command

from sathub.archive.tables import emails
from tests.archive.api_fixtures import MAIL
from tests.archive.api_fixtures import seed_archive as seed
from tests.archive.search.test_freshness import found
from tests.archive.search.test_search_migrations import assert_fixtures_found, ids
from tests.conftest import BACKENDS, migrate, scratch_engine

pytestmark = pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)  # PostgreSQL

BATCH = importlib.import_module("sathub.migrations.versions.0014_search_import_speed").BATCH

# 0013's fields, as its search_field made them (search_words lowers every text first).
FIELD = "setweight(to_tsvector('simple', search_words({})), '{}')"
OTHERS = (
    FIELD.format("e.sender_name || ' ' || e.sender_address", "C")
    + " || "
    + FIELD.format(
        "coalesce((SELECT string_agg(a.name, ' ' ORDER BY a.counter) FROM attachments a WHERE a.email_id = e.id), '')",
        "D",
    )
)
AS_0013 = (
    "SELECT count(*) FROM email_search s JOIN emails e ON e.id = s.email_id WHERE "
    f"s.heading <> {FIELD.format('e.subject', 'A')} || {OTHERS} OR s.document <> "
    f"{FIELD.format('e.subject', 'A')} || {FIELD.format('left(e.content, 250000)', 'B')} || {OTHERS}"
)
# Every pair of ASCII characters between and around words and numbers, cut into words by 0014's
# search_field and by 0013's: the texts whose tsvectors differ (the parser's compound tokens).
PAIRS = (
    "WITH c AS (SELECT chr(i) AS ch FROM generate_series(1, 127) i), "
    "contexts AS (SELECT unnest(ARRAY['ab%scd%sef', '12%s34%s56', '%sAb%s', 'a1%s%s2B', '1%se%s5']) AS f), "
    "texts AS (SELECT format(f, c1.ch, c2.ch) AS v FROM contexts, c c1, c c2) "
    f"SELECT count(*) FROM texts WHERE search_field(v, 'B') <> {FIELD.format('v', 'B')}"
)
PENDING = "SELECT gin_clean_pending_list('email_search_document') + gin_clean_pending_list('email_search_heading')"


def test_a_database_with_mail_is_searched_alike_after_0014(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0013")
        seed(engine)
        migrate(engine, "0014")
        assert_fixtures_found(engine)
        # Mixed case, punctuation that the parser would join words by, and text that is not ASCII.
        changed = {
            "subject": "Re: GPSD-3.25 Release_Candidate (FINAL)",
            "content": "Don't PANIC: see HTTP://Example.ORG/x?y=1&z=2, esr@THYRSUS.com, 3.14 <b>Bold</b>",
        }
        with engine.begin() as conn:
            conn.execute(emails.update().where(emails.c.message_id == MAIL["E"].message_id).values(**changed))
            conn.execute(
                emails.update().where(emails.c.message_id == MAIL["F"].message_id).values(content="Horák, CAFÉ: Ωmega!")
            )
            assert conn.scalar(sa.text(AS_0013)) == 0
            assert conn.scalar(sa.text(PAIRS)) == 0
            # One email at a time waits in the pending lists (0013's 256 kB), merged later ...
            assert conn.scalar(sa.text(PENDING)) > 0
            # ... and a batch is merged by the statement that indexes it.
            conn.execute(sa.text(f"SELECT index_emails(ARRAY(SELECT id FROM emails, generate_series(1, {BATCH})))"))
            assert conn.scalar(sa.text(PENDING)) == 0
        assert found(engine, '"release candidate" s:gpsd') == ids("E")
        assert found(engine, "example org thyrsus 3 14 bold") == ids("E")
        assert found(engine, "horak cafe omega") == set()
        assert found(engine, "horak café ωmega") == ids("F")
        migrate(engine, "0013", command.downgrade)
        assert found(engine, "s:gpsd") == ids("E")


def test_a_role_that_owns_nothing_indexes(database_url, tmp_path):
    """Merging the pending lists asks to own the indexes: index_emails runs as their owner, so an
    application's role that only writes mail still indexes it."""
    role = f"sathub_test_{uuid.uuid4().hex[:12]}"
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0014")
        seed(engine)
        with engine.begin() as conn:
            conn.execute(sa.text(f"CREATE ROLE {role}"))
        try:
            with engine.begin() as conn:
                conn.execute(sa.text(f"SET LOCAL ROLE {role}"))
                conn.execute(sa.text("SELECT index_emails(ARRAY(SELECT 1))"))
        finally:
            with engine.begin() as conn:
                conn.execute(sa.text(f"DROP ROLE {role}"))
        assert found(engine, "welcome") == ids("A", "B", "C", "D", "X")


def test_0014_downgrades_to_0013s_function_and_limits(database_url, tmp_path):
    function = (
        "SELECT prosecdef, l.lanname, 'gin_pending_list_limit=256' = ANY(proconfig) FROM pg_proc p "
        "JOIN pg_language l ON l.oid = p.prolang WHERE proname = 'index_emails'"
    )
    limits = (
        "SELECT array_agg(reloptions[1] ORDER BY relname) FROM pg_class "
        "WHERE relname IN ('email_search_document', 'email_search_heading')"
    )
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0014")
        with engine.connect() as conn:
            assert tuple(conn.execute(sa.text(function)).one()) == (True, "plpgsql", True)
            assert conn.scalar(sa.text(limits)) == [None, None]  # the function's setting applies
        migrate(engine, "0013", command.downgrade)
        with engine.connect() as conn:
            assert tuple(conn.execute(sa.text(function)).one()) == (False, "sql", None)
            assert conn.scalar(sa.text(limits)) == ["gin_pending_list_limit=256"] * 2
        seed(engine)
        assert found(engine, "welcome") == ids("A", "B", "C", "D", "X")
