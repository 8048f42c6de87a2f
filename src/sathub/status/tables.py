"""Interface A tables, as created by migration 0001 (queries use these; Alembic owns the DDL)."""

import sqlalchemy as sa

from sathub.db.schema import metadata

satellites = sa.Table(
    "satellites",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("api_name", sa.String(255), nullable=False),
    sa.Column("display_name", sa.String(255), nullable=False),
    sa.Column("website", sa.String(255), nullable=False, server_default=""),
    sa.Column("norad_id", sa.Integer, nullable=True),  # 0019: modes of one satellite share it
)

satellite_aliases = sa.Table(
    "satellite_aliases",
    metadata,
    sa.Column("alias", sa.String(255), primary_key=True),
    sa.Column("satellite_id", sa.Integer, sa.ForeignKey("satellites.id", ondelete="CASCADE"), nullable=False),
)

reports = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("day", sa.Date, nullable=False),
    sa.Column("hour", sa.SmallInteger, nullable=False),
    sa.Column("period", sa.SmallInteger, nullable=False),
    sa.Column("callsign", sa.String(32), nullable=False),
    sa.Column("report", sa.String(16), nullable=False),
    sa.Column("grid_square", sa.String(8), nullable=True),
    sa.Column("replaced_report", sa.String(16), nullable=True),
    # 0019: above the grid square during the quarter-hour? NULL: cannot tell (docs/orbits.md)
    sa.Column("visible", sa.Boolean, nullable=True),
)

report_totals = sa.Table(
    "report_totals",
    metadata,
    sa.Column("name_key", sa.String(255), primary_key=True),
    sa.Column("report_count", sa.Integer, nullable=False),
    sa.Column("latest_day", sa.Date, nullable=False),
    sa.Column("latest_hour", sa.SmallInteger, nullable=False),
)

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("username", sa.String(64), nullable=False, unique=True),
    sa.Column("password", sa.String(255), nullable=False),
    sa.Column("email", sa.String(255), nullable=False, server_default=""),
    sa.Column("session_generation", sa.Integer, nullable=False, server_default="0"),  # 0005
)

rate_limits = sa.Table(
    "rate_limits",
    metadata,
    sa.Column("client", sa.String(128), primary_key=True),
    sa.Column("window_start", sa.BigInteger, nullable=False),  # 0018: Unix times past 2038
    sa.Column("hits", sa.Integer, nullable=False),
)

