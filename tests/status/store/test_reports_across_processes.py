"""Rules that hold across processes: 4 sathub processes on one PostgreSQL. The duplicate rule:
concurrent submissions into the same slots, exactly one row per slot, every submission 201. The
API's rate limit: one address's POSTs counted once whichever process takes them, beside
submit.php's own count, without two processes' transactions waiting for each other."""

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import sqlalchemy as sa

from sathub import db
from sathub.status.store import catalog as catalog_store
from sathub.status.tables import report_totals, reports
from tests.conftest import POSTGRES_URL, fresh_postgres_database
from tests.live_server import sathub_server

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not POSTGRES_URL, reason="needs SATHUB_TEST_POSTGRES_URL")]

SLOTS = 5
SUBMISSIONS_PER_SLOT = 24


def database_with_ao91():
    """A fresh PostgreSQL database, migrated, whose catalog is AO-91: (url, drop, engine)."""
    url, drop = fresh_postgres_database(POSTGRES_URL)
    engine = db.create_engine(url)
    db.upgrade(engine)
    with db.connect(engine, write=True) as conn:
        catalog_store.load_catalog(conn, [{"name": "AO-91", "display_name": "AO-91", "website": ""}])
    return url, drop, engine


def test_four_processes_one_row_per_slot():
    url, drop, engine = database_with_ao91()
    try:
        unlimited = {"SATHUB_API_RATE_PER_MINUTE": "0"}  # all 120 come from 127.0.0.1
        with (
            sathub_server(url, env=unlimited) as a,
            sathub_server(url, env=unlimited) as b,
            sathub_server(url, env=unlimited) as c,
            sathub_server(url, env=unlimited) as d,
        ):
            roots = [a, b, c, d]
            base = datetime.now(UTC).replace(minute=5, second=0, microsecond=0) - timedelta(hours=2)
            jobs = []
            for i in range(SLOTS * SUBMISSIONS_PER_SLOT):
                slot = i % SLOTS
                jobs.append(
                    (
                        roots[i % 4],
                        {
                            "name": "AO-91",
                            "callsign": "W1AW" if i % 2 else "w1aw",
                            "report": ["Heard", "Not Heard", "Telemetry"][i % 3],
                            "reported_at": (base + timedelta(minutes=15 * slot % 60, hours=slot // 4)).isoformat(),
                        },
                    )
                )

            def submit(job):
                root, body = job
                with httpx.Client(timeout=30) as http:
                    return http.post(f"{root}/api/v1/reports.php", json=body)

            with ThreadPoolExecutor(max_workers=32) as pool:
                answers = list(pool.map(submit, jobs))
        statuses = [answer.status_code for answer in answers]
        assert statuses == [201] * len(jobs), sorted(set(statuses))
        replaced = sum(answer.json()["data"]["replaced_count"] for answer in answers)
        assert replaced == len(jobs) - SLOTS  # every submission but the first of each slot replaced one
        with engine.connect() as conn:
            per_slot = conn.execute(
                sa.select(reports.c.day, reports.c.hour, reports.c.period, sa.func.count()).group_by(
                    reports.c.day, reports.c.hour, reports.c.period
                )
            ).all()
            totals = conn.execute(sa.select(report_totals.c.report_count)).scalar_one()
        assert len(per_slot) == SLOTS and all(row[3] == 1 for row in per_slot)
        assert totals == SLOTS
    finally:
        engine.dispose()
        drop()


def test_one_address_gets_its_api_limit_across_four_processes_beside_the_form():
    """100 API POSTs and 30 submit.php one-shot GETs at once from one address, spread over 4
    processes: 60 POSTs stored and 40 refused (the default limit), the 30 submissions all stored
    (the form's limit, 30, counted apart). The POSTs' counts are taken after the writers' lock,
    as the form's are, so no transaction waits for another's row while holding what that one
    needs (PostgreSQL would end one of them as a deadlock, a 1 s stall)."""
    url, drop, engine = database_with_ao91()
    try:
        with sathub_server(url) as a, sathub_server(url) as b, sathub_server(url) as c, sathub_server(url) as d:
            roots = [a, b, c, d]
            hour = datetime.now(UTC) - timedelta(hours=1)
            calls = [f"K{n % 10}A{chr(65 + n // 10)}" for n in range(130)]
            jobs = [("api", n, calls[n]) for n in range(100)] + [("form", n, calls[100 + n]) for n in range(30)]
            jobs = [jobs[(n * 7) % len(jobs)] for n in range(len(jobs))]  # the two kinds interleaved

            def send(job):
                kind, n, call = job
                root = roots[n % 4]
                with httpx.Client(timeout=30) as http:
                    if kind == "api":
                        return kind, http.post(
                            f"{root}/api/v1/reports.php",
                            json={
                                "name": "AO-91",
                                "report": "Heard",
                                "callsign": call,
                                "reported_at": hour.isoformat(),
                            },
                        )
                    return kind, http.get(
                        f"{root}/submit.php",
                        params={
                            "SatSubmit": "yes",
                            "Confirm": "yes",
                            "SatName": "AO-91",
                            "SatYear": f"{hour:%Y}",
                            "SatMonth": f"{hour:%m}",
                            "SatDay": f"{hour:%d}",
                            "SatHour": f"{hour:%H}",
                            "SatPeriod": "2",
                            "SatCall": call,
                            "SatReport": "Heard",
                        },
                    )

            while time.time() % 60 > 40:  # all of it inside one minute's window
                time.sleep(0.5)
            with ThreadPoolExecutor(max_workers=32) as pool:
                answers = list(pool.map(send, jobs))
        statuses = Counter((kind, answer.status_code) for kind, answer in answers)
        unexpected = [answer.text[:300] for _, answer in answers if answer.status_code not in (200, 201, 429)]
        assert statuses == {("api", 201): 60, ("api", 429): 40, ("form", 200): 30}, (statuses, unexpected)
        with engine.connect() as conn:  # counted by the servers' connections, which have ended
            assert (
                conn.exec_driver_sql(
                    "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
                ).scalar_one()
                == 0
            )
        refused = next(answer for kind, answer in answers if answer.status_code == 429)
        assert refused.json()["error"]["code"] == "rate_limited" and 1 <= int(refused.headers["retry-after"]) <= 60
        with engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(reports)).scalar_one() == 90
    finally:
        engine.dispose()
        drop()
