"""The migrations create exactly the archive schema of sathub/archive/tables.py: 0002 its tables,
0008 email_sources, pipermail_numbers and the index emails_list_arrival."""

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from sathub import db
from sathub.archive import tables
from tests.schema_drift import same_default

ARCHIVE_TABLES = {"mailing_lists", "senders", "threads", "emails", "attachments"}
SOURCE_TABLES = {"email_sources", "pipermail_numbers"}


# Made by a migration on one backend alone, so not in tables.py: 0030's index of OVER's kept fields
# (SQLite; a PostgreSQL B-tree entry cannot hold a long line).
ONE_BACKENDS_INDEXES = {"emails_list_article_overview"}


def archive_only(obj, name, type_, reflected, compare_to) -> bool:
    if type_ == "index" and name in ONE_BACKENDS_INDEXES:
        return False
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return table is not None and table.name in ARCHIVE_TABLES


def sources_only(obj, name, type_, reflected, compare_to) -> bool:
    if type_ == "index":
        return name == "emails_list_arrival"
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return table is not None and table.name in SOURCE_TABLES


# Interface A's expression indexes (lower(name), ...) cannot be reflected on SQLite; not ours to check.
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_migrated_database_matches_tables_py(engine):
    assert {
        tables.mailing_lists.name,
        tables.senders.name,
        tables.threads.name,
        tables.emails.name,
        tables.attachments.name,
    } == ARCHIVE_TABLES
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": same_default, "include_object": archive_only}
        )
        differences = compare_metadata(context, db.metadata)
    assert differences == []


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_migration_0008_matches_tables_py(engine):
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": same_default, "include_object": sources_only}
        )
        assert compare_metadata(context, db.metadata) == []