# Kept by the triggers of migrations 0004 and 0007: reports per hour, stored name and report value,
# with the data revision that last changed the count (counts of 0 stay, as changes to be seen).
report_hours = sa.Table(
    "report_hours",
    metadata,
    sa.Column("day", sa.Date, primary_key=True),
    sa.Column("hour", sa.SmallInteger, primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("report", sa.String(16), primary_key=True),
    sa.Column("report_count", sa.Integer, nullable=False),
    sa.Column("revision", sa.BigInteger, nullable=False, server_default="0"),
)

# One row (id 1), moved by the triggers of migrations 0001 and 0007 on every write to reports and
# the catalog (catalog_revision by catalog writes alone): what cached answers are checked against.
data_revision = sa.Table(
    "data_revision",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("revision", sa.BigInteger, nullable=False),
    sa.Column("catalog_revision", sa.BigInteger, nullable=False, server_default="0"),  # 0007
    # The last id the triggers of migration 0009 gave an event: the stream's committed watermark.
    sa.Column("last_event_id", sa.BigInteger, nullable=False, server_default="0"),  # 0009
    # Moved by every elements load that changes a current set: what pass predictions are kept by.
    sa.Column("elements_revision", sa.BigInteger, nullable=False, server_default="0"),  # 0019
)

_COUNTS = ("heard", "telemetry", "not_heard", "crew")

# Written by the triggers of migration 0009, read by the stream (status/store/events.py): a report
# stored ('report'), a satellite's current status cell changed ('cell'), ids gap-free in commit order.
report_events = sa.Table(
    "report_events",
    metadata,
    sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("action", sa.String(8), nullable=True),
    sa.Column("stored_at", sa.BigInteger, nullable=False),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("report_id", sa.Integer, nullable=True),
    sa.Column("day", sa.Date, nullable=False),
    sa.Column("hour", sa.SmallInteger, nullable=False),
    sa.Column("period", sa.SmallInteger, nullable=True),
    sa.Column("callsign", sa.String(32), nullable=True),
    sa.Column("report", sa.String(16), nullable=True),
    sa.Column("grid_square", sa.String(8), nullable=True),
    sa.Column("previous_report", sa.String(16), nullable=True),
    *(sa.Column(count, sa.Integer, nullable=True) for count in _COUNTS),
    sa.Column("before_day", sa.Date, nullable=True),
    sa.Column("before_hour", sa.SmallInteger, nullable=True),
    *(sa.Column(f"before_{count}", sa.Integer, nullable=True) for count in _COUNTS),
)

# Each satellite's current cell as its last 'cell' event left it (migration 0009's triggers).
report_event_cells = sa.Table(
    "report_event_cells",
    metadata,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("day", sa.Date, nullable=False),
    sa.Column("hour", sa.SmallInteger, nullable=False),
    *(sa.Column(count, sa.Integer, nullable=False) for count in _COUNTS),
)


def column_length(column: sa.Column) -> int:
    """The n of a column declared sa.String(n) here: a longer value cannot be stored."""
    assert isinstance(column.type, sa.String) and column.type.length is not None, column
    return column.type.length


# Migration 0019: every element set loaded; a satellite's newest epoch is its current set. The
# columns are SGP4's inputs (radians, revolutions per minute as sgp4 keeps them), whatever the source.
ELEMENT_FIELDS = ("bstar", "ndot", "nddot", "ecco", "argpo", "inclo", "mo", "no_kozai", "nodeo")
orbital_elements = sa.Table(
    "orbital_elements",
    metadata,
    sa.Column("norad_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("epoch", sa.Float(precision=53), primary_key=True),  # Unix seconds, UTC
    sa.Column("object_name", sa.String(255), nullable=False, server_default=""),
    *(sa.Column(name, sa.Float(precision=53), nullable=False) for name in ELEMENT_FIELDS),
    sa.Column("source", sa.String(8), nullable=False),  # 'tle' or 'omm'
    sa.Column("loaded_at", sa.BigInteger, nullable=False),
)

# Migration 0019: one row (id 1), the lease by which one process at a time refreshes the elements.
orbit_refresh = sa.Table(
    "orbit_refresh",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("next_due", sa.BigInteger, nullable=False),
    sa.Column("last_success", sa.BigInteger, nullable=True),
    sa.Column("last_error", sa.Text, nullable=True),
    sa.Column("failures", sa.Integer, nullable=False, server_default="0"),
)

# Migration 0020: the registered webhooks, each with its subscription and its delivery state
# (position: the last event delivered or passed over; the run of failures; the lease by which one
# process at a time delivers it), and the last attempts of each (docs/orbits.md, "Webhooks").
webhooks = sa.Table(
    "webhooks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("url", sa.String(2048), nullable=False),
    sa.Column("secret", sa.String(255), nullable=False),
    sa.Column("events", sa.String(32), nullable=False),  # 'report', 'status', comma-separated
    sa.Column("names", sa.Text, nullable=False, server_default=""),  # lower-cased API names; '': all
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("disabled_reason", sa.Text, nullable=True),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("failures", sa.Integer, nullable=False, server_default="0"),
    sa.Column("failing_since", sa.Float(precision=53), nullable=True),
    sa.Column("next_attempt", sa.Float(precision=53), nullable=False, server_default="0"),
    sa.Column("lease_owner", sa.String(64), nullable=True),
    sa.Column("lease_until", sa.Float(precision=53), nullable=False, server_default="0"),
)

webhook_deliveries = sa.Table(
    "webhook_deliveries",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("webhook_id", sa.Integer, sa.ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
    sa.Column("delivery_id", sa.String(36), nullable=False),
    sa.Column("event_id", sa.BigInteger, nullable=False),
    sa.Column("attempted_at", sa.Float(precision=53), nullable=False),
    sa.Column("duration_ms", sa.Float(precision=53), nullable=False),
    sa.Column("status_code", sa.Integer, nullable=True),
    sa.Column("error", sa.String(255), nullable=True),
    sa.Index("webhook_deliveries_by_hook", "webhook_id", "id"),
)
