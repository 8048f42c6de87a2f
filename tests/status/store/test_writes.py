"""The SQL that stores reports (store/writes.py), on SQLite and PostgreSQL: a submission takes its
slot (satellite and callsign in any case, day, hour, quarter: status-api.md 5.5), replacing the
report there with a new id, in arrival order within one call; an import leaves a slot holding the
same report alone and replaces a different one."""

from datetime import date

import sqlalchemy as sa

from sathub import db
from sathub.status.store.writes import BulkStored, store_imported, store_submitted
from sathub.status.tables import reports


def row(name="AO-91", callsign="W1AW", report="Heard", hour=8, grid_square="FN31") -> dict:
    return dict(
        name=name, day=date(2026, 5, 23), hour=hour, period=2, callsign=callsign, report=report, grid_square=grid_square
    )


def stored(engine) -> list[tuple]:
    with db.connect(engine) as conn:
        query = sa.select(reports.c.id, reports.c.name, reports.c.callsign, reports.c.report).order_by(reports.c.id)
        return [tuple(found) for found in conn.execute(query)]


def test_a_submission_replaces_its_slot_with_a_new_id_the_later_last(engine):
    with db.connect(engine, write=True) as conn:
        (first,) = store_submitted(conn, [row(callsign="w1aw")])
        second, third, other = store_submitted(
            conn,
            [row(name="ao-91", report="Not Heard"), row(report="Crew Active"), row(hour=9)],
        )
    assert [s.replaced_count for s in (first, second, third, other)] == [0, 1, 1, 0]
    assert first.id < second.id < third.id
    assert stored(engine) == [(third.id, "AO-91", "W1AW", "Crew Active"), (other.id, "AO-91", "W1AW", "Heard")]


def test_an_import_keeps_the_same_report_and_replaces_a_different_one(engine):
    with db.connect(engine, write=True) as conn:
        assert store_imported(conn, [row(), row(callsign="K1ABC")]) == BulkStored(new=2, unchanged=0, replaced=0)
    before = stored(engine)
    with db.connect(engine, write=True) as conn:
        assert store_imported(conn, [row(), row(callsign="K1ABC", report="Not Heard")]) == BulkStored(
            new=0, unchanged=1, replaced=1
        )
        assert store_imported(conn, []) == BulkStored(new=0, unchanged=0, replaced=0)
    after = stored(engine)
    assert after[0] == before[0]  # the same report: its row and id left alone
    assert after[1][3] == "Not Heard" and after[1][0] > before[1][0]
