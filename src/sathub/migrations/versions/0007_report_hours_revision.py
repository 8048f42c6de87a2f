"""Interface A: hourly counts say at which data revision they last changed, so summary.php can be
brought up to date from the counts a write changed instead of summed again after every write.

- report_hours.revision: the data revision of the statement that last changed the row. Rows
  are no longer deleted when their count falls to 0 (nor by TRUNCATE): a count going away is a
  change a reader must see. Readers skip counts of 0.
- data_revision.catalog_revision: moved by catalog writes only (summary shows display names).
- SQLite fires the triggers of one event newest first, so the hourly counts of 0004 were written
  before 0001's revision bump; each event now has one trigger that bumps, then counts. PostgreSQL
  fires them by name, reports_revision before reports_tally_*, as before.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

COLUMNS = "day, hour, name, report"
SAME_HOUR = "day = {0}.day AND hour = {0}.hour AND name = {0}.name AND report = {0}.report"
CURRENT = "(SELECT revision FROM data_revision WHERE id = 1)"
BUMP = "UPDATE data_revision SET revision = revision + 1{} WHERE id = 1"
CATALOG = ("satellites", "satellite_aliases")
EVENTS = ("insert", "update", "delete")


def upgrade() -> None:
    op.add_column("data_revision", sa.Column("catalog_revision", sa.BigInteger, nullable=False, server_default="0"))
    op.add_column("report_hours", sa.Column("revision", sa.BigInteger, nullable=False, server_default="0"))
    op.create_index("ix_report_hours_revision", "report_hours", ["revision"])
    # One satellite's hours of a window, for the groups a write changed.
    op.create_index("ix_report_hours_group", "report_hours", ["name", "report", "day", "hour"])
    if op.get_bind().dialect.name == "postgresql":
        _postgresql_triggers()
    else:
        _sqlite_triggers()
    # Statistics for the new column, so that `revision > n` goes through its index at once.
    op.execute("ANALYZE report_hours")


def _sqlite_triggers() -> None:
    for event in EVENTS:
        op.execute(f"DROP TRIGGER reports_{event}_revision")
        op.execute(f"DROP TRIGGER reports_{event}_hours")
    changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in COLUMNS.split(", "))
    add = (
        f"INSERT INTO report_hours ({COLUMNS}, report_count, revision) "
        f"SELECT NEW.day, NEW.hour, NEW.name, NEW.report, 1, {CURRENT} WHERE {{}} "
        f"ON CONFLICT ({COLUMNS}) DO UPDATE SET report_count = report_count + 1, revision = excluded.revision;"
    )
    remove = (
        f"UPDATE report_hours SET report_count = report_count - 1, revision = {CURRENT} "
        f"WHERE {SAME_HOUR.format('OLD')} AND ({{}});"
    )
    bodies = {
        "insert": add.format("true"),
        "delete": remove.format("true"),
        "update": remove.format(changed) + " " + add.format(changed),
    }
    for event, body in bodies.items():
        op.execute(
            f"CREATE TRIGGER reports_{event}_tally AFTER {event.upper()} ON reports BEGIN {BUMP.format('')}; {body} END"
        )
    for table in CATALOG:
        for event in EVENTS:
            op.execute(f"DROP TRIGGER {table}_{event}_revision")
            op.execute(
                f"CREATE TRIGGER {table}_{event}_revision AFTER {event.upper()} ON {table} "
                f"BEGIN {BUMP.format(', catalog_revision = catalog_revision + 1')}; END"
            )


def _postgresql_triggers() -> None:
    op.execute(f"""CREATE OR REPLACE FUNCTION count_report_hours() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                UPDATE report_hours h SET report_count = h.report_count - o.n, revision = {CURRENT}
                FROM (SELECT {COLUMNS}, count(*) AS n FROM old_rows GROUP BY {COLUMNS} ORDER BY {COLUMNS}) o
                WHERE h.day = o.day AND h.hour = o.hour AND h.name = o.name AND h.report = o.report;
            END IF;
            IF TG_OP = 'TRUNCATE' THEN
                UPDATE report_hours SET report_count = 0, revision = {CURRENT} WHERE report_count <> 0;
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                INSERT INTO report_hours ({COLUMNS}, report_count, revision)
                SELECT {COLUMNS}, count(*), {CURRENT} FROM new_rows GROUP BY {COLUMNS} ORDER BY {COLUMNS}
                ON CONFLICT ({COLUMNS}) DO UPDATE
                SET report_count = report_hours.report_count + excluded.report_count, revision = excluded.revision;
            END IF;
            RETURN NULL;
        END $$""")
    op.execute(f"""CREATE FUNCTION bump_catalog_revision() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN {BUMP.format(", catalog_revision = catalog_revision + 1")}; RETURN NULL; END $$""")
    for table in CATALOG:
        op.execute(f"DROP TRIGGER {table}_revision ON {table}")
        op.execute(
            f"CREATE TRIGGER {table}_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
            f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_revision()"
        )


def downgrade() -> None:
    raise NotImplementedError(
        "0007 is not reversible: the counts of 0 it keeps would need deleting "
        "and 0004's triggers recreating; restore a backup instead"
    )
