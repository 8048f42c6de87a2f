"""The export of a search's results: a list's (`list/<address>/export/<name>.mbox.gz?q=…`) and
every public list's (`search/export/<name>.mbox.gz?q=…&mlist=…`). The expected messages are read
off the fixture texts by hand (which subjects and bodies hold which words), never asked of the
search code; a private list's mail is never in an answer."""

from __future__ import annotations

import pytest

from sathub.archive.ingest.importer import import_archive
from sathub.archive.store import lists
from sathub.archive.tables import PRIVATE
from tests.archive.export.endpoint.test_export import EXPECTED_ONE, EXPECTED_THREE, EXPECTED_TWO
from tests.archive.source_fixtures import HASHES, LIST, gunzip, import_fixture

EXPORT = f"/archive/list/{LIST}/export/found.mbox.gz"
SEARCH_EXPORT = "/archive/search/export/found.mbox.gz"
DEV = [EXPECTED_ONE, EXPECTED_TWO, EXPECTED_THREE]  # dev's messages: subjects one, Re: one, three

OPS, SECRET = "ops@lists.example.org", "secret@lists.example.org"
# ops: archived in this order, dated the other way round (the export follows arrival, not date).
OPS_MESSAGES = [
    (
        b"From dora@example.com Mon Mar  1 08:00:00 2021",
        b"From: Dora <dora@example.com>\n"
        b"Subject: one more outage\n"
        b"Message-ID: <ops-late@example.org>\n"
        b"Date: Mon, 01 Mar 2021 08:00:00 +0000\n"
        b"\n"
        b"The relay is down again.\n",
    ),
    (
        b"From eve@example.com Fri May  1 12:00:00 2020",
        b"From: Eve <eve@example.com>\n"
        b"Subject: relay maintenance\n"
        b"Message-ID: <ops-early@example.org>\n"
        b"Date: Fri, 01 May 2020 12:00:00 +0000\n"
        b"\n"
        b"Planned work on the relay, part one.\n",
    ),
]
SECRET_MESSAGES = [
    (
        b"From mallory@example.com Wed Jan  8 10:00:00 2020",
        b"From: Mallory <mallory@example.com>\n"
        b"Subject: one secret plan\n"
        b"Message-ID: <secret@example.org>\n"
        b"Date: Wed, 08 Jan 2020 10:00:00 +0000\n"
        b"\n"
        b"The relay password is swordfish.\n",
    ),
]


def entries(messages) -> list[bytes]:
    """Each message as the export writes it: its From_ line, its source, a blank line (no body
    line of these starts with From, so nothing is quoted)."""
    return [envelope + b"\n" + source + b"\n" for envelope, source in messages]


def import_lists(engine, tmp_path) -> None:
    import_fixture(engine, tmp_path)
    for name, messages in ((OPS, OPS_MESSAGES), (SECRET, SECRET_MESSAGES)):
        path = tmp_path / f"{name}.mbox"
        path.write_bytes(b"".join(entries(messages)))
        import_archive(engine, name, [path])
    with engine.begin() as conn:
        lists.update_list(conn, lists.find_list(conn, SECRET).id, {"archive_policy": PRIVATE})


def refused(response, status: int) -> None:
    """An HTML page with `status`, without mail: a leaked export would be a gzip (in which the
    private list's word could not be searched for)."""
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html") and response.content[:2] != b"\x1f\x8b"


