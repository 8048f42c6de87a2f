"""The mbox export: HyperKitty's address, parameters and headers; mboxrd bytes; filters; errors;
the cap on exports at once; a client that goes away stops the reads."""

from __future__ import annotations

import asyncio
import mailbox

import pytest

from sathub.archive.export import endpoint
from sathub.archive.export.slots import SLOTS
from sathub.archive.store import lists
from sathub.archive.tables import PRIVATE
from tests.archive.source_fixtures import ENVELOPES, HASHES, KEYS, LIST, THREE, TWO, gunzip, import_fixture

EXPORT = f"/archive/list/{LIST}/export/dev.mbox.gz"

# What the three messages must look like in the export, written out by hand: every line that
# starts with >*From gains one '>', nothing else changes; a blank line after each message.
EXPECTED_ONE = (
    ENVELOPES[0] + b"\n"
    b"From: Ann Example <ann@example.com>\n"
    b"Subject: one\n"
    b"Message-ID: <one@example.org>\n"
    b"Date: Mon, 06 Jan 2020 10:00:00 +0000\n"
    b"\n"
    b"Body\n"
    b">>From the quoted start\n"
    b">>>From twice quoted\n"
    b"Fromage is not a From line\n"
    b" From indented is not either\n"
    b"\n"
)
EXPECTED_TWO = ENVELOPES[1] + b"\n" + TWO.replace(b"\n>From here\n", b"\n>>From here\n") + b"\n"
EXPECTED_THREE = ENVELOPES[2] + b"\n" + THREE + b"\n"


