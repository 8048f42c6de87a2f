"""`make bench`: the whole benchmark in one command, bounded to a few minutes.

    .venv/bin/python bench/run.py [--backends sqlite,postgresql] [--duration 4] [--rounds 2] [--fresh]

For each backend: build the datasets when missing (1M reports over 30 days for the load, 1k for
the statement count, 1M over 3,000 days for the pages at a live service's density), count
statements per request and print query plans (bench/status_sql.py), the wrk load with its static
ceiling (bench/status_load.py), the pages' own time (bench/asgi_time.py) and reads while reports
arrive (bench/status_mixed.py). Results land in bench/out/ (gitignored): status_<backend>.md
(load table), status_sql_<backend>.md (statements and plans), status_mixed_<backend>.md.

PostgreSQL is used when `pg_isready -h 127.0.0.1` answers (override with SATHUB_BENCH_PG, a
server URL without database name); its databases sathub_bench and sathub_bench_1k are dropped and
recreated by the dataset step. Note the load test POSTs reports, so each run grows the 1M dataset
by a few thousand rows; --fresh rebuilds the datasets first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")
BENCH = ROOT / "bench"
OUT = BENCH / "out"
PG = os.environ.get("SATHUB_BENCH_PG", "postgresql://postgres@127.0.0.1:5432").rstrip("/")
LARGE = 1_000_000


def urls(backend: str) -> tuple[str, str, str]:
    """The 1M, 1k and live-density datasets of a backend."""
    if backend == "sqlite":
        return (f"sqlite:///{OUT / 'status.db'}", f"sqlite:///{OUT / 'status_1k.db'}",
                f"sqlite:///{OUT / 'status_live.db'}")
    return f"{PG}/sathub_bench", f"{PG}/sathub_bench_1k", f"{PG}/sathub_bench_live"


def report_count(url: str) -> int:
    """Reports in the database, 0 when it or its schema does not exist yet."""
    sys.path.insert(0, str(ROOT / "src"))
    from sathub.db import normalize_url

    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database).exists():
        return 0
    engine = sa.create_engine(parsed)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT count(*) FROM reports")).scalar()
    except sa.exc.SQLAlchemyError:
        return 0
    finally:
        engine.dispose()


def run(*args: str) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run([PYTHON, *args], check=True, cwd=ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--duration", type=int, default=4, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=2, help="wrk runs per endpoint and server")
    parser.add_argument("--fresh", action="store_true", help="rebuild the datasets")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install -y wrk (Debian package)")
    backends = args.backends.split(",")
    if "postgresql" in backends and subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"]).returncode != 0:
        print("PostgreSQL is not running on 127.0.0.1: skipped")
        backends.remove("postgresql")
    OUT.mkdir(parents=True, exist_ok=True)
    for backend in backends:
        large, small, live = urls(backend)
        for url, size, days in ((large, LARGE, 30), (small, 1000, 30), (live, LARGE, 3000)):
            if args.fresh or report_count(url) < size:
                run("bench/status_dataset.py", "--database-url", url, "--reports", str(size), "--days", str(days))
        run("bench/status_sql.py", "--label", backend, "--small", small, "--large", large)
        run("bench/status_load.py", "--database-url", large, "--label", backend,
            "--duration", str(args.duration), "--rounds", str(args.rounds))
        run("bench/asgi_time.py", live, "/", "/satellite/AO-91", "/feeds/AO-91.atom", "--gzip", "--misses", "30")
        run("bench/status_mixed.py", "--database-url", live, "--label", backend, "--duration", str(args.duration))
    for backend in backends:
        for name in (f"status_{backend}.md", f"status_mixed_{backend}.md"):
            print((OUT / name).read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
