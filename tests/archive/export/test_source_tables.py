"""Migration 0008 creates exactly email_sources, pipermail_numbers and the index emails_list_arrival of
sathub/archive/tables.py."""

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from sathub import db
from tests.schema_drift import same_default

OURS = {"email_sources", "pipermail_numbers"}


def ours_only(obj, name, type_, reflected, compare_to) -> bool:
    if type_ == "index":
        return name == "emails_list_arrival"
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return table is not None and table.name in OURS


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_migrated_database_matches_tables_py(engine):
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": same_default, "include_object": ours_only}
        )
        assert compare_metadata(context, db.metadata) == []
