"""Interface A: reports counted per hour, satellite name and report value, kept by triggers.

summary.php groups the reports of a window by name and value. Scanning the reports of the last
24 hours costs tens of milliseconds at a busy time (~37,000 rows in the 1M benchmark) and grows
with traffic; the same answer from hourly counts reads at most hours x names x values rows.
Triggers keep the counts, so every write path (API, submit.php, import-legacy, a manual UPDATE or
DELETE) keeps them exact. Names are grouped as stored (case-sensitive), as summary.php does.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

COLUMNS = "day, hour, name, report"
SAME_HOUR = "day = {0}.day AND hour = {0}.hour AND name = {0}.name AND report = {0}.report"


def upgrade() -> None:
    op.create_table(
        "report_hours",
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("hour", sa.SmallInteger, nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("report", sa.String(16), nullable=False),
        sa.Column("report_count", sa.Integer, nullable=False),
        # (day, hour) first: a window is one range of the primary key.
        sa.PrimaryKeyConstraint("day", "hour", "name", "report"),
    )
    op.execute(
        f"INSERT INTO report_hours ({COLUMNS}, report_count) SELECT {COLUMNS}, count(*) FROM reports GROUP BY {COLUMNS}"
    )
    if op.get_bind().dialect.name == "postgresql":
        _postgresql_triggers()
    else:
        _sqlite_triggers()


def _sqlite_triggers() -> None:
    add = (
        f"INSERT INTO report_hours ({COLUMNS}, report_count) VALUES (NEW.day, NEW.hour, NEW.name, NEW.report, 1) "
        f"ON CONFLICT ({COLUMNS}) DO UPDATE SET report_count = report_count + 1;"
    )
    remove = (
        f"UPDATE report_hours SET report_count = report_count - 1 WHERE {SAME_HOUR.format('OLD')}; "
        f"DELETE FROM report_hours WHERE {SAME_HOUR.format('OLD')} AND report_count <= 0;"
    )
    changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in COLUMNS.split(", "))
    op.execute(f"CREATE TRIGGER reports_insert_hours AFTER INSERT ON reports BEGIN {add} END")
    op.execute(f"CREATE TRIGGER reports_delete_hours AFTER DELETE ON reports BEGIN {remove} END")
    op.execute(
        f"CREATE TRIGGER reports_update_hours AFTER UPDATE OF {COLUMNS} ON reports WHEN {changed} "
        f"BEGIN {remove} {add} END"
    )


def _postgresql_triggers() -> None:
    # Statement triggers over transition tables: one grouped write per statement (a COPY of a
    # million rows included), rows taken in key order so concurrent writers lock them in one order.
    # Their names sort after reports_revision, which PostgreSQL fires first: the data_revision row
    # lock then orders every writer before any of them touches an hourly count.
    op.execute(f"""CREATE FUNCTION count_report_hours() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                UPDATE report_hours h SET report_count = h.report_count - o.n
                FROM (SELECT {COLUMNS}, count(*) AS n FROM old_rows GROUP BY {COLUMNS} ORDER BY {COLUMNS}) o
                WHERE h.day = o.day AND h.hour = o.hour AND h.name = o.name AND h.report = o.report;
                DELETE FROM report_hours h USING old_rows o
                WHERE h.day = o.day AND h.hour = o.hour AND h.name = o.name AND h.report = o.report
                  AND h.report_count <= 0;
            END IF;
            IF TG_OP = 'TRUNCATE' THEN
                DELETE FROM report_hours;
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                INSERT INTO report_hours ({COLUMNS}, report_count)
                SELECT {COLUMNS}, count(*) FROM new_rows GROUP BY {COLUMNS} ORDER BY {COLUMNS}
                ON CONFLICT ({COLUMNS}) DO UPDATE SET report_count = report_hours.report_count + excluded.report_count;
            END IF;
            RETURN NULL;
        END $$""")
    for event, tables in (
        ("INSERT", "NEW TABLE AS new_rows"),
        ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
        ("DELETE", "OLD TABLE AS old_rows"),
    ):
        op.execute(
            f"CREATE TRIGGER reports_tally_{event.lower()} AFTER {event} ON reports "
            f"REFERENCING {tables} FOR EACH STATEMENT EXECUTE FUNCTION count_report_hours()"
        )
    op.execute(
        "CREATE TRIGGER reports_tally_truncate AFTER TRUNCATE ON reports "
        "FOR EACH STATEMENT EXECUTE FUNCTION count_report_hours()"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION count_report_hours() CASCADE")
    else:
        for event in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER reports_{event}_hours")
    op.drop_table("report_hours")
