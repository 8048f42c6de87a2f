"""The check that a test leaves no PostgreSQL connection open (postgres_connections.py, conftest's
autouse fixture): it sees a connection of its own test process left open, and no connection idle
in a pool, nor another process's."""

from __future__ import annotations

import psycopg
import pytest

from sathub import db
from tests import postgres_connections
from tests.conftest import APPLICATION_NAME, POSTGRES_URL

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="needs SATHUB_TEST_POSTGRES_URL")


def conninfo(application_name: str) -> str:
    url = (
        db.normalize_url(POSTGRES_URL)
        .set(drivername="postgresql")
        .update_query_dict({"application_name": application_name})
    )
    return url.render_as_string(hide_password=False)


@pytest.fixture
def connections(monkeypatch):
    monkeypatch.setattr(postgres_connections, "SETTLE_SECONDS", 0.3)
    checker = postgres_connections.Connections(conninfo(APPLICATION_NAME), APPLICATION_NAME)
    yield checker
    checker.close()


def test_a_connection_left_open_is_seen_and_one_closed_is_not(connections):
    found = connections.open()
    left = psycopg.connect(conninfo(APPLICATION_NAME))
    try:
        assert list(connections.left_open(found)) == [left.info.backend_pid]
    finally:
        left.close()
    assert connections.left_open(found) == {}


def test_a_connection_idle_in_a_pool_is_not_left_open_nor_another_process(connections):
    found = connections.open()
    engine = db.create_engine(POSTGRES_URL)
    other = psycopg.connect(conninfo("sathub-tests-another-process"))
    try:
        with db.connect(engine) as conn:
            conn.exec_driver_sql("SELECT 1")
        assert connections.left_open(found) == {}
    finally:
        other.close()
        engine.dispose()
