"""summary.php's kept answer (status/api/summary_answer.py): the body of status-api.md 4.4, byte
for byte, from the groups read, and the same body again when it is brought up to date from the
groups changed since (design.md, "summary.php is updated, not summed again, after a write")."""

from __future__ import annotations

import json
from collections import namedtuple
from contextlib import closing
from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sathub.db import connect
from sathub.db.revision_probe import RevisionProbe
from sathub.status.api.summary_answer import SummaryAnswer
from sathub.status.store import reports as report_store
from sathub.status.store.reports import SummaryRead
from sathub.status.tables import satellites
from tests.conftest import empty_all_tables
from tests.status.store.report_writes import DAYS, apply, writes

Group = namedtuple("Group", "name report report_count latest satellite_display_name")  # a whole read's row
Changed = namedtuple("Changed", "name report report_count latest")  # a read since a revision: no catalog


def hour(text: str) -> int:
    """store.summary's newest hour: hours counted from 2000-01-01 00:00 UTC."""
    return (datetime.fromisoformat(text) - datetime(2000, 1, 1)) // timedelta(hours=1)


def body(entries: list[tuple], hours: int = 24) -> bytes:
    """4.4's answer in PHP's pretty print (which is json.dumps(indent=4) for these values, see
    test_php_json): `entries` are (name, display name, report, count, read-form time)."""
    data = [
        {
            "name": name,
            "satellite_display_name": display,
            "report": report,
            "report_count": count,
            "latest_reported_time": latest,
        }
        for name, display, report, count, latest in entries
    ]
    return json.dumps({"data": data, "meta": {"hours": hours, "count": len(data)}}, indent=4).encode()


AO91 = "AO-91 Mode U/v FM"
WHOLE = SummaryRead(
    revision=7,
    catalog_revision=2,
    groups=[
        Group("AO-91", "Not Heard", 2, hour("2026-11-20T21:00"), AO91),
        Group("AO-91", "Heard", 2, hour("2026-11-20T23:00"), AO91),
        Group("AO-91", "Crew Active", 5, hour("2026-11-19T01:00"), AO91),
        Group("AO-91", "Telemetry Only", 2, hour("2026-11-20T22:00"), AO91),
        Group("ao-91", "Heard", 1, hour("2026-11-20T08:00"), AO91),
        Group("ZZ-1", "Heard", 1, hour("2026-11-20T09:00"), None),  # a stored name the catalog lacks
    ],
)


def test_the_answer_read_whole():
    answer = SummaryAnswer.of(WHOLE, 24)
    # names in the order read (by name, case-insensitive); within a name most reports first, ties
    # in the order Heard, Telemetry Only, Not Heard, Crew Active
    assert answer.body == body(
        [
            ("AO-91", AO91, "Crew Active", 5, "2026-11-19T01:30:00Z"),
            ("AO-91", AO91, "Heard", 2, "2026-11-20T23:30:00Z"),
            ("AO-91", AO91, "Telemetry Only", 2, "2026-11-20T22:30:00Z"),
            ("AO-91", AO91, "Not Heard", 2, "2026-11-20T21:30:00Z"),
            ("ao-91", AO91, "Heard", 1, "2026-11-20T08:30:00Z"),
            ("ZZ-1", None, "Heard", 1, "2026-11-20T09:30:00Z"),
        ]
    )
    assert (answer.revision, answer.catalog_revision, answer.hours) == (7, 2, 24)
    assert SummaryAnswer.of(SummaryRead(1, 1, []), 720).body == (
        b'{\n    "data": [],\n    "meta": {\n        "hours": 720,\n        "count": 0\n    }\n}'
    )


def test_an_answer_brought_up_to_date():
    answer = SummaryAnswer.of(WHOLE, 24)
    updated = answer.updated(
        SummaryRead(
            revision=9,
            catalog_revision=2,
            groups=[
                Changed("AO-91", "Crew Active", 1, hour("2026-11-19T01:00")),  # fewer: now last
                Changed("AO-91", "Not Heard", 3, hour("2026-11-21T00:00")),  # more: now first
                Changed("AO-91", "Telemetry Only", 0, None),  # none left in the window: gone
                Changed("ao-91", "Heard", 0, None),  # the name's last group: the name goes
                Changed("SO-50", "Heard", 0, None),  # a name it never had, now without reports: nothing to do
            ],
        )
    )
    assert updated.body == body(
        [
            ("AO-91", AO91, "Not Heard", 3, "2026-11-21T00:30:00Z"),
            ("AO-91", AO91, "Heard", 2, "2026-11-20T23:30:00Z"),
            ("AO-91", AO91, "Crew Active", 1, "2026-11-19T01:30:00Z"),
            ("ZZ-1", None, "Heard", 1, "2026-11-20T09:30:00Z"),
        ]
    )
    assert (updated.revision, updated.catalog_revision) == (9, 2)
    assert updated.names == ("AO-91", "ZZ-1")
    again = updated.updated(
        SummaryRead(revision=10, catalog_revision=2, groups=[Changed("ao-91", "Heard", 4, hour("2026-11-21T01:00"))])
    )
    assert again is None  # the name came back: its place in the order is the database's


def test_what_makes_it_read_whole():
    answer = SummaryAnswer.of(WHOLE, 24)
    assert answer.updated(SummaryRead(8, 3, [])) is None  # the catalog changed (display names)
    assert answer.updated(SummaryRead(8, 2, [Changed("SO-50", "Heard", 1, hour("2026-11-20T10:00"))])) is None
    assert answer.updated(SummaryRead(8, 2, [])).body == answer.body  # nothing changed: the same body


catalogs = st.lists(st.sampled_from(["AO-91", "SO-50", "ISS-FM"]), unique=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(writes, st.tuples(st.just("catalog"), catalogs)), min_size=1, max_size=12))
def test_summary_brought_up_to_date_equals_a_whole_read(migrated_engine, sequence):
    """After each write (reports, or the catalog's display names) the answer updated from the
    previous one is byte for byte the answer read whole."""
    empty_all_tables(migrated_engine)
    window = (DAYS[0], 1)
    with closing(RevisionProbe(migrated_engine)) as probe:
        with connect(migrated_engine) as conn:
            answer = SummaryAnswer.of(report_store.summary(conn, window), 24)
        for number, write in enumerate(sequence):
            with connect(migrated_engine, write=True) as conn:
                if write[0] == "catalog":
                    conn.execute(satellites.delete())
                    for name in write[1]:
                        conn.execute(satellites.insert().values(api_name=name, display_name=f"{name} #{number}"))
                else:
                    apply(conn, write)
            update = report_store.summary_changes(probe, window, answer.revision)
            with connect(migrated_engine) as conn:
                whole = SummaryAnswer.of(report_store.summary(conn, window), 24)
            updated = answer.updated(update)
            if updated is None:  # a name it had not seen, or the catalog changed: read whole
                assert write[0] == "catalog" or {row.name for row in update.groups} - set(answer.names)
                updated = whole
            assert updated.revision == whole.revision
            assert updated.body == whole.body
            answer = updated
