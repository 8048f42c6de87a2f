"""How long a full cyclic garbage collection stops a worker (issue 14, app.app_from_env): the
worker's app built in-process as `sathub serve` builds it, warmed by the reads and writes of a
burst, then the median of N full collections with what the worker built at start frozen (as
app_from_env leaves it) and unfrozen (as before); then again once the status page was rendered
(until the fifth session, grid_html kept the ~200,000 reports of a busy window as parts of its
block markup's keys, which every full collection then scanned).

    .venv/bin/python bench/status_gc_pauses.py --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
from starlette.testclient import TestClient  # noqa: E402

from sathub.app import app_from_env  # noqa: E402

READS = ["/api/v1/summary.php?hours=24", "/api/v1/catalog.php?include_stats=true",
         "/api/v1/reports.php?limit=500&hours=24", "/api/v1/sat_info.php?name=AO-91&hours=72"]


def full_collection_ms(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        gc.collect()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    os.environ["SATHUB_DATABASE_URL"] = args.database_url
    app = app_from_env()
    label = args.database_url.split(":")[0]
    with TestClient(app, base_url="http://127.0.0.1") as client:
        for n in range(50):  # what a worker holds after a burst: answers, pooled connections
            for path in READS:
                client.get(path)
            client.post("/api/v1/reports.php", json={"name": "AO-91", "report": "Heard",
                                                    "callsign": f"Q9GC{n % 10}", "reported_at": "-5 minutes"})
        report(f"{label}, API reads and writes", args.repeat)
        page = client.get("/")
        print(f"status page: {page.status_code}, {len(page.content):,} bytes")
        report(f"{label}, and the status page", args.repeat)


def report(label: str, repeat: int) -> None:
    gc.collect()
    frozen, outside = gc.get_freeze_count(), len(gc.get_objects())
    with_freeze = full_collection_ms(repeat)
    gc.unfreeze()
    without = full_collection_ms(repeat)
    gc.freeze()
    print(f"{label}: tracked objects frozen {frozen:,}, outside {outside:,}; full collection (median of "
          f"{repeat}) {with_freeze:.2f} ms with the start frozen, {without:.2f} ms without")

if __name__ == "__main__":
    main()
