"""SATHUB_STATUS_IMPLAUSIBLE=exclude against mark: what leaving the implausible reports out costs the
status page and GET /api/v2/status when their answer is computed (a miss of the answer cache, as
the first read after a write), on a dataset of bench/status_dataset.py whose reports are in part
marked implausible (`visible` false, set here as a recheck would, then put back as it was).

Rounds alternate the two settings, so that the machine's drift falls on both alike; each prints
the median of its rounds.

    python -m bench.status_implausible --database-url sqlite:///bench/out/status.db [--share 0.01]
"""

from __future__ import annotations

import argparse
import statistics
import time

import sqlalchemy as sa

from bench.common import backend_of, label, write_out
from sathub import db
from sathub.status import grid, times
from sathub.status.api.v2.documents import status_document
from sathub.status.pages import grid_html, report_grid
from sathub.status.store import reports


def timed(compute, exclude: bool, engine) -> tuple[float, float]:
    """Wall and this process's CPU time (ms): on a busy machine the CPU time is the steadier, and
    on SQLite it holds the database's work too; PostgreSQL's is in its server, in the wall time."""
    with db.connect(engine) as conn:
        wall, cpu = time.perf_counter(), time.process_time()
        compute(exclude, conn)
        return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--share", type=float, default=0.01, help="the share of reports found implausible")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    engine = db.create_engine(args.database_url)
    today = times.utc_now().date()
    first = grid.first_day(today)

    def page(exclude: bool, conn) -> None:  # the page's read, its grid and the grid's markup
        rows = reports.grid_window(conn, first, today, exclude_implausible=exclude)
        grid_html.render(report_grid.build_grid(today, map(report_grid.Report._make, rows)), "http://bench")

    def api(exclude: bool, conn) -> None:  # /api/v2/status's read and document
        hourly = reports.hourly_counts(conn, first, today, exclude_implausible=exclude)
        status_document(today, grid.DAYS, grid.count_grid(today, hourly), {})

    computations = {"status page": page, "/api/v2/status": api}
    every = max(1, round(1 / args.share))
    with db.connect(engine, write=True) as conn:
        marked = conn.execute(sa.text(f"UPDATE reports SET visible = false WHERE id % {every} = 0")).rowcount
    try:
        what = f"status_implausible, {backend_of(args.database_url)}, {marked:,} reports implausible"
        lines = [label(f"{what}, medians of {args.rounds} alternated rounds")]
        for what, compute in computations.items():
            taken: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
            for _ in range(args.rounds):
                for exclude in (False, True):
                    taken[exclude].append(timed(compute, exclude, engine))
            for kind, index in (("wall", 0), ("CPU", 1)):
                off = statistics.median(t[index] for t in taken[False])
                on = statistics.median(t[index] for t in taken[True])
                lines.append(f"{what}, {kind}: mark {off:.1f} ms, exclude {on:.1f} ms (x{on / off:.2f})")
    finally:
        with db.connect(engine, write=True) as conn:
            conn.execute(sa.text("UPDATE reports SET visible = NULL WHERE visible = false"))
    write_out(f"status_implausible_{backend_of(args.database_url)}.txt", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
