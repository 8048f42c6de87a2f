"""`sathub serve` as `make run` starts it: migrates a new SQLite file, loads the default catalog,
serves under the base URL's prefix with several workers."""

import httpx
import pytest

from tests.live_server import sathub_server

pytestmark = pytest.mark.slow


def test_serve_fresh_sqlite_with_prefix_and_workers(tmp_path):
    url = f"sqlite:///{tmp_path / 'var' / 'sathub.db'}"
    with sathub_server(url, base_url="http://127.0.0.1:{port}/status", workers=2) as root:
        catalog = httpx.get(f"{root}/api/v1/catalog.php").json()
        assert catalog["meta"]["count"] == 77
        assert catalog["data"][0]["links"]["self"].startswith(f"{root}/api/v1/catalog.php?name=")
        posted = httpx.post(f"{root}/api/v1/reports.php", json={
            "name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": "-1 hour"})
        assert posted.status_code == 201
        assert posted.headers["location"] == f"{root}/api/v1/reports.php?name=AO-91"
        assert httpx.get(f"{root}/api/v1/sat_info.php?name=AO-91").json()[0]["callsign"] == "W1AW"
        assert httpx.get(f"{root}/api/v1/health.php").json()["data"]["status"] == "ok"
    assert (tmp_path / "var" / "sathub.db").exists()
