"""What checking every report against the sky (`reports.visible`, docs/orbits.md, "Visibility")
costs a POST: `sathub serve` under wrk's POSTs (bench/wrk/status_post.lua: six satellites of the
catalog, ten grid squares, the last two hours), rounds with the catalog's elements loaded and
without them, alternated in one run on one server; then the verdict's own CPU in-process.

    python -m bench.status_visibility --database-url sqlite:///bench/out/status_visibility.db
    python -m bench.status_visibility --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench_visibility

The database is made anew (`sathub catalog load`: the default catalog with its NORAD numbers). The
elements are the test samples' orbits (tests/status/orbits/samples.py) with their epoch moved to
an hour ago, so that every report of the run is within the elements' age; "without" deletes them
(and moves the elements revision, as a load does), "with" stores them again. Each "with" round
also counts the reports it stored with a verdict (not null). Figures: POST/s, p99 and the server
processes' CPU per POST, medians over the rounds; then the CPU of one verdict when it is kept
(the same satellite, slot and square as an earlier report), new for a known slot, and new for a
new slot, and the per-transaction read of the revisions. Writes bench/out/status_visibility_<backend>.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import sys
import time
from datetime import date, timedelta

import sqlalchemy as sa
from sgp4.api import Satrec

from bench.common import (
    OUT,
    Server,
    backend_of,
    group_cpu_seconds,
    label,
    recreate_database,
    require_wrk,
    write_out,
    wrk,
)
from sathub import db
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import elements
from sathub.status.store.visibility import Sky, sky_of
from sathub.status.tables import data_revision, orbital_elements, reports
from tests.status.orbits import samples

MODES = ("without", "with")


def element_sets() -> list[tuple[ElementSet, str]]:
    moved_to = time.time() - 3600
    return [
        (dataclasses.replace(ElementSet.from_satrec(Satrec.twoline2rv(line1, line2), name), epoch=moved_to), "tle")
        for name, line1, line2 in samples.ALL
    ]


def set_mode(engine, mode: str, sets) -> None:
    with db.connect(engine, write=True) as conn:
        if mode == "with":
            elements.save_element_sets(conn, sets)
            return
        conn.execute(orbital_elements.delete())
        conn.execute(
            data_revision.update()
            .where(data_revision.c.id == 1)
            .values(elements_revision=data_revision.c.elements_revision + 1)
        )


def newest_id(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.coalesce(sa.func.max(reports.c.id), 0))).scalar_one()


def judged_since(engine, after: int) -> tuple[int, int]:
    """(reports stored after id `after`, those of them with a verdict)."""
    with engine.connect() as conn:
        query = sa.select(sa.func.count(), sa.func.count(reports.c.visible)).where(reports.c.id > after)
        return tuple(conn.execute(query).one())


def one_round(server: Server, engine, mode: str, seconds: float, connections: int) -> dict:
    after = newest_id(engine)
    cpu = group_cpu_seconds(server.pid)
    run = wrk(server.base + "/api/v1/reports.php", seconds, connections, script="status_post.lua")
    run["cpu_us"] = (group_cpu_seconds(server.pid) - cpu) * 1e6 / max(run["requests"], 1)
    time.sleep(0.5)  # the POSTs wrk left in flight are stored before the next round changes the mode
    run["stored"], run["judged"] = judged_since(engine, after)
    return run


def verdict_cpu(sets) -> list[tuple[str, float]]:
    """CPU µs of one verdict: kept, new square of a known slot, new slot (the ISS over FN31)."""
    numbers = {"iss-fm": 25544}
    kept = {element_set.norad_id: (element_set, element_set.satrec()) for element_set, _ in sets}
    today = date.fromtimestamp(time.time())
    letters = "abcdefghijklmnopqrstuvwx"
    cases = {
        "kept (satellite, slot and square seen before)": lambda i: ("ISS-FM", "FN31", today, 10, 1),
        "new square, slot seen before": lambda i: ("ISS-FM", f"FN{i % 100:02d}{letters[i // 100 % 24]}a", today, 10, 1),
        "new slot": lambda i: ("ISS-FM", "FN31", today - timedelta(days=i // 96), i // 4 % 24, i % 4),
    }
    found = []
    for name, case in cases.items():
        sky = Sky((0, 0, True), 7.0, numbers=numbers, sets=kept)
        sky.verdict(*case(0))
        arguments = [case(i) for i in range(1, 2001)]
        started = time.process_time()
        for given in arguments:
            sky.verdict(*given)
        found.append((name, (time.process_time() - started) * 1e6 / len(arguments)))
    return found


def revisions_read_cpu(engine, count: int = 2000) -> float:
    """CPU µs of the one statement each writing transaction reads the revisions with."""
    with db.connect(engine, write=True) as conn:
        sky_of(conn)
        started = time.process_time()
        for _ in range(count):
            sky_of(conn)
        return (time.process_time() - started) * 1e6 / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--rounds", type=int, default=4, help="rounds of each mode, alternated")
    parser.add_argument("--duration", type=float, default=4, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    require_wrk()
    backend = backend_of(args.database_url)
    recreate_database(args.database_url)
    subprocess.run([sys.executable, "-m", "sathub", "catalog", "load", "--database-url", args.database_url], check=True)
    engine = db.create_engine(args.database_url)
    sets = element_sets()
    server = Server.sathub(args.database_url, workers=args.workers, log=f"status_visibility_{backend}")
    results: dict[str, list[dict]] = {mode: [] for mode in MODES}
    try:
        server.start()
        server.wait_up("/api/v1/health.php")
        for mode in MODES:  # warm-up: pools, caches, each mode's path
            set_mode(engine, mode, sets)
            one_round(server, engine, mode, 1, args.connections)
        for number in range(args.rounds):
            for mode in MODES if number % 2 else reversed(MODES):
                set_mode(engine, mode, sets)
                run = one_round(server, engine, mode, args.duration, args.connections)
                results[mode].append(run)
                print(
                    f"  round {number + 1} {mode:7} {run['rps']:8.0f} POST/s p99 {run['p99']:7.1f} ms "
                    f"CPU {run['cpu_us']:6.0f} µs/POST, {run['judged']:,} of {run['stored']:,} stored judged"
                    + (f" non-2xx {run['errors']}" if run["errors"] else ""),
                    flush=True,
                )
        reading = revisions_read_cpu(engine)
    finally:
        server.stop()
        engine.dispose()
    write_out(f"status_visibility_{backend}.md", table(args, backend, results, verdict_cpu(sets), reading))


def table(args, backend: str, results: dict, verdicts: list, reading: float) -> str:
    def median(mode: str, key: str) -> float:
        return statistics.median(run[key] for run in results[mode])

    lines = [
        label(
            f"**status_visibility, {backend}** — `sathub serve --workers {args.workers}`; wrk -t1 "
            f"-c{args.connections} -d{args.duration:g}s POSTs (wrk/status_post.lua), {args.rounds} rounds of each "
            "mode alternated, medians"
        ),
        "",
        "| elements | POST/s | p99 ms | CPU µs/POST | reports stored with a verdict |",
        "|---|---:|---:|---:|---:|",
    ]
    for mode in MODES:
        judged = sum(run["judged"] for run in results[mode])
        stored = sum(run["stored"] for run in results[mode])
        lines.append(
            f"| {mode} | {median(mode, 'rps'):,.0f} | {median(mode, 'p99'):.1f} | {median(mode, 'cpu_us'):.0f} "
            f"| {judged:,} of {stored:,} |"
        )
    rate = median("with", "rps") / median("without", "rps")
    cpu = median("with", "cpu_us") - median("without", "cpu_us")
    lines += [
        "",
        f"With elements: **{rate:.1%}** of the POST rate without, {cpu:+.0f} µs of server CPU a POST.",
        "",
        "| one verdict, in-process | CPU µs |",
        "|---|---:|",
        *(f"| {name} | {value:.1f} |" for name, value in verdicts),
        f"| the revisions' read, once per writing transaction | {reading:.1f} |",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    main()