def exported(client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/gzip"
    assert response.headers["content-disposition"] == 'attachment; filename="found.mbox.gz"'
    return gunzip(response.content)


@pytest.mark.parametrize(
    "query, expected",
    [
        ("?q=s:one", [0, 1]),  # subjects "one" and "Re: one"
        ("?q=quoted", [0]),  # a word of one's body only
        ("?q=three%20OR%20s:one", [0, 1, 2]),
        ("?q=NOT%20s:one", [2]),
        ("?q=swordfish", []),  # the private list's word: no match here, and an empty mbox
        ("?q=relay", []),  # ops' word, not dev's
        ("?q=s:one&start=2020-01-07", [1]),  # combined with the days: both must hold
        ("?q=s:one&end=2020-01-07", [0]),
        ("?q=s:one&thread=" + HASHES[0], [0, 1]),
        ("?q=three&thread=" + HASHES[0], []),
        ("?q=s:one&message=" + HASHES[1], [1]),
        ("?q=%20s:one%20&sort=relevance", [0, 1]),  # spaces around, a sort: archived order anyway
    ],
)
def test_a_lists_export_of_a_search(client, engine, tmp_path, query, expected):
    import_lists(engine, tmp_path)
    assert exported(client, EXPORT + query) == b"".join(DEV[n] for n in expected)


def test_arrival_order_not_date_order(client, engine, tmp_path):
    import_lists(engine, tmp_path)
    late, early = entries(OPS_MESSAGES)
    assert exported(client, f"/archive/list/{OPS}/export/found.mbox.gz?q=relay") == late + early
    assert exported(client, f"/archive/list/{OPS}/export/found.mbox.gz?q=relay&start=2021-01-01") == late


def test_many_chunks_of_matches(client, engine, tmp_path, monkeypatch):
    """Matches cut into chunks of one id (some of them sending nothing: filtered out)."""
    from sathub.archive.store import email_sources

    import_lists(engine, tmp_path)
    monkeypatch.setattr(email_sources, "FIRST_CHUNK", 1)
    monkeypatch.setattr(email_sources, "EXPORT_CHUNK", 1)
    assert exported(client, EXPORT + "?q=three%20OR%20s:one") == b"".join(DEV)
    assert exported(client, EXPORT + "?q=three%20OR%20s:one&thread=" + HASHES[2]) == EXPECTED_THREE


@pytest.mark.parametrize(
    "query, says",
    [
        ("?q=", "The search needs a query: q=…"),
        ("?q=%20%20", "The search needs a query: q=…"),
        ("?q=%28one", "'(' is never closed (at character 1)"),
        ("?q=one%20AND", "the query ends where a word was expected (at character 8)"),
        ("?q=s:ab*", "a prefix needs at least 3 characters before '*' (at character 1)"),
        ("?q=" + "word%20" * 40, "more than 32 words"),
        ("?q=one&start=2020-02-30", "start must be a day"),
    ],
)
def test_a_query_that_does_not_parse_is_a_400_page(client, engine, tmp_path, query, says):
    import_lists(engine, tmp_path)
    for url in (EXPORT + query, SEARCH_EXPORT + query):
        response = client.get(url)
        assert response.status_code == 400
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert says in response.text.replace("&#39;", "'")


def test_a_private_lists_search_export_is_403(client, engine, tmp_path):
    import_lists(engine, tmp_path)
    refused(client.get(f"/archive/list/{SECRET}/export/found.mbox.gz?q=swordfish"), 403)
    assert client.head(f"/archive/list/{SECRET}/export/found.mbox.gz?q=swordfish").status_code == 403


@pytest.mark.parametrize(
    "query, expected",
    [
        # dev's one and Re: one, then ops' "one more outage" and "... part one" (a body word);
        # never the private list's "one secret plan".
        ("?q=one", DEV[:2] + entries(OPS_MESSAGES)),
        ("?q=s:one", DEV[:2] + entries(OPS_MESSAGES)[:1]),
        ("?q=relay", entries(OPS_MESSAGES)),
        ("?q=swordfish", []),
        (f"?q=l:{SECRET}", []),
        (f"?q=one&mlist={OPS}", entries(OPS_MESSAGES)),
        (f"?q=one&mlist={LIST}&start=2020-01-07", DEV[1:2]),
        ("?q=one&end=2020-06-01", DEV[:2] + entries(OPS_MESSAGES)[1:]),
    ],
)
def test_the_search_export_of_every_public_list(client, engine, tmp_path, query, expected):
    import_lists(engine, tmp_path)
    body = exported(client, SEARCH_EXPORT + query)
    assert body == b"".join(expected)
    assert b"swordfish" not in body


def test_the_search_exports_refusals(client, engine, tmp_path):
    import_lists(engine, tmp_path)
    missing = client.get(SEARCH_EXPORT)
    assert missing.status_code == 400 and "The search needs a query: q=…" in missing.text
    thread = client.get(f"{SEARCH_EXPORT}?q=one&thread={HASHES[0]}")
    assert thread.status_code == 400 and "thread= narrows a list" in thread.text.replace("&#39;", "'")
    refused(client.get(f"{SEARCH_EXPORT}?q=one&mlist={SECRET}"), 403)
    unknown = client.get(f"{SEARCH_EXPORT}?q=one&mlist=nobody@example.org")
    assert unknown.status_code == 404 and "nobody@example.org" in unknown.text
    assert client.get("/archive/search/export/a%22b.mbox.gz?q=one").status_code == 404
    head = client.head(SEARCH_EXPORT + "?q=one")
    assert head.status_code == 200 and head.content == b""
    assert client.post(SEARCH_EXPORT + "?q=one").status_code == 405
    assert client.get(SEARCH_EXPORT.replace("/archive/", "/hyperkitty/") + "?q=relay").content[:2] == b"\x1f\x8b"
