"""When a satellite's status changes, and what a client is told about it: pure, no I/O.

A satellite's current status is the status its current cell shows (its newest two-hour cell
with reports, coloured by the status page's rule, status/grid.py `block_state`). The triggers of
migration 0009 record a 'cell' row each time that cell moves or its counts change; a status
change is such a row whose status differs from the cell's before, or whose cell is a newer one
than before (the satellite heard again after a silence: what "tell me when AO-91 is heard
again" waits for). A row that only moved the counts is no change.

The stream's `status` event, the status feed and the webhooks' `status` events all say a change
with `StatusChange.body`, so that each tells the same change in the same words."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sathub.status.grid import Counts, block_state
from sathub.status.records import STATUS_OF_STATE, report_records
from sathub.status.rules import REPORT_VALUES
from sathub.status.times import iso_z


@dataclass(frozen=True)
class StatusChange:
    """A change of a satellite's current status, as an event of the log: its id, when it was
    stored (Unix seconds), the satellite, its cell now and before (None: the satellite's first),
    and the record of the report that changed it (None when the write that made the cell
    current stored none in it; see store/events.py)."""

    event_id: int
    stored_at: int
    name: str
    display_name: str
    cell: dict
    previous: dict | None
    report: dict | None

    @property
    def status(self) -> str:
        return self.cell["status"]

    def body(self) -> dict:
        return {
            "event_id": self.event_id,
            "stored_at": stored_time(self.stored_at),
            "name": self.name,
            "display_name": self.display_name,
            "cell": self.cell,
            "previous": self.previous,
            "report": self.report,
        }


def stored_time(seconds: int) -> str:
    """An event's stored_at (Unix seconds) as RFC 3339."""
    return iso_z(datetime.fromtimestamp(seconds, UTC))


def cell_document(day: date, hour: int, counts: Counts) -> dict:
    """A two-hour cell as GET /api/v2/status names it: its start, its end (exclusive), the status
    the page shows (the grid's rule, in v2's words) and the count of each report value."""
    state, _ = block_state(counts)
    start = datetime(day.year, day.month, day.day, hour, tzinfo=UTC)
    values = (counts.heard, counts.telemetry, counts.not_heard, counts.crew)
    return {
        "start": iso_z(start),
        "end": iso_z(start + timedelta(hours=2)),
        "status": STATUS_OF_STATE[state.key],
        "counts": dict(zip(REPORT_VALUES, values, strict=True)),
    }


def status_change(row) -> StatusChange | None:
    """The change a 'cell' row of store/events.py records, or None when the status the page
    shows stayed the same in the same cell (the counts moved, nothing a client would see)."""
    now = cell_document(row.day, row.hour, Counts(row.heard, row.telemetry, row.not_heard, row.crew))
    before = None
    if row.before_day is not None:
        counts = Counts(row.before_heard, row.before_telemetry, row.before_not_heard, row.before_crew)
        before = cell_document(row.before_day, row.before_hour, counts)
        if before["status"] == now["status"] and before["start"] == now["start"]:
            return None
    return StatusChange(row.id, row.stored_at, row.name, row.display_name, now, before, _cause(row))


def _cause(row) -> dict | None:
    """The record of GET /api/v2/reports of the report that changed the cell, as of now."""
    if row.cause_report_id is None:
        return None
    cause = (
        row.cause_report_id,
        row.name,
        row.display_name,
        row.cause_day,
        row.cause_hour,
        row.cause_period,
        row.cause_callsign,
        row.cause_report,
        row.cause_grid_square,
        row.cause_visible,
    )
    return report_records([cause])[0]
