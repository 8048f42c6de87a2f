"""While PostgreSQL cannot be reached, every /api/v2 read answers 503 `database_unavailable` in
the envelope with Retry-After (never a traceback, never a stale answer), the document still
answers (it needs no database), and the answers come back once the database does."""

import pytest
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.config import Settings
from tests.conftest import POSTGRES_URL, fresh_postgres_database
from tests.live_server import free_port
from tests.status.seed import seed_catalog
from tests.tcp_proxy import TcpProxy

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="needs SATHUB_TEST_POSTGRES_URL")

READS = ["/api/v2/status", "/api/v2/satellites", "/api/v2/reports?name=AO-91", "/api/v2/grid-squares"]


@pytest.fixture
def proxied_database():
    url, drop = fresh_postgres_database(POSTGRES_URL)
    engine = db.create_engine(url)
    db.upgrade(engine)
    seed_catalog(engine)
    engine.dispose()
    proxy = TcpProxy(free_port(), ("127.0.0.1", 5432))
    yield db.normalize_url(url).set(host="127.0.0.1", port=proxy.port).render_as_string(False), proxy
    proxy.stop()
    drop()


def test_503_while_away_then_answers_again(proxied_database):
    url, proxy = proxied_database
    with TestClient(create_app(Settings(database_url=url, base_url="http://sathub.test"))) as client:
        for path in READS:
            down = client.get(path)
            assert down.status_code == 503, path
            assert down.headers["retry-after"] == "5"
            assert down.json()["error"]["code"] == "database_unavailable"
            assert down.json()["error"]["status"] == 503
        assert client.get("/api/v2/openapi.json").status_code == 200
        proxy.start()
        tags = {}
        for path in READS:
            up = client.get(path)
            assert up.status_code == 200, path
            tags[path] = up.headers["etag"]
        proxy.stop()  # away again: a kept answer is not served, nor a 304 for it
        for path in READS:
            assert client.get(path, headers={"If-None-Match": tags[path]}).status_code == 503, path
