"""RevisionProbe (src/sathub/db/revision_probe.py): the revision every cached read starts with, on both backends."""

import gc
import time

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.db import DatabaseUnavailable
from sathub.db.revision_probe import RevisionProbe
from tests.conftest import POSTGRES_URL
from tests.status.seed import bump_revision


def test_the_probe_sees_every_committed_write_at_once(engine):
    probe = RevisionProbe(engine)
    first = probe.read()
    assert probe.read() == first  # the kept cursor (and prepared statement) answers again
    bump_revision(engine)
    assert probe.read() == first + 1
    bump_revision(engine)
    bump_revision(engine)
    assert probe.read() == first + 3


def test_a_statement_on_the_probe_connection_holds_no_snapshot(engine):
    """execute() reads in autocommit: a read transaction left open would show every later read
    the data as it was (SQLite's deferred BEGIN, PostgreSQL's transaction)."""
    probe = RevisionProbe(engine)
    statement = sa.text("SELECT revision FROM data_revision WHERE id = 1")
    first = probe.execute(statement, {})[0].revision
    bump_revision(engine)
    assert probe.execute(statement, {})[0].revision == first + 1
    assert probe.read() == first + 1


def test_a_dead_probe_connection_is_replaced(engine):
    probe = RevisionProbe(engine)
    first = probe.read()
    probe.local.conn.connection.dbapi_connection.close()  # the server dropped it
    bump_revision(engine)
    assert probe.read() == first + 1


def test_an_unreachable_database_is_database_unavailable(engine):
    probe = RevisionProbe(engine)
    probe.read()

    def broken():
        raise sa.exc.OperationalError("SELECT", {}, Exception("gone"))

    probe.local.conn = None
    probe.engine = type("Away", (), {"connect": staticmethod(broken), "dialect": engine.dialect})()
    with pytest.raises(DatabaseUnavailable):
        probe.read()


@pytest.mark.skipif(not POSTGRES_URL, reason="SATHUB_TEST_POSTGRES_URL not set")
def test_postgresql_sessions_cost_random_pages_as_cached_data_does():
    """A 1,000-email sender's replies are found through the emails_parent index, not by hashing
    the whole table, only when random_page_cost is that of data in memory; a search of a common
    word on a big archive keeps its bitmap exact only with more work_mem than the server's 4 MB
    (db.create_engine)."""

    def settings(url: str) -> tuple[str, str]:
        engine = db.create_engine(url)
        try:
            with engine.connect() as conn:
                return tuple(
                    conn.exec_driver_sql(f"SHOW {name}").scalar_one() for name in ("random_page_cost", "work_mem")
                )
        finally:
            engine.dispose()

    assert settings(POSTGRES_URL) == ("1.1", "32MB")
    url = db.normalize_url(POSTGRES_URL).update_query_dict({"options": "-c random_page_cost=2.5"})
    assert settings(url.render_as_string(hide_password=False)) == ("2.5", "4MB")  # the operator's choice wins


def _server_connections(engine) -> int | None:
    """Connections to the test database open on the PostgreSQL server (None on SQLite)."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        return conn.exec_driver_sql(query).scalar_one() - 1  # not this one


def _settled_connections(engine, expected: int | None) -> int | None:
    """_server_connections once it shows `expected`, or after 5 s: a backend leaves
    pg_stat_activity a moment after its client closed the socket (seen once in CI: 1 for 0)."""
    deadline = time.monotonic() + 5
    while (count := _server_connections(engine)) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return count


def test_an_app_closes_its_probe_connections_when_it_stops(engine, settings):
    """A cached read opens the probe's connection; the app's shutdown closes it and stops
    listening to the engine's commits, so that apps made and dropped on one engine leave nothing
    open on the server (the test suite made dozens)."""
    engine.pool.dispose()
    before = _server_connections(engine)
    app = create_app(settings, engine=engine)
    with TestClient(app, base_url="http://sathub.test") as client:
        assert client.get("/api/v1/summary.php").status_code == 200
        probe = app.state.answers.probe
        assert probe._opened and event.contains(engine, "commit", probe._listener)
    assert probe._opened == [] and not event.contains(engine, "commit", probe._listener)
    engine.pool.dispose()
    assert _settled_connections(engine, before) == before


def test_a_probe_dropped_without_its_shutdown_closes_its_connection_and_stops_listening(engine, settings):
    """An app served without its lifespan (a TestClient outside `with`) never closes its probe:
    held by the engine's commit listener, each such probe kept its connection open on the server
    for as long as the engine lived (the session's, in the test suite)."""
    engine.pool.dispose()
    before = _server_connections(engine)
    listeners = len(engine.dispatch.commit)
    client = TestClient(create_app(settings, engine=engine), base_url="http://sathub.test")
    assert client.get("/api/v1/summary.php").status_code == 200
    del client
    gc.collect()
    assert len(engine.dispatch.commit) == listeners
    engine.pool.dispose()
    assert _settled_connections(engine, before) == before
