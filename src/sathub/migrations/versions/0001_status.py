"""Interface A: catalog, aliases, reports, report totals, admin users, rate limits, data revision.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "satellites",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("api_name", sa.String(255), nullable=False),
        sa.Column("display_name", sa.String(255), nullable=False),
        sa.Column("website", sa.String(255), nullable=False, server_default=""),
    )
    op.create_index("satellites_api_name", "satellites", [sa.text("lower(api_name)")], unique=True)
    op.create_index("satellites_display_name", "satellites", [sa.text("lower(display_name)")])

    op.create_table(
        "satellite_aliases",
        sa.Column("alias", sa.String(255), primary_key=True),
        sa.Column("satellite_id", sa.Integer, sa.ForeignKey("satellites.id", ondelete="CASCADE"), nullable=False),
    )
    op.create_index("satellite_aliases_key", "satellite_aliases", [sa.text("lower(alias)")], unique=True)

    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("hour", sa.SmallInteger, nullable=False),
        sa.Column("period", sa.SmallInteger, nullable=False),
        sa.Column("callsign", sa.String(32), nullable=False),
        sa.Column("report", sa.String(16), nullable=False),
        sa.Column("grid_square", sa.String(8), nullable=True),
        # The report value this row replaced in its slot (NULL when it replaced nothing).
        sa.Column("replaced_report", sa.String(16), nullable=True),
    )
    # The slot: one report per satellite, day, hour, quarter and callsign, across every process.
    op.create_index(
        "reports_slot",
        "reports",
        [sa.text("lower(name)"), "day", "hour", "period", sa.text("upper(callsign)")],
        unique=True,
    )
    op.create_index("reports_time", "reports", ["day", "hour", "period", "id"])
    op.create_index("reports_callsign", "reports", [sa.text("upper(callsign)"), "day", "hour"])

    # Per-name totals kept with every write, so catalog statistics cost one lookup, not a scan.
    op.create_table(
        "report_totals",
        sa.Column("name_key", sa.String(255), primary_key=True),
        sa.Column("report_count", sa.Integer, nullable=False),
        sa.Column("latest_day", sa.Date, nullable=False),
        sa.Column("latest_hour", sa.SmallInteger, nullable=False),
    )

    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(64), nullable=False, unique=True),
        sa.Column("password", sa.String(255), nullable=False),
        sa.Column("email", sa.String(255), nullable=False, server_default=""),
    )

    # Fixed-window counters shared by every process (legacy form abuse limit).
    op.create_table(
        "rate_limits",
        sa.Column("client", sa.String(128), primary_key=True),
        sa.Column("window_start", sa.Integer, nullable=False),
        sa.Column("hits", sa.Integer, nullable=False),
    )

    # A counter bumped by triggers on every change of the data that interface A's reads show, so
    # each process can keep rendered answers while the revision they were made at is current.
    op.create_table(
        "data_revision",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("revision", sa.BigInteger, nullable=False),
    )
    op.execute("INSERT INTO data_revision (id, revision) VALUES (1, 0)")
    watched = ("reports", "satellites", "satellite_aliases")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("""CREATE FUNCTION bump_data_revision() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE data_revision SET revision = revision + 1 WHERE id = 1; RETURN NULL; END $$""")
        for table in watched:
            op.execute(
                f"CREATE TRIGGER {table}_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
                f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION bump_data_revision()"
            )
    else:
        for table in watched:
            for event in ("INSERT", "UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_{event.lower()}_revision AFTER {event} ON {table} "
                    "BEGIN UPDATE data_revision SET revision = revision + 1 WHERE id = 1; END"
                )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION bump_data_revision() CASCADE")
    op.drop_table("data_revision")
    for table in ("rate_limits", "users", "report_totals", "reports", "satellite_aliases", "satellites"):
        op.drop_table(table)
