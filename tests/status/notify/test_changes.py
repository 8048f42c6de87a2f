"""status/notify/changes.py: which changes of a satellite's current cell are status changes, by the
status page's rule (status-api.md section 7), and what a client is told of one: the cell now and
before in GET /api/v2/status's words, and the record of the report that changed it."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from sathub.status.notify.changes import status_change

DAY = date(2026, 11, 25)
NO_CAUSE = dict.fromkeys(
    [
        "cause_report_id",
        "cause_day",
        "cause_hour",
        "cause_period",
        "cause_callsign",
        "cause_report",
        "cause_grid_square",
        "cause_visible",
    ]
)
ZERO = (0, 0, 0, 0)


def cell_row(now, before=None, before_day=DAY, before_hour=20, **values):
    """A 'cell' row of store/events.py: counts (heard, telemetry, not heard, crew) now and before."""
    fields = dict(
        id=12,
        kind="cell",
        stored_at=1795643191,  # 2026-11-25T21:46:31Z
        name="AO-91",
        display_name="AO-91 Mode U/v FM",
        day=DAY,
        hour=20,
        **dict(zip(("heard", "telemetry", "not_heard", "crew"), now, strict=True)),
        before_day=None if before is None else before_day,
        before_hour=None if before is None else before_hour,
        **dict(
            zip(
                ("before_heard", "before_telemetry", "before_not_heard", "before_crew"),
                before or (None,) * 4,
                strict=True,
            )
        ),
        **NO_CAUSE,
    )
    return SimpleNamespace(**{**fields, **values})


# Section 7's rule, first match: crew active; more heard than not heard and telemetry; more not
# heard; more telemetry; otherwise conflicting.
@pytest.mark.parametrize(
    ("before", "now", "changed"),
    [
        ((0, 0, 1, 0), (1, 0, 1, 0), ("not_heard", "conflicting")),  # 1 heard beside 1 not heard: no majority
        ((1, 0, 1, 0), (2, 0, 1, 0), ("conflicting", "heard")),
        ((2, 0, 1, 0), (2, 0, 1, 1), ("heard", "crew")),  # crew active wins whatever the rest
        ((1, 0, 0, 0), (1, 2, 0, 0), ("heard", "telemetry")),
        ((0, 1, 0, 0), (1, 1, 0, 0), ("telemetry", "conflicting")),
    ],
)
def test_a_change_of_the_colour_is_a_status_change(before, now, changed):
    change = status_change(cell_row(now, before))
    assert change is not None
    assert (change.previous["status"], change.cell["status"]) == changed
    assert change.status == changed[1]


@pytest.mark.parametrize(("before", "now"), [((1, 0, 0, 0), (2, 0, 0, 0)), ((1, 0, 1, 0), (1, 1, 1, 0))])
def test_counts_that_leave_the_colour_are_no_change(before, now):
    assert status_change(cell_row(now, before)) is None


def test_a_newer_cell_is_a_change_even_in_the_same_colour():
    """Heard again after a silence: the satellite's current cell is a newer one."""
    change = status_change(cell_row((1, 0, 0, 0), (3, 0, 0, 0), before_day=date(2026, 11, 24), before_hour=6))
    assert change is not None
    assert change.previous == {
        "start": "2026-11-24T06:00:00Z",
        "end": "2026-11-24T08:00:00Z",
        "status": "heard",
        "counts": {"Heard": 3, "Telemetry Only": 0, "Not Heard": 0, "Crew Active": 0},
    }


def test_the_body_names_the_report_that_changed_it():
    cause = dict(
        cause_report_id=41,
        cause_day=DAY,
        cause_hour=21,
        cause_period=3,
        cause_callsign="W5API",
        cause_report="Heard",
        cause_grid_square=None,
        cause_visible=True,
    )
    change = status_change(cell_row((1, 0, 0, 0), **cause))
    assert change is not None
    assert change.body() == {
        "event_id": 12,
        "stored_at": "2026-11-25T21:46:31Z",
        "name": "AO-91",
        "display_name": "AO-91 Mode U/v FM",
        "cell": {
            "start": "2026-11-25T20:00:00Z",
            "end": "2026-11-25T22:00:00Z",  # exclusive, as GET /api/v2/status's cells
            "status": "heard",
            "counts": {"Heard": 1, "Telemetry Only": 0, "Not Heard": 0, "Crew Active": 0},
        },
        "previous": None,  # the satellite's first cell
        "report": {  # the record of GET /api/v2/reports
            "id": 41,
            "name": "AO-91",
            "display_name": "AO-91 Mode U/v FM",
            "reported_time": "2026-11-25T21:30:00Z",
            "period": 3,
            "callsign": "W5API",
            "report": "Heard",
            "grid_square": "",
            "visible": True,
        },
    }


def test_without_a_report_in_the_cell_the_report_is_null():
    change = status_change(cell_row((0, 0, 2, 0), ZERO))
    assert change is not None and change.report is None
