"""How every /api/v1 endpoint answers: OPTIONS, 405, HEAD, the envelope's headers and PHP's pretty
print (status-api.md 2)."""

from tests.status.api.envelope import error_code
from tests.status.seed import seed_catalog


def test_method_not_allowed(client):
    response = client.delete("/api/v1/reports.php")
    assert response.status_code == 405 and response.headers["allow"] == "GET, POST"
    assert error_code(response) == "method_not_allowed"
    assert client.put("/api/v1/sat_info.php").headers["allow"] == "GET"


def test_options(client):
    response = client.options("/api/v1/catalog.php")
    assert response.status_code == 204 and response.content == b""
    assert response.headers["access-control-allow-methods"] == "GET"
    assert response.headers["access-control-allow-origin"] == "*"


def test_head_is_get_without_body(client, seeded):
    get, head = client.get("/api/v1/catalog.php"), client.head("/api/v1/catalog.php")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == get.headers["content-length"]


def test_envelope_headers_and_php_pretty_print(client, engine):
    seed_catalog(engine, [{"name": "OSCAR-Ø", "display_name": "Ørsted 😀", "website": "https://x.test/a"}])
    response = client.get("/api/v1/catalog.php")
    for header, value in [("cache-control", "no-store"), ("access-control-allow-origin", "*"),
                          ("access-control-allow-headers", "Content-Type"), ("x-amsat-api-version", "1.0.0")]:
        assert response.headers[header] == value
    text = response.text
    assert text.startswith('{\n    "data": [\n        {\n            "id": ')
    assert '"display_name": "\\u00d8rsted \\ud83d\\ude00"' in text
    assert '"website": "https://x.test/a"' in text and not text.endswith("\n")
    assert '"meta": {\n        "count": 1\n    }\n}' in text
