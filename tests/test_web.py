"""What both interfaces share (web.py): absolute links from the configured site, else from the
request (status-api.md 2.2), the client's address, the request body within its 64 KiB limit
(docs/api.md: 413 beyond it), one form reader that reads fields as PHP's $_POST does, and database
work off the event loop, reads, writes and shared write transactions."""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime
from types import SimpleNamespace

import pytest
import sqlalchemy as sa
from starlette.datastructures import UploadFile
from starlette.requests import Request

from sathub import web
from sathub.config import Settings
from sathub.db.group_commit import GroupCommit
from sathub.status.tables import rate_limits


def request(
    *,
    headers: dict | None = None,
    body_chunks: list[bytes] = (),
    settings: Settings | None = None,
    engine=None,
    scheme: str = "http",
    client: tuple | None = ("192.0.2.7", 50000),
    method: str = "POST",
) -> Request:
    """A request as uvicorn hands it to the app: its body arrives in chunks (`received` counts them)."""
    chunks = list(body_chunks)

    async def receive():
        received.append(1)
        body = chunks.pop(0) if chunks else b""
        return {"type": "http.request", "body": body, "more_body": bool(chunks)}

    received: list[int] = []
    app = SimpleNamespace(state=SimpleNamespace(settings=settings or Settings(), engine=engine))
    scope = {
        "type": "http",
        "method": method,
        "scheme": scheme,
        "server": ("10.0.0.1", 8080),
        "path": "/submit.php",
        "raw_path": b"/submit.php",
        "query_string": b"",
        "client": client,
        "app": app,
        "headers": [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()],
    }
    made = Request(scope, receive)
    made.received = received
    return made


# --- conditional GETs (RFC 9110 13.1.1, 13.1.2, 13.1.3, 13.2.2) ------------------------------------

TAG = '"5d41402abc4b2a76"'
AUGUST_2ND = datetime(2026, 8, 2, 12, 0, 0)  # naive UTC, as the stores give dates


@pytest.mark.parametrize(
    "header, matches",
    [
        (None, False),
        ("", False),
        (TAG, True),
        ("W/" + TAG, True),  # weak comparison: W/ is ignored on the client's side
        ('"other", ' + TAG, True),
        ('"other",' + TAG + ',"third"', True),
        ("*", True),
        ('"other"', False),
        ('"5d41402abc4b2a7"', False),  # a prefix of the tag is another tag
    ],
)
def test_if_none_match_is_compared_weakly(header, matches):
    assert web.etag_matches(header, TAG) is matches
    assert web.etag_matches(header, "W/" + TAG) is matches  # ... and on the answer's side


def test_only_a_get_or_a_head_is_ever_not_modified():
    for method in ("GET", "HEAD"):
        assert web.not_modified(request(method=method, headers={"If-None-Match": TAG}), TAG)
    assert not web.not_modified(request(method="POST", headers={"If-None-Match": TAG}), TAG)


@pytest.mark.parametrize(
    "since, current",
    [
        ("Sun, 02 Aug 2026 12:00:00 GMT", True),  # the same second
        ("Sun, 02 Aug 2026 13:00:00 GMT", True),
        ("Sun, 02 Aug 2026 11:59:59 GMT", False),
        ("Sun, 02 Aug 2026 14:00:00 +0200", True),  # 12:00 UTC, written in another zone
        ("Sun, 02 Aug 2026 11:00:00 -0000", False),
        ("yesterday", False),  # unreadable: ignored
    ],
)
def test_if_modified_since_decides_only_without_if_none_match(since, current):
    dated = request(method="GET", headers={"If-Modified-Since": since})
    assert web.not_modified(dated, TAG, AUGUST_2ND) is current
    assert not web.not_modified(dated, TAG)  # an answer without a date has only its tag
    both = request(method="GET", headers={"If-Modified-Since": since, "If-None-Match": '"other"'})
    assert not web.not_modified(both, TAG, AUGUST_2ND)


# --- links and the client ------------------------------------------------------------------------


def test_the_configured_site_wins_over_the_request():
    configured = Settings(base_url="https://www.amsat.org/status")
    assert (
        web.site_url(request(headers={"host": "evil.example"}, settings=configured)) == "https://www.amsat.org/status"
    )


@pytest.mark.parametrize(
    "scheme, headers, site",
    [
        ("http", {"host": "sathub.test"}, "http://sathub.test"),
        ("https", {"host": "sathub.test:8443"}, "https://sathub.test:8443"),
        ("http", {}, "http://10.0.0.1:8080"),  # no Host: the address the request came in on
    ],
)
def test_without_a_configured_site_links_follow_the_request(scheme, headers, site):
    assert web.site_url(request(scheme=scheme, headers=headers)) == site


def test_the_client_address():
    assert web.client_address(request(client=("2001:db8::7", 1))) == "2001:db8::7"
    assert web.client_address(request(client=None)) == "unknown"


# --- the body -------------------------------------------------------------------------------------


def read(made: Request, **limit) -> bytes:
    return asyncio.run(web.read_body(made, **limit))


def test_a_body_of_64_kib_is_read_and_one_byte_more_refused():
    assert web.MAX_BODY_BYTES == 64 * 1024
    whole = b"x" * web.MAX_BODY_BYTES
    assert read(request(body_chunks=[whole[:1000], whole[1000:]])) == whole
    with pytest.raises(web.BodyTooLarge):
        read(request(body_chunks=[whole, b"y"]))  # no Content-Length: counted as it arrives


