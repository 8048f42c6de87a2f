"""`sathub serve` as `make run` starts it: migrates a new SQLite file, loads the default catalog,
serves under the base URL's prefix with several workers."""

import os
import subprocess
import sys
import time

import httpx
import pytest

from tests.conftest import POSTGRES_URL, fresh_postgres_database
from tests.live_server import free_port, sathub_server
from tests.server.test_request_log import COMBINED

pytestmark = pytest.mark.slow


def test_serve_fresh_sqlite_with_prefix_and_workers(tmp_path):
    url = f"sqlite:///{tmp_path / 'var' / 'sathub.db'}"
    with sathub_server(url, base_url="http://127.0.0.1:{port}/status", workers=2) as root:
        catalog = httpx.get(f"{root}/api/v1/catalog.php").json()
        assert catalog["meta"]["count"] == 77
        assert catalog["data"][0]["links"]["self"].startswith(f"{root}/api/v1/catalog.php?name=")
        posted = httpx.post(
            f"{root}/api/v1/reports.php",
            json={"name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": "-1 hour"},
        )
        assert posted.status_code == 201
        assert posted.headers["location"] == f"{root}/api/v1/reports.php?name=AO-91"
        assert httpx.get(f"{root}/api/v1/sat_info.php?name=AO-91").json()[0]["callsign"] == "W1AW"
        assert httpx.get(f"{root}/api/v1/health.php").json()["data"]["status"] == "ok"
    assert (tmp_path / "var" / "sathub.db").exists()


@pytest.mark.skipif(not POSTGRES_URL, reason="SATHUB_TEST_POSTGRES_URL not set")
def test_four_processes_started_at_once_on_a_fresh_postgresql_all_serve():
    """The migration and the default catalog load run once, whichever process comes first."""
    url, drop = fresh_postgres_database(POSTGRES_URL)
    ports = [free_port() for _ in range(4)]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "sathub", "serve"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "SATHUB_DATABASE_URL": url, "SATHUB_PORT": str(port), "SATHUB_LOG_LEVEL": "warning"},
        )
        for port in ports
    ]
    try:
        for process, port in zip(processes, ports, strict=True):
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, process.stdout.read().decode(errors="replace")
                try:
                    answer = httpx.get(f"http://127.0.0.1:{port}/api/v1/catalog.php", timeout=1)
                    if answer.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, "not serving within 60 s"
                time.sleep(0.2)
            assert answer.json()["meta"]["count"] == 77
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)
        drop()
    loaded = [process.stdout.read().decode() for process in processes]
    assert sum("Loaded the default catalog" in output for output in loaded) == 1


def test_serve_prints_a_line_per_request_by_default(tmp_path):
    """A newcomer sees their curl arrive: the access log is on at the default level, info."""
    log = tmp_path / "serve.log"
    url = f"sqlite:///{tmp_path / 'sathub.db'}"
    with sathub_server(url, env={"SATHUB_LOG_LEVEL": "info"}, output=log) as root:
        httpx.get(f"{root}/api/v1/statuses.php?from=newcomer", headers={"user-agent": "curl/8.5.0"})
        deadline = time.monotonic() + 10
        while "from=newcomer" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
    [line] = [line for line in log.read_text().splitlines() if "from=newcomer" in line]
    assert COMBINED.fullmatch(line), line
    assert line.startswith("127.0.0.1 - - [") and '"GET /api/v1/statuses.php?from=newcomer HTTP/1.1" 200 ' in line
