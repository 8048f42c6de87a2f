"""What /api/v2 and the stream both send (api-v2.md): a report as a flat record, and a block's
state in v2's words. Pure, no I/O: tested in tests/status/test_records.py."""

from __future__ import annotations

from collections.abc import Iterable

from sathub.status import grid, times

# The status of a cell by the page's state for it (grid.block_state); a cell without reports is "none".
STATUS_OF_STATE = {
    grid.HEARD.key: "heard",
    grid.TELEMETRY.key: "telemetry",
    grid.NOT_HEARD.key: "not_heard",
    grid.CREW.key: "crew",
    grid.CONFLICTING.key: "conflicting",
    grid.UNKNOWN.key: "no_majority",
}


def report_records(rows: Iterable) -> list[dict]:
    """Rows of (id, name, display_name, day, hour, period, callsign, report, grid_square, visible,
    ...), as store.report_walk.report_page gives them, as flat records: no nested object, no null
    string. `visible` is true, false or null (docs/orbits.md, "Where visibility shows"): three
    answers, and null is one of them (cannot tell), so it is not folded into false or a string."""
    read_time = times.read_form_time
    return [
        {
            "id": id_,
            "name": name,
            "display_name": display_name,
            "reported_time": read_time(day, hour),
            "period": period,
            "callsign": callsign,
            "report": report,
            "grid_square": grid_square or "",
            "visible": None if visible is None else bool(visible),
        }
        for id_, name, display_name, day, hour, period, callsign, report, grid_square, visible, *_ in rows
    ]
