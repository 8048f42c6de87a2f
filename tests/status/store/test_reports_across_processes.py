"""The duplicate rule holds across processes: 4 sathub processes on one PostgreSQL, concurrent
submissions into the same slots, exactly one row per slot, every submission 201."""

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

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


def test_four_processes_one_row_per_slot():
    url, drop = fresh_postgres_database(POSTGRES_URL)
    engine = db.create_engine(url)
    try:
        db.upgrade(engine)
        with db.connect(engine, write=True) as conn:
            catalog_store.load_catalog(conn, [{"name": "AO-91", "display_name": "AO-91", "website": ""}])
        with sathub_server(url) as a, sathub_server(url) as b, sathub_server(url) as c, sathub_server(url) as d:
            roots = [a, b, c, d]
            base = datetime.now(timezone.utc).replace(minute=5, second=0, microsecond=0) - timedelta(hours=2)
            jobs = []
            for i in range(SLOTS * SUBMISSIONS_PER_SLOT):
                slot = i % SLOTS
                jobs.append((roots[i % 4], {
                    "name": "AO-91", "callsign": "W1AW" if i % 2 else "w1aw",
                    "report": ["Heard", "Not Heard", "Telemetry"][i % 3],
                    "reported_at": (base + timedelta(minutes=15 * slot % 60, hours=slot // 4)).isoformat()}))

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
            per_slot = conn.execute(sa.select(reports.c.day, reports.c.hour, reports.c.period, sa.func.count())
                                    .group_by(reports.c.day, reports.c.hour, reports.c.period)).all()
            totals = conn.execute(sa.select(report_totals.c.report_count)).scalar_one()
        assert len(per_slot) == SLOTS and all(row[3] == 1 for row in per_slot)
        assert totals == SLOTS
    finally:
        engine.dispose()
        drop()
