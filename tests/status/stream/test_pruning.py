"""Every serving process prunes the stream's events past the retention, whether or not anyone
has subscribed to its stream (status/stream/pruning.py, run by the app's lifespan)."""

from __future__ import annotations

import time

import sqlalchemy as sa
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.status.store import events as store
from sathub.status.stream import pruning
from tests.status.seed import hours_ago, seed_catalog, store_report


def test_a_process_nobody_subscribed_to_prunes_past_the_retention(engine, settings, monkeypatch):
    seed_catalog(engine)
    store_report(engine, "AO-91", hours_ago(1))
    store_report(engine, "SO-50", hours_ago(1))
    with db.connect(engine) as conn:
        rows = store.events_between(conn, 0, store.watermark(conn), limit=1000)
    assert len(rows) >= 2
    # The first event 49 hours old, the others 47: the default retention is 48 hours.
    assert settings.stream_retention_hours == 48
    with db.connect(engine, write=True) as conn:
        older = sa.text("UPDATE report_events SET stored_at = stored_at - :hours * 3600 WHERE id = :id")
        conn.execute(older, {"hours": 49, "id": rows[0].id})
        for row in rows[1:]:
            conn.execute(older, {"hours": 47, "id": row.id})
    monkeypatch.setattr(pruning, "FIRST_PRUNE_SECONDS", 0.0)
    with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test"):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with db.connect(engine) as conn:
                if store.oldest_kept(conn) != rows[0].id:
                    break
            time.sleep(0.05)
    with db.connect(engine) as conn:
        kept = store.events_between(conn, 0, store.watermark(conn), limit=1000)
    assert [row.id for row in kept] == [row.id for row in rows[1:]]
