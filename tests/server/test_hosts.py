"""Host headers (hosts.py): a malformed one is never echoed into a page, and SATHUB_ALLOWED_HOSTS
narrows the hosts answered."""

from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.server.hosts import host_is_allowed, parse_allowed


@pytest.mark.parametrize(
    "host",
    ["sathub.test", "sathub.test:8000", "127.0.0.1:8000", "[::1]:8000", "localhost", "web_1:8000", "www.amsat.org."],
)
def test_well_formed_hosts_are_answered(host):
    assert host_is_allowed(host, ())


@pytest.mark.parametrize(
    "host", ['x"><script>alert(9)</script>', "a b", "a/b", "", "host:port", "a.b:123456", "evil.org\r\nX: y"]
)
def test_malformed_hosts_are_refused(host):
    assert not host_is_allowed(host, ())


def test_allowed_hosts_with_subdomains():
    allowed = parse_allowed("amsat.org, .example.org")
    assert host_is_allowed("AMSAT.org:443", allowed) and host_is_allowed("www.example.org", allowed)
    assert host_is_allowed("example.org", allowed)
    assert not host_is_allowed("www.amsat.org", allowed) and not host_is_allowed("evil.org", allowed)
    assert parse_allowed("*") == ()


def test_a_script_in_the_host_header_is_refused_not_reflected(engine, settings):
    app = create_app(replace(settings, base_url=""), engine=engine)
    with TestClient(app, base_url="http://sathub.test") as client:
        for path in ("/", "/api/v1/catalog.php", "/submit.php", "/archive/api/lists/"):
            response = client.get(path, headers={"Host": 'x"><script>alert(9)</script>'})
            assert response.status_code == 400 and "<script>" not in response.text
        assert client.get("/api/v1/statuses.php", headers={"Host": "status.example:8000"}).status_code == 200


def test_only_the_allowed_hosts_are_answered(engine, settings):
    app = create_app(replace(settings, allowed_hosts="www.amsat.org"), engine=engine)
    with TestClient(app, base_url="http://www.amsat.org") as client:
        assert client.get("/api/v1/statuses.php").status_code == 200
        assert client.get("/api/v1/statuses.php", headers={"Host": "evil.example"}).status_code == 400
