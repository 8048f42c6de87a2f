"""/api/v2/passes: every satellite with elements over 24 h for one grid square, cold (a grid
square not asked before: its sky computed) and cached (the same request again: two revision
reads), in-process through the app (Starlette's test client), --repeat times each.

The catalog is the shipped one (its NORAD numbers); the elements are the tests' samples
(tests/status/orbits/samples.py) and, for the other numbers, low orbits made alike.

    python -m bench.status_passes --database-url sqlite:///bench/out/status_passes.db
    python -m bench.status_passes --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench_passes
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import time
from datetime import UTC, datetime, timedelta
from importlib import resources

from sgp4.api import Satrec
from starlette.testclient import TestClient

from bench.common import percentile
from sathub import db
from sathub.app import create_app
from sathub.config import Settings
from sathub.status import times
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import catalog as catalog_store
from sathub.status.store import elements as elements_store
from tests.status.orbits import samples


def element_sets(norad_ids: set[int]) -> list[tuple[ElementSet, str]]:
    given = {int(line1[2:7]): (name, line1, line2) for name, line1, line2 in samples.ALL}
    rng = random.Random(38)
    for norad_id in sorted(norad_ids - set(given)):
        given[norad_id] = samples.tle(
            norad_id,
            f"SAT {norad_id}",
            inclination=rng.uniform(40, 99),
            raan=rng.uniform(0, 360),
            eccentricity=rng.uniform(0, 0.01),
            perigee=rng.uniform(0, 360),
            anomaly=rng.uniform(0, 360),
            revolutions_per_day=rng.uniform(14.0, 15.5),
        )
    return [(ElementSet.from_satrec(Satrec.twoline2rv(l1, l2), name), "tle") for name, l1, l2 in given.values()]


def grid_squares(count: int) -> list[str]:
    rng = random.Random(38)
    return [
        f"{rng.choice('ABCDEFGHIJKLMNOPQR')}{rng.choice('CDEFGHIJKLMNOP')}{rng.randrange(100):02d}"
        for _ in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    engine = db.create_engine(args.database_url)
    db.upgrade(engine)
    rows = list(csv.DictReader((resources.files("sathub") / "data" / "catalog.csv").open(encoding="utf-8")))
    numbers = {int(row["norad_id"]) for row in rows if row["norad_id"]}
    with db.connect(engine, write=True) as conn:
        catalog_store.load_catalog(conn, rows)
        elements_store.save_element_sets(conn, element_sets(numbers))
    now = samples.EPOCH + timedelta(hours=6)
    times.utc_now = lambda: now  # one minute all along: the cold requests differ by grid square alone
    settings = Settings(database_url=args.database_url, base_url="http://bench.test", secret_key="bench")
    cold, cached = [], []
    with TestClient(create_app(settings, engine=engine), base_url="http://bench.test") as client:
        for grid in grid_squares(args.repeat):
            for kept in (cold, cached):
                started = time.perf_counter()
                response = client.get("/api/v2/passes", params={"grid": grid})
                kept.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.text
        count = len(response.json()["data"])
    engine.dispose()
    backend = db.normalize_url(args.database_url).get_backend_name()
    print(f"# /api/v2/passes, {backend}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(f"{len(numbers)} satellites with elements, 24 h, {count} passes in the last answer", end=", ")
    print(f"{args.repeat} grid squares")
    for what, kept in (("cold", cold), ("cached", cached)):
        print(f"{what}: median {statistics.median(kept):.2f} ms, p95 {percentile(kept, 95):.2f} ms")


if __name__ == "__main__":
    main()
