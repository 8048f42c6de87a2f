"""The migrations create exactly the columns, types, nullability and defaults that
sathub/status/tables.py declares, so that the queries and the schema cannot drift apart."""

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from sathub import db
from sathub.status import tables
from tests.schema_drift import same_default

STATUS_TABLES = {
    "satellites",
    "satellite_aliases",
    "reports",
    "report_totals",
    "users",
    "rate_limits",
    "report_hours",
    "data_revision",
    "report_events",
    "report_event_cells",
}


def status_columns(obj, name, type_, reflected, compare_to) -> bool:
    """Tables and columns of interface A. Its indexes (expression indexes such as
    lower(name), which SQLite cannot reflect) belong to the migrations alone."""
    if type_ == "table":
        return obj.name in STATUS_TABLES
    if type_ == "column":
        return obj.table.name in STATUS_TABLES
    return False


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_migrated_database_matches_tables_py(engine):
    declared = {
        table.name
        for table in (
            tables.satellites,
            tables.satellite_aliases,
            tables.reports,
            tables.report_totals,
            tables.users,
            tables.rate_limits,
            tables.report_hours,
            tables.data_revision,
            tables.report_events,
            tables.report_event_cells,
        )
    }
    assert declared == STATUS_TABLES
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": same_default, "include_object": status_columns}
        )
        differences = compare_metadata(context, db.metadata)
    assert differences == []
