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
    for header, value in [
        ("cache-control", "no-store"),
        ("access-control-allow-origin", "*"),
        ("access-control-allow-headers", "Content-Type"),
        ("x-amsat-api-version", "1.0.0"),
        ("x-content-type-options", "nosniff"),
    ]:
        assert response.headers[header] == value
    text = response.text
    assert text.startswith('{\n    "data": [\n        {\n            "id": ')
    assert '"display_name": "\\u00d8rsted \\ud83d\\ude00"' in text
    assert '"website": "https://x.test/a"' in text and not text.endswith("\n")
    assert '"meta": {\n        "count": 1\n    }\n}' in text


def test_every_json_answer_says_nosniff(client, seeded):
    """A browser never reads interface A's JSON as another type (issue 23): envelope answers, errors
    included, and the legacy arrays; HEAD keeps the header."""
    answers = [
        client.get("/api/v1/catalog.php"),
        client.get("/api/v1/reports.php?hours=x"),
        client.get("/api/v1/statuses.php"),
        client.get("/api/v1/health.php"),
        client.get("/api/v1/catalog.php?name=NO-SUCH"),
        client.delete("/api/v1/reports.php"),
        client.post("/api/v1/reports.php", json={}),
        client.head("/api/v1/summary.php"),
        client.get("/api/v1/satellites.php"),
        client.get("/api/v1/sat_info.php?name=AO-91"),
        client.get("/api/v1/sat_info.php"),
        client.head("/api/v1/sat_info.php?name=AO-91"),
    ]
    for answer in answers:
        assert answer.headers["x-content-type-options"] == "nosniff", answer.request.url


def test_openapi_php_keeps_upstreams_two_headers(client):
    # status-api.md 4.7: Content-Type and Cache-Control only.
    response = client.get("/api/v1/openapi.php")
    assert {key for key in response.headers if key != "content-length"} == {"content-type", "cache-control"}
