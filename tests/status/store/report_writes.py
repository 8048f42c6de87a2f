"""Random sequences of writes to reports, through every write path (a submission, an import, a
manual UPDATE or DELETE), for the hypothesis tests of the hourly counts and of summary.php's
answer."""

from __future__ import annotations

from datetime import date

import sqlalchemy as sa
from hypothesis import strategies as st

from sathub.status.rules import REPORT_VALUES
from sathub.status.store import writes as report_writes
from sathub.status.tables import reports

DAYS = [date(2026, 11, 20), date(2026, 11, 21)]
slots = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["AO-91", "ao-91", "SO-50", "ISS-FM"]),
        "day": st.sampled_from(DAYS),
        "hour": st.sampled_from([0, 1, 23]),
        "period": st.integers(0, 3),
        "callsign": st.sampled_from(["W1AW", "w1aw", "DL1ABC", "K9X"]),
        "report": st.sampled_from(REPORT_VALUES),
        "grid_square": st.sampled_from(["FN31pr", None]),
    }
)
writes = st.one_of(
    st.tuples(st.just("report"), slots),
    st.tuples(st.just("bulk"), st.lists(slots, max_size=6)),
    st.tuples(st.just("delete"), st.integers(0, 20)),
    st.tuples(st.just("relabel"), st.integers(0, 20), st.sampled_from(REPORT_VALUES)),
)


def apply(conn, write) -> None:
    kind = write[0]
    if kind == "report":
        report_writes.store_submitted(conn, [write[1]])
    elif kind == "bulk":
        # One report per slot, as import-legacy hands them over.
        unique = {
            (row["name"].lower(), row["day"], row["hour"], row["period"], row["callsign"].upper()): row
            for row in write[1]
        }
        report_writes.store_imported(conn, list(unique.values()))
    else:
        ids = conn.execute(sa.select(reports.c.id).order_by(reports.c.id)).scalars().all()
        if not ids:
            return
        target = reports.c.id == ids[write[1] % len(ids)]
        if kind == "delete":
            conn.execute(reports.delete().where(target))
        else:
            conn.execute(reports.update().where(target).values(report=write[2]))
