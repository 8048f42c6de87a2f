"""summary.php read whole vs brought up to date (issue 14, migration 0007): in-process, on the
1M-report dataset, the median of N reads of the 24 h answer each way, SQL and rendering included
(`report_store.summary` + `SummaryAnswer.of`, and `report_store.summary_changes` +
`SummaryAnswer.updated` after one report written since the answer was read).

    .venv/bin/python bench/status_summary_update.py --database-url sqlite:///bench/out/status.db
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
from sathub import db  # noqa: E402
from sathub.status.api.summary_answer import SummaryAnswer  # noqa: E402
from sathub.status.api.v1 import window_since  # noqa: E402
from sathub.status.revision import RevisionProbe  # noqa: E402
from sathub.status.rules import period_of_minute  # noqa: E402
from sathub.status.store import reports as report_store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    engine = db.create_engine(args.database_url)
    probe = RevisionProbe(engine)
    _, window = window_since(24)
    now = datetime.now(UTC)
    whole, updated = [], []
    for i in range(args.repeat):
        with db.connect(engine) as conn:
            start = time.perf_counter()
            answer = SummaryAnswer.of(report_store.summary(conn, window), 24)
            whole.append(time.perf_counter() - start)
        with db.connect(engine, write=True) as conn:  # one write since the answer, as in a burst
            report_store.insert_or_replace_report(
                conn, name="AO-91", day=now.date(), hour=now.hour, period=period_of_minute(now.minute),
                callsign=f"ZB{i % 100:02d}", report="Heard" if i % 2 else "Not Heard", grid_square=None)
        start = time.perf_counter()
        fresh = answer.updated(report_store.summary_changes(probe, window, answer.revision))
        updated.append(time.perf_counter() - start)
        assert fresh is not None
    with db.connect(engine, write=True) as conn:
        conn.execute(sa.text("DELETE FROM reports WHERE callsign LIKE 'ZB%'"))
    engine.dispose()
    print(f"{engine.dialect.name}: summary.php?hours=24 ({len(answer.body):,} bytes), median of {args.repeat}: "
          f"read whole {statistics.median(whole) * 1000:.2f} ms, "
          f"brought up to date {statistics.median(updated) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
