"""Interface A: where `visible` shows (docs/orbits.md, "Where visibility shows").

- `reports_implausible`: a partial index of the reports whose `visible` is false, in the walk's
  order (migration 0011's columns). `GET /api/v2/reports?visible=false` is one range of it however
  few such reports the history holds, and SATHUB_STATUS_IMPLAUSIBLE=exclude subtracts the window's
  from the hourly counts by reading it alone. Partial: a report that is plausible or cannot be
  checked (nearly all of them) costs the writes nothing more.
- The stream's event triggers (0009, 0012) record no event for an UPDATE that gives no report a
  new id: a recheck that sets `visible` on stored reports stores no report, where the triggers
  would have sent every rechecked report again as `replaced`. The slot's upsert gives the report
  it replaces a new id, so replacements are recorded as before. SQLite: the WHEN of a row
  trigger; PostgreSQL (statement triggers): the UPDATE trigger also reads the old rows, and the
  function returns at once when no row took a new id.

The triggers' SQL is read back from the database and changed in one place, as 0012 does; when the
stored SQL is not what 0009 and 0012 made, the migration stops rather than guess.

Revision ID: 0021
Revises: 0020
"""

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

WALK = "day, hour, period, lower(name), upper(callsign)"
# As SQLAlchemy writes `visible == false()` for each dialect (store/reports.py IMPLAUSIBLE): SQLite
# uses a partial index only for a query whose WHERE holds its condition's very terms.
IMPLAUSIBLE = {"sqlite": "visible = 0", "postgresql": "visible = false"}

SQLITE_EVENTS = "CREATE TRIGGER reports_update_events AFTER UPDATE ON reports BEGIN"
SQLITE_EVENTS_WHEN = "CREATE TRIGGER reports_update_events AFTER UPDATE ON reports WHEN NEW.id IS NOT OLD.id BEGIN"
SQLITE_STORED = "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?"

PG_ANCHOR = "SELECT last_event_id INTO last FROM data_revision WHERE id = 1 FOR UPDATE;"
PG_GUARD = """IF TG_OP = 'UPDATE' THEN
                -- No row took a new id: no report was stored (a recheck of `visible`), no event.
                IF NOT EXISTS (SELECT 1 FROM new_rows n WHERE NOT EXISTS (
                    SELECT 1 FROM old_rows o WHERE o.id = n.id)) THEN
                    RETURN NULL;
                END IF;
            END IF;
            """
PG_STORED = "SELECT prosrc FROM pg_proc WHERE proname = 'record_report_events'"
PG_TRIGGER = (
    "CREATE TRIGGER reports_zz_events_update AFTER UPDATE ON reports REFERENCING {} "
    "FOR EACH STATEMENT EXECUTE FUNCTION record_report_events()"
)


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.execute(f"CREATE INDEX reports_implausible ON reports ({WALK}) WHERE {IMPLAUSIBLE[dialect]}")
    if dialect == "postgresql":
        _postgresql_events(PG_ANCHOR, PG_GUARD + PG_ANCHOR, "OLD TABLE AS old_rows NEW TABLE AS new_rows")
    else:
        _sqlite_events(SQLITE_EVENTS, SQLITE_EVENTS_WHEN)


def _sqlite_events(made: str, wanted: str) -> None:
    """reports_update_events made again with its head `made` changed to `wanted`, then 0007's
    reports_update_tally made again as it is: SQLite fires one event's triggers newest first, and
    the event trigger must see the tally it counts the cell from (0012)."""
    bind = op.get_bind()
    events = bind.exec_driver_sql(SQLITE_STORED, ("reports_update_events",)).scalar()
    tally = bind.exec_driver_sql(SQLITE_STORED, ("reports_update_tally",)).scalar()
    if events is None or tally is None or not events.startswith(made):
        raise RuntimeError("reports_update_events is not the trigger this migration expects")
    op.execute("DROP TRIGGER reports_update_tally")
    op.execute("DROP TRIGGER reports_update_events")
    op.execute(wanted + events[len(made) :])
    op.execute(tally)


def _postgresql_events(made: str, wanted: str, transition_tables: str) -> None:
    source = op.get_bind().exec_driver_sql(PG_STORED).scalar()
    if source is None or source.count(made) != 1:
        raise RuntimeError("record_report_events is not the function this migration expects")
    source = source.replace(made, wanted)
    op.execute(f"CREATE OR REPLACE FUNCTION record_report_events() RETURNS trigger LANGUAGE plpgsql AS $$\n{source}$$")
    op.execute("DROP TRIGGER reports_zz_events_update ON reports")
    op.execute(PG_TRIGGER.format(transition_tables))


def downgrade() -> None:
    op.execute("DROP INDEX reports_implausible")
    if op.get_bind().dialect.name == "postgresql":
        _postgresql_events(PG_GUARD + PG_ANCHOR, PG_ANCHOR, "NEW TABLE AS new_rows")
    else:
        _sqlite_events(SQLITE_EVENTS_WHEN, SQLITE_EVENTS)
