"""Cheap polling (api/v2/answers.py): every /api/v2 GET has an ETag and a Cache-Control;
If-None-Match with the current tag is a 304 without a body, answered from the answer cache: no
statement reaches the database through SQLAlchemy (the revision probe reads one number on its own
cursor, cache.py)."""

from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event

from tests.status.seed import store_report

PATHS = {
    "/api/v2/status": "public, max-age=30",
    "/api/v2/satellites": "public, max-age=60",
    "/api/v2/reports?name=AO-91": "public, no-cache",
    "/api/v2/grid-squares?name=AO-91": "public, max-age=60",
    "/api/v2/openapi.json": "public, max-age=3600",
}


@contextmanager
def statements(engine):
    seen: list[str] = []

    def count(conn, cursor, statement, *args):
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)


def an_hour_ago():
    return datetime.now(UTC) - timedelta(hours=1)


@pytest.mark.parametrize("path", PATHS)
def test_a_matching_if_none_match_is_a_304_from_memory(client, seeded, path):
    store_report(seeded, "AO-91", an_hour_ago(), grid="FN42")
    first = client.get(path)
    assert first.status_code == 200
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert first.headers["cache-control"] == PATHS[path]
    with statements(seeded) as seen:
        again = client.get(path, headers={"If-None-Match": etag})
        listed = client.get(path, headers={"If-None-Match": f'"other", W/{etag}'})
        head = client.head(path, headers={"If-None-Match": etag})
        plain = client.get(path)
    assert seen == []
    for response in (again, listed, head):
        assert response.status_code == 304
        assert response.content == b""
        assert response.headers["etag"] == etag and response.headers["cache-control"] == PATHS[path]
    assert plain.status_code == 200 and plain.content == first.content


@pytest.mark.parametrize("path", [p for p in PATHS if "openapi" not in p])
def test_a_write_that_changes_the_answer_changes_the_tag(client, seeded, path):
    store_report(seeded, "AO-91", an_hour_ago(), grid="FN42")
    etag = client.get(path).headers["etag"]
    store_report(seeded, "AO-91", an_hour_ago(), callsign="K1ABC", report="Not Heard", grid="FN42")
    changed = client.get(path, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag


def test_a_write_elsewhere_reads_again_but_keeps_the_tag(client, seeded):
    store_report(seeded, "AO-91", an_hour_ago())
    path = "/api/v2/reports?name=AO-91"
    etag = client.get(path).headers["etag"]
    store_report(seeded, "FO-29", an_hour_ago())  # another satellite: the revision moves, the answer not
    with statements(seeded) as seen:
        response = client.get(path, headers={"If-None-Match": etag})
    assert seen, "the revision moved: the answer is read again"
    assert response.status_code == 304


def test_errors_are_not_cached_and_other_methods_are_405(client, seeded):
    response = client.get("/api/v2/status", params={"days": "x"})
    assert response.status_code == 400 and response.headers["cache-control"] == "no-store"
    assert "etag" not in response.headers
    refused = client.post("/api/v2/reports")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"
    assert refused.json()["error"]["code"] == "method_not_allowed"
    options = client.options("/api/v2/status")
    assert options.status_code == 204 and options.headers["access-control-allow-origin"] == "*"


def test_a_304_first_then_a_plain_get_gets_the_body(client, seeded):
    store_report(seeded, "AO-91", an_hour_ago())
    path = "/api/v2/satellites"
    etag = client.get(path).headers["etag"]
    assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
    plain = client.get(path)
    assert plain.status_code == 200 and plain.headers["etag"] == etag and plain.json()["meta"]["count"] == 3


def test_two_processes_give_the_same_tag(client, seeded, settings):
    # Another app on the same database stands for another sathub process: its own answer cache.
    from starlette.testclient import TestClient

    from sathub.app import create_app

    store_report(seeded, "AO-91", an_hour_ago(), grid="FN42")
    with TestClient(create_app(settings, engine=seeded), base_url="http://sathub.test") as other:
        for path in PATHS:
            etag = client.get(path).headers["etag"]
            answer = other.get(path, headers={"If-None-Match": etag})
            assert answer.status_code == 304, path
