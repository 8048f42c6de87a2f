"""Health answers 503 database_unavailable while the database cannot be reached, and recovers on
its own once it is back, without restarting sathub (status-api.md 4.6)."""

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.config import Settings
from sathub.db.revision_probe import RevisionProbe
from sathub.status.commands import load_default_catalog_if_empty
from tests.conftest import POSTGRES_URL, fresh_postgres_database
from tests.live_server import free_port
from tests.tcp_proxy import TcpProxy

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="needs SATHUB_TEST_POSTGRES_URL")

# "Within about a second": the probe's deadline (0.5 s), and room for a busy 2-core machine. Without
# the deadlines a request waited for ever; with only the request's own, SATHUB_DB_TIMEOUT (10 s).
ABOUT_A_SECOND = 1.5


@pytest.fixture
def proxied_database():
    url, drop = fresh_postgres_database(POSTGRES_URL)
    engine = db.create_engine(url)
    db.upgrade(engine)
    engine.dispose()
    proxy = TcpProxy(free_port(), ("127.0.0.1", 5432))
    yield db.normalize_url(url).set(host="127.0.0.1", port=proxy.port).render_as_string(False), proxy
    drop()


def test_closed_port_is_503_then_health_recovers(proxied_database):
    url, proxy = proxied_database
    app = create_app(Settings(database_url=url, base_url="http://sathub.test"))
    with TestClient(app) as client:
        down = client.get("/api/v1/health.php")
        assert down.status_code == 503
        assert down.json()["error"] == {
            "code": "database_unavailable",
            "message": down.json()["error"]["message"],
            "status": 503,
        }
        assert client.get("/api/v1/catalog.php").status_code == 503
        bad_body = client.post(
            "/api/v1/reports.php", content=b"{not json", headers={"Content-Type": "application/json"}
        )
        assert bad_body.status_code == 503  # the database is checked before the body (2.3 step 4)
        # Endpoints that need no database keep answering.
        assert client.get("/api/v1/statuses.php").status_code == 200
        assert client.get("/api/v1/sat_info.php").text == "[]"
        assert client.options("/api/v1/reports.php").status_code == 204

        proxy.start()
        assert client.get("/api/v1/health.php").json()["data"]["status"] == "ok"

        proxy.stop()  # the server goes away under pooled connections
        assert client.get("/api/v1/health.php").status_code == 503
        proxy.start()
        assert client.get("/api/v1/health.php").status_code == 200
        assert client.get("/api/v1/catalog.php").status_code == 200
    app.state.engine.dispose()
    proxy.stop()


def test_pages_answer_503_while_the_database_is_away_and_the_status_page_its_last_copy(proxied_database):
    url, proxy = proxied_database
    app = create_app(Settings(database_url=url, base_url="http://sathub.test"))
    with TestClient(app, raise_server_exceptions=False) as client:
        pages = [
            ("GET", "/"),
            ("GET", "/index.php"),
            ("GET", "/submit.php?SatSubmit=yes&SatName=AO-91"),
            ("GET", "/satellite/AO-91"),
            ("GET", "/feeds/AO-91.atom"),
            ("POST", "/admin/login.php"),
        ]
        for method, path in pages:
            form = {"username": "a", "password": "b"} if method == "POST" else None
            response = client.request(method, path, data=form)
            assert response.status_code == 503, path
            assert response.headers["content-type"] == "text/html; charset=utf-8" and "Retry-After" in response.headers
            assert "temporarily unavailable" in response.text and "Traceback" not in response.text
        proxy.start()
        page = client.get("/")
        assert page.status_code == 200
        proxy.stop()
        stale = client.get("/")
        assert stale.status_code == 503 and stale.text == page.text  # the last page rendered
        proxy.start()
        assert client.get("/").status_code == 200
    app.state.engine.dispose()
    proxy.stop()