def test_a_declared_length_over_the_limit_is_refused_before_reading():
    made = request(headers={"content-length": "65537"}, body_chunks=[b"x"])
    with pytest.raises(web.BodyTooLarge):
        read(made)
    assert made.received == []


def test_a_body_longer_than_it_declares_is_still_counted():
    with pytest.raises(web.BodyTooLarge):
        read(request(headers={"content-length": "5"}, body_chunks=[b"12345", b"67890", b"x"]), limit=10)
    assert read(request(headers={"content-length": "5"}, body_chunks=[b"12345", b"67890"]), limit=10) == b"1234567890"


def test_the_body_read_stays_readable_for_starlette():
    made = request(headers={"content-type": "application/json"}, body_chunks=[b'{"a"', b": 1}"])
    assert read(made) == b'{"a": 1}'
    assert asyncio.run(made.json()) == {"a": 1}


# --- form fields ----------------------------------------------------------------------------------

MULTIPART = (
    b'--XX\r\nContent-Disposition: form-data; name="SatName"\r\n\r\nAO-91\r\n'
    b'--XX\r\nContent-Disposition: form-data; name="log"; filename="log.txt"\r\n'
    b"Content-Type: text/plain\r\n\r\nQSO\r\n--XX--\r\n"
)


def fields(content_type: str | None, body: bytes, **options) -> dict:
    headers = {"content-type": content_type} if content_type else {}
    return asyncio.run(web.form_fields(request(headers=headers, body_chunks=[body]), **options))


@pytest.mark.parametrize(
    "content_type", ["application/x-www-form-urlencoded", "Application/X-WWW-Form-Urlencoded; charset=UTF-8"]
)
def test_url_encoded_fields(content_type):
    assert fields(content_type, b"SatName=AO-91&SatCall=W1AW+%2F+P&Confirm=") == {
        "SatName": "AO-91",
        "SatCall": "W1AW / P",
        "Confirm": "",
    }


def test_a_repeated_field_is_its_last_value_as_in_php():
    assert fields("application/x-www-form-urlencoded", b"SatName=AO-91&SatName=FO-29") == {"SatName": "FO-29"}


def test_multipart_fields_without_their_files_unless_asked():
    content_type = "multipart/form-data; boundary=XX"
    assert fields(content_type, MULTIPART) == {"SatName": "AO-91"}
    with_files = fields(content_type, MULTIPART, with_files=True)
    assert with_files["SatName"] == "AO-91" and isinstance(with_files["log"], UploadFile)


@pytest.mark.parametrize(
    "content_type, body",
    [
        (None, b"SatName=AO-91"),
        ("text/plain", b"SatName=AO-91"),
        ("application/json", b'{"SatName": "AO-91"}'),
        ("multipart/form-data", MULTIPART),  # no boundary: malformed
        ("multipart/form-data; boundary=XX", b"--XX\r\nnot a part"),
    ],
)
def test_other_or_malformed_bodies_have_no_fields(content_type, body):
    assert fields(content_type, body) == {}


def test_form_fields_keep_the_body_limit():
    with pytest.raises(web.BodyTooLarge):
        fields("application/x-www-form-urlencoded", b"a=" + b"x" * web.MAX_BODY_BYTES)


# --- database work --------------------------------------------------------------------------------


def counted(engine) -> dict:
    with engine.connect() as conn:
        return dict(conn.execute(sa.select(rate_limits.c.client, rate_limits.c.hits)).all())


def insert_row(conn, client: str, fail: bool = False) -> str:
    conn.execute(rate_limits.insert().values(client=client, window_start=0, hits=1))
    if fail:
        raise RuntimeError("refused")
    return threading.current_thread().name


def test_database_work_runs_in_a_worker_thread_and_a_write_commits(engine):
    made = request(engine=engine)
    worker = asyncio.run(web.in_thread(made, insert_row, "a", write=True))
    assert worker != threading.current_thread().name  # not on the event loop's thread
    assert counted(engine) == {"a": 1}
    assert asyncio.run(
        web.in_thread(made, lambda conn: conn.execute(sa.select(rate_limits.c.client)).scalars().all())
    ) == ["a"]


def test_a_failed_write_leaves_nothing(engine):
    with pytest.raises(RuntimeError, match="refused"):
        asyncio.run(web.in_thread(request(engine=engine), insert_row, "b", True, write=True))
    assert counted(engine) == {}


def test_writes_in_the_shared_transaction(engine):
    made = request(engine=engine)
    made.app.state.writes = GroupCommit(engine)

    def check(conn, client: str) -> str:
        return client.upper()

    def store(conn, checked: list[str]) -> list[str]:
        for client in checked:
            insert_row(conn, client)
        return [f"stored {client}" for client in checked]

    async def burst():
        return await asyncio.gather(
            web.in_write_batch(made, insert_row, "alone"),
            web.in_write_batch(made, check, "x", store=store),
            web.in_write_batch(made, check, "y", store=store),
        )

    alone, x, y = asyncio.run(burst())
    assert alone != threading.current_thread().name
    assert (x, y) == ("stored X", "stored Y")  # each write its own element of what store returned
    assert counted(engine) == {"alone": 1, "X": 1, "Y": 1}
