"""Migration 0012 (SQLite): the stream's event triggers count the current cell from the hourly
tally, which now fires first, instead of counting the block's reports; the events are the same.
The same writes on a database at 0011, at 0012, and at 0012 taken back down to 0011 record the
same events, and the reports' triggers fire in the order the migration says."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from sathub import db
from sathub.db.schema import MIGRATIONS
from sathub.status.store import events as store
from tests.status.seed import hours_ago, seed_catalog, store_report

# Several satellites (one not in the catalog), blocks newer and older than the current cell,
# replacements of a slot's value, and reports in both hours of one block.
WRITES = [
    ("AO-91", 3, "W5API", "Heard"),
    ("AO-91", 3, "K1ABC", "Not Heard"),
    ("ISS-FM", 5, "W5API", "Crew Active"),
    ("AO-91", 1, "N0CALL", "Telemetry Only"),
    ("AO-91", 6, "W5API", "Heard"),  # an older block: the current cell does not move
    ("AO-91", 3, "K1ABC", "Heard"),  # replaces K1ABC's report: the counts change
    ("SO-50", 2, "G4XYZ", "Not Heard"),
    ("ISS-FM", 0, "G4XYZ", "Crew Active"),
    ("AO-91", 0, "W5API", "Heard"),
    ("AO-91", 0, "K1ABC", "Not Heard"),
    ("AO-91", 0, "K1ABC", "Heard"),
    ("SO-50", 2, "G4XYZ", "Heard"),
]


def _migrated(path, revision: str, down_to: str | None = None):
    """A database at `revision` (its triggers), with the columns and tables of migration 0019 added
    on top, which today's writer and event reader use (reports.visible, the orbital elements): they
    add nothing to the triggers compared here."""
    engine = db.create_engine(f"sqlite:///{path}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with db.connect(engine, write=True) as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
        if down_to is not None:
            command.downgrade(config, down_to)
        with Operations.context(MigrationContext.configure(conn)):
            ScriptDirectory.from_config(config).get_revision("0019").module.upgrade()
    return engine


def _events_of_writes(engine) -> list[tuple]:
    seed_catalog(engine)
    for name, hours, callsign, report in WRITES:
        store_report(engine, name, hours_ago(hours, minute=10), callsign=callsign, report=report)
    with db.connect(engine) as conn:
        rows = store.events_between(conn, 0, store.watermark(conn), limit=1000)
    return [tuple(value for column, value in row._mapping.items() if column != "stored_at") for row in rows]


def _trigger_order(engine) -> list[str]:
    """The reports table's triggers, oldest first (SQLite fires those of one event newest first)."""
    with db.connect(engine) as conn:
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'reports' ORDER BY rowid"
        return conn.exec_driver_sql(query).scalars().all()


def test_the_same_events_counted_from_the_tally(tmp_path):
    before = _migrated(tmp_path / "0011.db", "0011")
    after = _migrated(tmp_path / "0012.db", "0012")
    back = _migrated(tmp_path / "back.db", "0012", down_to="0011")
    expected = _events_of_writes(before)
    assert sum(row[1] == "cell" for row in expected) >= 8  # the writes move and change cells
    assert _events_of_writes(after) == expected
    assert _events_of_writes(back) == expected

    tally = ["reports_insert_tally", "reports_delete_tally", "reports_update_tally"]
    events = ["reports_insert_events", "reports_update_events"]
    assert _trigger_order(before) == tally + events  # 0009's made last: they fired first
    assert _trigger_order(after) == events + tally  # 0012: the tally fires first
    assert _trigger_order(back) == tally + events