def test_the_export_is_the_mboxrd_of_the_sources(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    response = client.get(EXPORT)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/gzip"
    assert response.headers["content-disposition"] == 'attachment; filename="dev.mbox.gz"'
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "content-encoding" not in response.headers  # the body is the .gz file itself
    assert gunzip(response.content) == EXPECTED_ONE + EXPECTED_TWO + EXPECTED_THREE
    for prefix in ("/archives/", "/hyperkitty/"):
        assert client.get(EXPORT.replace("/archive/", prefix)).content[:2] == b"\x1f\x8b"


def test_pythons_mailbox_reads_back_the_messages(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    path = tmp_path / "export.mbox"
    path.write_bytes(gunzip(client.get(EXPORT).content))
    box = mailbox.mbox(path)
    assert [message["Message-ID"] for message in box] == [f"<{key}>" for key in KEYS]
    assert [message.get_from() for message in box] == [envelope[5:].decode() for envelope in ENVELOPES]
    # mailbox.mbox does not undo the quoting (mboxo/mboxrd are the same file to it): the bodies
    # carry one more '>' on those lines, the rest is the source.
    assert box[0].get_payload().startswith("Body\n>>From the quoted start\n")
    assert box[2].as_bytes(unixfrom=False).endswith(b"caf\xe9\n\n")


@pytest.mark.parametrize(
    "query, expected",
    [
        ("", [0, 1, 2]),
        ("?start=2020-01-07", [1, 2]),
        ("?end=2020-01-07", [0]),  # end is exclusive: Jan 7 11:00 is not before Jan 7
        ("?start=2020-01-06&end=2020-02-01", [0, 1]),
        ("?start=2021-01-01", []),
        (f"?thread={HASHES[0]}", [0, 1]),  # one and its reply
        (f"?thread={HASHES[2]}", [2]),
        (f"?message={HASHES[1]}", [1]),
        (f"?message={HASHES[1]}&thread={HASHES[2]}", []),
        ("?message=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", []),
        ("?other=1&format=json", [0, 1, 2]),  # parameters that are not filters are ignored
    ],
)
def test_filters(client, engine, tmp_path, query, expected):
    import_fixture(engine, tmp_path)
    response = client.get(EXPORT + query)
    assert response.status_code == 200
    entries = [EXPECTED_ONE, EXPECTED_TWO, EXPECTED_THREE]
    assert gunzip(response.content) == b"".join(entries[n] for n in expected)


@pytest.mark.parametrize(
    "query, says",
    [
        ("?start=2020-13-01", "start must be a day"),
        ("?end=yesterday", "end must be a day"),
        ("?start=2020-1-1", "start must be a day"),
        ("?thread=short", "thread must be an id"),
        ("?message=one%40example.org", "message must be an id"),
        ("?q=gpsd%20AND", "Invalid query: the query ends where a word was expected (at character 9)"),
    ],
)
def test_bad_parameters_are_a_400_page(client, engine, tmp_path, query, says):
    import_fixture(engine, tmp_path)
    response = client.get(EXPORT + query)
    assert response.status_code == 400
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert says in response.text.replace("&#39;", "'")


def test_unknown_and_private_lists(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    unknown = client.get("/archive/list/nobody@example.org/export/x.mbox.gz")
    assert unknown.status_code == 404 and "nobody@example.org" in unknown.text
    with engine.begin() as conn:
        lists.update_list(conn, lists.find_list(conn, LIST).id, {"archive_policy": PRIVATE})
    private = client.get(EXPORT)
    assert private.status_code == 403
    # The page says why, and holds no mail: a leaked export would be a gzip, in which no word of
    # the mail could be searched for.
    assert private.headers["content-type"].startswith("text/html") and private.content[:2] != b"\x1f\x8b"
    assert f"The archive of {LIST} is private." in private.text
    assert client.head(EXPORT).status_code == 403


def test_head_and_methods(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    head = client.head(EXPORT)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "application/gzip"
    post = client.post(EXPORT)
    assert post.status_code == 405 and post.headers["allow"] == "GET, HEAD"


def test_beyond_the_configured_exports_a_503_with_retry_after(client, engine, tmp_path, monkeypatch):
    import_fixture(engine, tmp_path)
    monkeypatch.setattr(SLOTS, "running", 4)  # SATHUB_MAX_EXPORTS' default, all taken
    busy = client.get(EXPORT)
    assert busy.status_code == 503 and busy.headers["retry-after"] == "10"
    monkeypatch.setattr(SLOTS, "running", 3)
    assert client.get(EXPORT).status_code == 200
    assert SLOTS.running == 3  # the slot was given back when the answer ended
    monkeypatch.setitem(SLOTS.held, "testclient", 2)  # the test client's address holds its half
    shared = client.get(EXPORT)
    assert shared.status_code == 503 and shared.headers["retry-after"] == "10"
    assert "as many exports as one client may" in shared.text


def test_a_name_that_cannot_be_a_file_name_is_not_found(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    assert client.get(f'/archive/list/{LIST}/export/a"b.mbox.gz').status_code == 404
    assert client.get(f"/archive/list/{LIST}/export/dev.mbox").status_code == 404


def test_a_client_that_goes_away_stops_the_reads(engine, settings, tmp_path, monkeypatch):
    """The app is called directly: the client's send fails after the first piece (the server's
    answer to a closed connection), and no chunk is read after that."""
    from sathub.app import create_app
    from sathub.archive.store import email_sources

    import_fixture(engine, tmp_path)
    monkeypatch.setattr(email_sources, "FIRST_CHUNK", 1)  # one message a chunk: three chunks to read
    monkeypatch.setattr(email_sources, "EXPORT_CHUNK", 1)
    reads = []
    real = email_sources.export_chunks

    def counted(*args, **kwargs):
        for chunk in real(*args, **kwargs):
            reads.append(len(chunk[0]))
            yield chunk

    monkeypatch.setattr(endpoint, "export_chunks", counted)
    app = create_app(settings, engine=engine)
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.body" and message.get("body"):
            sent.append(message["body"])
            raise OSError("the client went away")
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": EXPORT,
        "raw_path": EXPORT.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"sathub.test")],
        "client": ("127.0.0.1", 1),
        "server": ("sathub.test", 80),
        "state": {},
    }
    asyncio.run(app(scope, receive, send))  # returns: nobody is left to answer
    assert reads == [1]  # the first chunk was read and sent; the send failed; nothing more was read
    assert SLOTS.running == 0


def test_a_name_that_is_not_ascii_goes_in_filename_star(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    response = client.get(f"/archive/list/{LIST}/export/Gr%C3%BC%C3%9Fe.mbox.gz")
    assert response.status_code == 200
    assert response.headers["content-disposition"] == "attachment; filename*=UTF-8''Gr%C3%BC%C3%9Fe.mbox.gz"