@pytest.mark.timeout(60, method="thread")  # without deadlines the first request would wait for ever
def test_a_server_that_stops_answering_is_503_within_a_second_then_recovers(proxied_database):
    """A frozen server (or a partition) accepts connections and answers nothing: requests, the
    write path and interface B answer 503 within a second instead of waiting with it (deadlines.py)."""
    url, proxy = proxied_database
    proxy.start()
    engine = db.create_engine(url)
    load_default_catalog_if_empty(engine)
    engine.dispose()
    app = create_app(Settings(database_url=url, base_url="http://sathub.test"))
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/api/v1/health.php").status_code == 200
        assert client.get("/archive/api/lists/").status_code == 200
        proxy.blackhole()
        requests = [
            ("GET", "/api/v1/health.php"),
            ("GET", "/api/v1/catalog.php?include_stats=true"),
            ("POST", "/api/v1/reports.php"),
            ("GET", "/archive/api/lists/"),
            ("GET", "/"),
        ]
        for method, path in requests:
            started = time.monotonic()
            answer = client.request(
                method,
                path,
                json={"name": "AO-91", "report": "Heard", "callsign": "W1AW"} if method == "POST" else None,
            )
            assert answer.status_code == 503, path
            assert time.monotonic() - started < ABOUT_A_SECOND, path
            assert "Traceback" not in answer.text
        assert client.get("/api/v1/reports.php").json()["error"]["code"] == "database_unavailable"
        proxy.restore()
        deadline = time.monotonic() + 2
        while client.get("/api/v1/health.php").status_code != 200:
            assert time.monotonic() < deadline, "not back within 2 s of the server answering again"
            time.sleep(0.05)
        report = {
            "name": "AO-91",
            "report": "Heard",
            "callsign": "W1AW",
            "reported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        assert client.post("/api/v1/reports.php", json=report).status_code == 201
        assert client.get("/archive/api/lists/").status_code == 200
    app.state.engine.dispose()
    proxy.stop()


@pytest.mark.timeout(60, method="thread")
def test_a_connection_the_server_never_completes_is_given_up(proxied_database):
    """A write that finds the pool empty opens a connection. A frozen server accepts it and never
    completes the start-up, and psycopg would wait its connect_timeout (3 s): the attempt ends as
    soon as a probe declares the server silent (within 0.5 s), or after CONNECT_SECONDS when
    nothing else asks the server (deadlines.py)."""
    url, proxy = proxied_database
    proxy.start()
    engine = db.create_engine(url, timeout=10)  # a serving engine
    probe = RevisionProbe(engine)
    probe.read()
    engine.pool.dispose()  # no idle connection left: the next one is opened
    proxy.blackhole()

    def write() -> float:
        started = time.monotonic()
        with pytest.raises(db.DatabaseUnavailable), db.connect(engine, write=True):
            pass
        return time.monotonic() - started

    with ThreadPoolExecutor(1) as pool:
        writing = pool.submit(write)
        time.sleep(0.05)  # the write is waiting for its connection
        with pytest.raises(db.DatabaseUnavailable):
            probe.read()  # silent for 0.5 s: declared
        assert writing.result() < ABOUT_A_SECOND  # ended by the probe's declaration, not at 2 s
    with pytest.raises(db.DatabaseUnavailable, match=db.SILENT), db.connect(engine):
        pass  # refused at once: declared silent
    wait_until_answering(engine, proxy)

    engine.pool.dispose()
    proxy.blackhole()  # and now nothing else asks the server
    assert 2.0 <= write() < 3.0  # CONNECT_SECONDS, not psycopg's connect_timeout (3 s)
    wait_until_answering(engine, proxy)
    engine.dispose()
    proxy.stop()


def wait_until_answering(engine, proxy) -> None:
    proxy.restore()
    deadline = time.monotonic() + 2
    while True:
        try:
            with db.connect(engine) as conn:
                assert conn.exec_driver_sql("SELECT 1").scalar_one() == 1
            return
        except db.DatabaseUnavailable:
            assert time.monotonic() < deadline, "not back within 2 s of the server answering again"
            time.sleep(0.05)


@pytest.mark.timeout(60, method="thread")
def test_a_read_whose_server_freezes_before_its_close_is_not_left_waiting(proxied_database):
    """A read's connection closes by rolling back the transaction its first statement began: one
    more round trip, which waited for as long as the server stayed frozen (health.php hung for the
    whole outage). It is under the block's deadline too (db.connect)."""
    url, proxy = proxied_database
    proxy.start()
    engine = db.create_engine(url, timeout=1)
    started = None
    with pytest.raises(db.DatabaseUnavailable), db.connect(engine) as conn:
        assert conn.exec_driver_sql("SELECT 1").scalar_one() == 1
        proxy.blackhole()
        started = time.monotonic()
    assert time.monotonic() - started < 2
    engine.dispose()
    proxy.stop()


@pytest.mark.parametrize("write", [False, True])
def test_a_connection_lost_within_a_block_is_an_operational_error(proxied_database, write):
    """What every handler answers 503 database_unavailable: not another error raised while the
    block's connection is closed after it died (health.php once answered 500)."""
    url, proxy = proxied_database
    proxy.start()
    engine = db.create_engine(url, timeout=5)
    with pytest.raises(sa.exc.OperationalError), db.connect(engine, write=write) as conn:
        assert conn.exec_driver_sql("SELECT 1").scalar_one() == 1
        proxy.stop()
        conn.exec_driver_sql("SELECT 1")
    engine.dispose()
