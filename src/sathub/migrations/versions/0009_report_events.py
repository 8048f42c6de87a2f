"""Interface A: every report stored, and every change of a satellite's current status cell, kept
as numbered events for GET /api/v2/stream (status/stream/), written by triggers on reports.

Why triggers: every door that writes a report (the API, submit.php, `status import-legacy`, a
manual statement) records its events in its own transaction, with no door to forget.

Event ids are gap-free in commit order, which is what lets a reader keep only "the last id I
delivered" and never miss an event:
- They come from a counter, data_revision.last_event_id, not from a sequence. The trigger that
  allocates them updates the data_revision row, so the transaction holds that row's lock until it
  commits or rolls back; the next writer's allocation waits for it. A transaction holding id n
  therefore commits (or vanishes, taking its ids with it: the counter rolls back too) before any
  transaction can take n + 1. On PostgreSQL a transaction becomes visible before it releases its
  locks, so a snapshot that sees id n + 1 sees id n. SQLite has one writer at a time anyway.
- A sequence would not do: ids are taken at insert time, so id 7 can commit after id 8, and a
  reader that has delivered 8 would skip 7 for ever.
- Readers still bound each read by the counter read in the same statement (the watermark:
  status/store/events.py), so what they deliver is always a committed prefix of the ids.

Rows:
- kind 'report': a report stored; action 'created' (a new slot) or 'replaced' (an UPDATE of a
  row, which is what the slot upsert does; previous_report holds the value it replaced).
- kind 'cell': the satellite's current status cell (its newest two-hour block with reports)
  moved or its counts changed: the block (day, first hour) and the counts of the four report
  values after, and before (before_*, from report_event_cells). Whether the status the page shows
  changed is the grid's rule (status/grid.py block_state), applied by the reader: the rule
  stays in one place, in Python.
- Deleting reports records nothing (reports are deleted only by maintenance, never by a door).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

NOTIFY_CHANNEL = "sathub_report_events"
COUNTS = ("heard", "telemetry", "not_heard", "crew")
VALUES = ("Heard", "Telemetry Only", "Not Heard", "Crew Active")
REPORT_COLUMNS = (
    "id, kind, action, stored_at, name, report_id, day, hour, period, callsign, report, grid_square, previous_report"
)
CELL_COLUMNS = (
    "id, kind, stored_at, name, day, hour, "
    + ", ".join(COUNTS)
    + ", before_day, before_hour, "
    + ", ".join(f"before_{count}" for count in COUNTS)
)


def upgrade() -> None:
    op.add_column("data_revision", sa.Column("last_event_id", sa.BigInteger, nullable=False, server_default="0"))
    op.create_table(
        "report_events",
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("action", sa.String(8), nullable=True),
        sa.Column("stored_at", sa.BigInteger, nullable=False),  # Unix seconds
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("report_id", sa.Integer, nullable=True),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("hour", sa.SmallInteger, nullable=False),
        sa.Column("period", sa.SmallInteger, nullable=True),
        sa.Column("callsign", sa.String(32), nullable=True),
        sa.Column("report", sa.String(16), nullable=True),
        sa.Column("grid_square", sa.String(8), nullable=True),
        sa.Column("previous_report", sa.String(16), nullable=True),
        *(sa.Column(count, sa.Integer, nullable=True) for count in COUNTS),
        sa.Column("before_day", sa.Date, nullable=True),
        sa.Column("before_hour", sa.SmallInteger, nullable=True),
        *(sa.Column(f"before_{count}", sa.Integer, nullable=True) for count in COUNTS),
    )
    op.create_index("ix_report_events_stored_at", "report_events", ["stored_at"])
    # Each satellite's current cell as the last 'cell' event left it: what the next one compares with.
    op.create_table(
        "report_event_cells",
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("hour", sa.SmallInteger, nullable=False),
        *(sa.Column(count, sa.Integer, nullable=False) for count in COUNTS),
    )
    if op.get_bind().dialect.name == "postgresql":
        _postgresql_triggers()
    else:
        _sqlite_triggers()


def _newest_cell(name: str, written: str) -> str:
    """The current cell of the satellite named `name` (as stored) after a write, with the count of
    each report value in it. The current cell is its newest two-hour block with reports: the
    newest of the block the write touched (`written`, a query of one row: day, hour), the current
    cell recorded before (report_event_cells) or, for a satellite with none recorded yet, the
    block of its latest report (report_totals: kept by the writes, up to the statement before).
    So no query scans a satellite's reports: only the reports of the one block are counted."""
    sums = ", ".join(
        f"sum(CASE WHEN r.report = '{value}' THEN 1 ELSE 0 END) AS {count}"
        for value, count in zip(VALUES, COUNTS, strict=True)
    )
    return (
        f"SELECT b.day, b.hour, {sums} FROM ({newest_block(name, written)}) b "
        f"JOIN reports r ON lower(r.name) = lower({name}) AND r.name = {name} "
        f"AND r.day = b.day AND r.hour IN (b.hour, b.hour + 1) GROUP BY b.day, b.hour"
    )


