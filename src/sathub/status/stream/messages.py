"""What the stream sends, from the rows of status/store/events.py: pure, no I/O.

A 'report' row becomes a `report` event. A 'cell' row becomes a `status` event only when it is a
status change (status/notify/changes.py: the rule shared with the status feed and the webhooks):
the triggers record every change of the counts, the rule decides which ones a client sees.
Either way the row's id is the position a client resumes from."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import orjson

from sathub.status.notify.changes import status_change, stored_time
from sathub.status.records import report_records

# A comment line: EventSource ignores it, proxies see bytes flow.
HEARTBEAT = b": heartbeat\n\n"
# Sent first: how long a browser waits before it reconnects (ms), and a comment that flushes
# the headers through proxies that wait for a first byte of body.
PREAMBLE = b"retry: 2000\n: sathub stream\n\n"
# The largest event id: report_events.id and the counter that gives it (data_revision.last_event_id)
# are BIGINTs, so every id a server sent fits, and a larger Last-Event-ID was never sent.
MAX_EVENT_ID = 2**63 - 1
# The status of a cell whose report value a `status` filter names.
STATE_OF_VALUE = {"Heard": "heard", "Telemetry Only": "telemetry", "Not Heard": "not_heard", "Crew Active": "crew"}


@dataclass(frozen=True)
class Filter:
    """`?name=` (API names, lower-cased; empty: every satellite) and `?status=` (report values;
    empty: every value)."""

    names: frozenset[str] = frozenset()
    statuses: frozenset[str] = frozenset()

    def wants(self, message: Message) -> bool:
        if self.names and message.name_key not in self.names:
            return False
        return not self.statuses or bool(message.values & self.statuses)


@dataclass(frozen=True)
class Message:
    """One event as sent, with what filters look at: the satellite and the report values it
    stands for (a report's value; for a status, the value whose majority gives it)."""

    id: int
    name_key: str
    values: frozenset[str]
    data: bytes


def messages(rows: Iterable) -> list[Message]:
    """The events of rows in the column order of store/events.COLUMNS; cell rows that change
    nothing a client sees are left out."""
    made = []
    for row in rows:
        message = _report(row) if row.kind == "report" else _status(row)
        if message is not None:
            made.append(message)
    return made


def _event(event_id: int, kind: str, body: dict) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event_id, kind.encode(), orjson.dumps(body))


def _report(row) -> Message:
    body = {
        "event_id": row.id,
        "action": row.action,
        "stored_at": stored_time(row.stored_at),
        # The record of GET /api/v2/reports (records.py), flat; `visible` as the report has it now.
        "report": report_records(
            [
                (
                    row.report_id,
                    row.name,
                    row.display_name,
                    row.day,
                    row.hour,
                    row.period,
                    row.callsign,
                    row.report,
                    row.grid_square,
                    row.visible,
                )
            ]
        )[0],
        "replaced_report": row.previous_report or "",
    }
    return Message(row.id, row.name.lower(), frozenset((row.report,)), _event(row.id, "report", body))


def _status(row) -> Message | None:
    change = status_change(row)
    if change is None:
        return None  # the counts moved, the status the page shows did not
    values = frozenset(value for value, state in STATE_OF_VALUE.items() if state == change.status)
    return Message(row.id, row.name.lower(), values, _event(row.id, "status", change.body()))


def gap(after: int, oldest: int) -> bytes:
    """Told to a client whose Last-Event-ID is older than the oldest event kept: the events
    after it up to `oldest` - 1 are gone (past the retention); it should read /api/v2/reports."""
    body = {"after": after, "resumed_at": oldest, "reason": "events before resumed_at are past the retention"}
    return b"event: gap\ndata: %s\n\n" % orjson.dumps(body)


def parse_last_event_id(text: str | None) -> int | None:
    """The position a client resumes from: a Last-Event-ID of decimal digits naming an event id
    (0 to MAX_EVENT_ID), else None when absent or empty (start from now). ValueError for
    anything else, a number no event ever had included."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text.lstrip("0")) > len(str(MAX_EVENT_ID)):
        raise ValueError(text)
    position = int(text)
    if position > MAX_EVENT_ID:
        raise ValueError(text)
    return position