def newest_block(name: str, written: str) -> str:
    """The (day, hour) of the current cell of _newest_cell: the newest of its three candidates."""
    recorded = f"SELECT day, hour FROM report_event_cells WHERE name = {name}"
    latest = (
        f"SELECT latest_day, (latest_hour / 2) * 2 FROM report_totals WHERE name_key = lower({name}) "
        f"AND NOT EXISTS ({recorded})"
    )
    return (
        f"SELECT day, hour FROM ({written} UNION ALL {recorded} UNION ALL {latest}) candidates "
        "ORDER BY day DESC, hour DESC LIMIT 1"
    )


def _cell_differs(new: str, old: str) -> str:
    return f"{old}.name IS NULL OR {old}.day <> {new}.day OR {old}.hour <> {new}.hour OR " + " OR ".join(
        f"{old}.{count} <> {new}.{count}" for count in COUNTS
    )


SQLITE_NOW = "CAST(strftime('%s', 'now') AS INTEGER)"
SQLITE_WRITTEN = "SELECT NEW.day AS day, (NEW.hour / 2) * 2 AS hour"
NEXT_ID = "(SELECT last_event_id FROM data_revision WHERE id = 1) + 1"
TAKE_ID = (
    "UPDATE data_revision SET last_event_id = last_event_id + 1 "
    "WHERE id = 1 AND EXISTS (SELECT 1 FROM report_events e WHERE e.id = data_revision.last_event_id + 1);"
)


def _sqlite_triggers() -> None:
    # SQLite's triggers run per row: the report's event, then its satellite's cell if it changed.
    # Each event row is inserted with the next id, then the counter moves only if it was.
    befores = ", ".join(f"p.{count}" for count in COUNTS)
    cell = (
        f"INSERT INTO report_events ({CELL_COLUMNS}) "
        f"SELECT {NEXT_ID}, 'cell', {SQLITE_NOW}, NEW.name, c.day, c.hour, {', '.join('c.' + c for c in COUNTS)}, "
        f"p.day, p.hour, {befores} FROM ({_newest_cell('NEW.name', SQLITE_WRITTEN)}) c "
        f"LEFT JOIN report_event_cells p ON p.name = NEW.name WHERE {_cell_differs('c', 'p')}; "
        f"{TAKE_ID} "
        f"INSERT INTO report_event_cells (name, day, hour, {', '.join(COUNTS)}) "
        f"SELECT name, day, hour, {', '.join(COUNTS)} FROM report_events "
        f"WHERE id = (SELECT last_event_id FROM data_revision WHERE id = 1) AND kind = 'cell' AND name = NEW.name "
        f"ON CONFLICT (name) DO UPDATE SET day = excluded.day, hour = excluded.hour, "
        + ", ".join(f"{count} = excluded.{count}" for count in COUNTS)
        + ";"
    )
    for event, action in (("insert", "created"), ("update", "replaced")):
        report = (
            f"INSERT INTO report_events ({REPORT_COLUMNS}) VALUES ({NEXT_ID}, 'report', '{action}', {SQLITE_NOW}, "
            "NEW.name, NEW.id, NEW.day, NEW.hour, NEW.period, NEW.callsign, NEW.report, NEW.grid_square, "
            f"{'NEW.replaced_report' if event == 'update' else 'NULL'}); {TAKE_ID}"
        )
        op.execute(f"CREATE TRIGGER reports_{event}_events AFTER {event.upper()} ON reports BEGIN {report} {cell} END")


def _postgresql_triggers() -> None:
    # Statement triggers over transition tables, as 0004's: one allocation of ids per statement (a
    # group commit's upsert of many reports, an import's batch). Named after reports_revision and
    # reports_tally_*, so they fire last; the id counter's row is the one reports_revision locked
    # (FOR UPDATE here keeps that so whatever the order; by then it costs nothing). Per statement,
    # whatever its satellites: one INSERT of report events, one statement that computes, compares
    # and records the cells of all the satellites written (counted from the hourly tally, not the
    # reports), one UPDATE of the counter's row. A loop per satellite counting the block's
    # reports, with an UPDATE of the counter before and after, cost 2.0 ms of a 2.4 ms upsert of
    # 8 reports of 4 satellites; this costs 0.34 of 0.78 ms (EXPLAIN ANALYZE, medians of 200).
    befores = ", ".join(f"p.{count} AS before_{count}" for count in COUNTS)
    tallied = ", ".join(
        f"coalesce(sum(t.report_count) FILTER (WHERE t.report = '{value}'), 0) AS {count}"
        for value, count in zip(VALUES, COUNTS, strict=True)
    )
    counts = ", ".join(COUNTS)
    op.execute(f"""CREATE FUNCTION record_report_events() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            taken bigint;
            last bigint;
            now_s bigint := floor(extract(epoch FROM now()))::bigint;
        BEGIN
            SELECT last_event_id INTO last FROM data_revision WHERE id = 1 FOR UPDATE;
            INSERT INTO report_events ({REPORT_COLUMNS})
            SELECT last + row_number() OVER (ORDER BY n.id), 'report',
                   CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'replaced' END, now_s,
                   n.name, n.id, n.day, n.hour, n.period, n.callsign, n.report, n.grid_square,
                   CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE n.replaced_report END
            FROM new_rows n;
            GET DIAGNOSTICS taken = ROW_COUNT;
            IF taken = 0 THEN
                RETURN NULL;
            END IF;
            last := last + taken;
            -- Each satellite written: its current cell (the newest of the block written, the one
            -- recorded, else its latest report's block: see _newest_cell), the reports of that
            -- one block counted, and an event, numbered in name order, where it differs.
            WITH written AS (
                SELECT DISTINCT ON (name) name, day, (hour / 2) * 2 AS hour FROM new_rows
                ORDER BY name, day DESC, hour DESC
            ), blocks AS MATERIALIZED (
                SELECT w.name, b.day, b.hour FROM written w CROSS JOIN LATERAL (
                    SELECT day, hour FROM (
                        SELECT w.day, w.hour
                        UNION ALL SELECT day, hour FROM report_event_cells c WHERE c.name = w.name
                        UNION ALL SELECT latest_day, (latest_hour / 2) * 2 FROM report_totals
                        WHERE name_key = lower(w.name)
                        AND NOT EXISTS (SELECT 1 FROM report_event_cells c WHERE c.name = w.name)
                    ) candidates ORDER BY day DESC, hour DESC LIMIT 1) b
            ), counted AS (
                -- From the hourly tally (migration 0004: per day, hour, name as stored and value,
                -- brought up to date by reports_tally_*, which fire before this trigger): at
                -- most eight rows of its primary key per block, not the block's reports.
                SELECT b.name, b.day, b.hour, s.heard, s.telemetry, s.not_heard, s.crew
                FROM blocks b CROSS JOIN LATERAL (
                    SELECT sum(t.report_count) AS reports, {tallied} FROM report_hours t
                    WHERE t.day = b.day AND t.hour IN (b.hour, b.hour + 1) AND t.name = b.name) s
                WHERE s.reports > 0
            ), changed AS (
                SELECT c.*, p.day AS before_day, p.hour AS before_hour, {befores},
                       row_number() OVER (ORDER BY c.name) AS k
                FROM counted c LEFT JOIN report_event_cells p ON p.name = c.name
                WHERE {_cell_differs("c", "p")}
            ), recorded AS (
                INSERT INTO report_events ({CELL_COLUMNS})
                SELECT last + k, 'cell', now_s, name, day, hour, {counts}, before_day, before_hour,
                       {", ".join(f"before_{count}" for count in COUNTS)}
                FROM changed
            )
            INSERT INTO report_event_cells (name, day, hour, {counts})
            SELECT name, day, hour, {counts} FROM changed
            ON CONFLICT (name) DO UPDATE SET day = excluded.day, hour = excluded.hour,
                {", ".join(f"{count} = excluded.{count}" for count in COUNTS)};
            GET DIAGNOSTICS taken = ROW_COUNT;
            last := last + taken;
            UPDATE data_revision SET last_event_id = last WHERE id = 1;
            -- Delivered at commit, never for a rollback: it wakes one listener per process.
            PERFORM pg_notify('{NOTIFY_CHANNEL}', last::text);
            RETURN NULL;
        END $$""")
    for event in ("INSERT", "UPDATE"):
        op.execute(
            f"CREATE TRIGGER reports_zz_events_{event.lower()} AFTER {event} ON reports "
            f"REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_report_events()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION record_report_events() CASCADE")
    else:
        for event in ("insert", "update"):
            op.execute(f"DROP TRIGGER reports_{event}_events")
    op.drop_table("report_event_cells")
    op.drop_table("report_events")
    op.drop_column("data_revision", "last_event_id")
