"""`…/message/<hash>/raw`: the source byte for byte, its charset, the download form, errors; and
where sources come from: the import (re-runs fill in old mail), Mailman's archive call, and the
rebuild of mail archived before sources were kept."""

from __future__ import annotations

import email
import email.policy
import zlib

import sqlalchemy as sa

from sathub.archive.ingest.importer import import_archive
from sathub.archive.mailman import live_ingest
from sathub.archive.store import lists
from sathub.archive.tables import PRIVATE, email_sources
from tests.archive.api_fixtures import MAIL, seed_archive
from tests.archive.messages import raw_message
from tests.archive.source_fixtures import ENVELOPES, HASHES, LIST, ONE, SOURCES, THREE, TWO, import_fixture


def raw_url(message_id_hash: str, address: str = LIST) -> str:
    return f"/archive/list/{address}/message/{message_id_hash}/raw"


def test_raw_is_the_source_byte_for_byte(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    for message_id_hash, source, charset in zip(HASHES, SOURCES, ("us-ascii", "utf-8", "iso-8859-1"), strict=True):
        response = client.get(raw_url(message_id_hash))
        assert response.status_code == 200
        assert response.content == source
        assert response.headers["content-type"] == f"text/plain; charset={charset}"
        assert response.headers["content-security-policy"] == "sandbox"
        assert response.headers["x-content-type-options"] == "nosniff"


def test_download_is_message_rfc822(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    response = client.get(raw_url(HASHES[1]) + "?download=1")
    assert response.content == TWO
    assert response.headers["content-type"] == "message/rfc822"
    assert response.headers["content-disposition"] == f'attachment; filename="{HASHES[1]}.eml"'
    head = client.head(raw_url(HASHES[1]))
    assert head.status_code == 200 and head.content == b"" and head.headers["content-length"] == str(len(TWO))


def test_errors_are_pages_and_a_private_list_is_403(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    for url in (raw_url("A" * 32), raw_url("not-a-hash"), raw_url(HASHES[0], "nobody@example.org")):
        response = client.get(url)
        assert response.status_code == 404 and response.headers["content-type"] == "text/html; charset=utf-8"
    with engine.begin() as conn:
        lists.update_list(conn, lists.find_list(conn, LIST).id, {"archive_policy": PRIVATE})
    private = client.get(raw_url(HASHES[0]))
    assert private.status_code == 403 and b"Message-ID: <one@example.org>" not in private.content
    assert client.post(raw_url(HASHES[0])).status_code == 405


def test_sources_are_stored_compressed_with_their_from_line(engine, tmp_path):
    summary = import_fixture(engine, tmp_path)
    assert summary.imported == 3
    with engine.connect() as conn:
        rows = conn.execute(sa.select(email_sources).order_by(email_sources.c.email_id)).all()
    assert [(row.compression, row.size, row.envelope) for row in rows] == [
        ("zlib", len(source), envelope.decode()) for source, envelope in zip(SOURCES, ENVELOPES, strict=True)
    ]
    assert [zlib.decompress(row.data) for row in rows] == SOURCES
    assert all(len(row.data) < row.size for row in rows[:1])  # ONE compresses


def test_an_import_run_again_fills_in_the_sources_of_mail_archived_before(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    with engine.begin() as conn:
        conn.execute(email_sources.delete())  # as if archived before migration 0008
    rebuilt = client.get(raw_url(HASHES[0])).content
    assert rebuilt != ONE
    summary = import_fixture(engine, tmp_path)
    assert (summary.imported, summary.duplicates) == (0, 3)
    assert [client.get(raw_url(h)).content for h in HASHES] == SOURCES


def test_mailmans_archive_call_keeps_the_source(client, engine):
    with engine.begin() as conn:
        lists.create_list(conn, "live@example.org", {"archive_policy": "public", "created_at": MAIL["A"].date})
    posted = raw_message("live@x", sender="Ann <ann@example.com>", subject="live", body="Grüße\n")
    stored = live_ingest.store_alone(engine, "live@example.org", live_ingest.parse(posted))
    assert stored.new
    assert client.get(raw_url(stored.message_id_hash, "live@example.org")).content == posted
    # With a From_ line first (tolerated), the line is the envelope and the source what follows.
    with_line = b"From ann@example.com Mon Jan  1 00:00:00 2001\n" + raw_message("line@x")
    stored = live_ingest.store_alone(engine, "live@example.org", live_ingest.parse(with_line))
    assert client.get(raw_url(stored.message_id_hash, "live@example.org")).content == raw_message("line@x")
    # Posted again after its source was lost (archived before sources were kept): filled in.
    with engine.begin() as conn:
        conn.execute(email_sources.delete())
    again = live_ingest.store_alone(engine, "live@example.org", live_ingest.parse(posted))
    assert not again.new
    assert client.get(raw_url(stored.message_id_hash, "live@example.org")).content != raw_message("line@x")
    assert client.get(raw_url(again.message_id_hash, "live@example.org")).content == posted


def test_mail_without_a_source_is_rebuilt_from_its_fields(client, engine, tmp_path):
    """The seeded archive has no sources: /raw rebuilds each message (mail/rebuild.py), and
    importing the rebuilt message gives back the stored fields."""
    seed_archive(engine)
    mail = MAIL["E"]  # the one with attachments
    response = client.get(raw_url(mail.hash, mail.list_name))
    assert response.status_code == 200
    message = email.message_from_bytes(response.content, policy=email.policy.default)
    assert message["Message-ID"] == f"<{mail.message_id}>"
    assert message["Subject"] == mail.subject
    assert message["From"].addresses[0].addr_spec == mail.sender
    assert message["Date"].datetime.replace(tzinfo=None) == mail.date
    assert message.get_body(("plain",)).get_content() == mail.content
    api = client.get(f"/archive/api/list/{mail.list_name}/email/{mail.hash}/").json()
    parts = list(message.iter_attachments())
    assert [(p.get_filename(), p.get_content_type(), len(p.get_payload(decode=True))) for p in parts] == [
        (a["name"], a["content_type"], a["size"]) for a in api["attachments"]
    ]
    # Imported again, a rebuilt message archives as the same email (the text of E, whose HTML
    # part is an attachment, gains the blank line the scrubber leaves for each HTML part).
    for key in ("C", "E"):
        mail = MAIL[key]
        old = client.get(f"/archive/api/list/{mail.list_name}/email/{mail.hash}/").json()
        path = tmp_path / f"{key}.mbox"
        path.write_bytes(
            b"From x@example.org Mon Jan  6 10:00:00 2020\n" + client.get(raw_url(mail.hash, mail.list_name)).content
        )
        import_archive(engine, f"again-{key.lower()}@example.org", [path])
        new = client.get(f"/archive/api/list/again-{key.lower()}@example.org/email/{mail.hash}/").json()
        for field in ("message_id", "subject", "date", "sender_name"):
            assert new[field] == old[field], (key, field)
        assert new["sender"]["address"] == old["sender"]["address"]
        assert [(a["name"], a["content_type"], a["size"]) for a in new["attachments"]] == [
            (a["name"], a["content_type"], a["size"]) for a in old["attachments"]
        ]
        assert new["content"] == (old["content"] if key == "C" else old["content"] + "\n\n")


def test_three_is_latin_1(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    response = client.get(raw_url(HASHES[2]))
    assert response.content.decode(response.charset_encoding or "ascii") == THREE.decode("latin-1")


def test_the_archiver_door_keeps_what_mailman_posted(engine, settings):
    """Through HTTP, as Mailman's plugin calls: the multipart upload's bytes come back from /raw."""
    from tests.archive.mailman.test_endpoints import make_client, post

    posted = raw_message("door@x", sender="Zoë <zoe@example.com>", subject="=?utf-8?q?Gr=C3=BC=C3=9Fe?=", body="é\r\n")
    with make_client(engine, settings) as client:
        answer = post(client, posted)
        assert answer.status_code == 200
        url = answer.json()["url"].removeprefix("http://sathub.test")
        assert client.get(url + "raw").content == posted
        assert client.get(url + "raw?download=1").headers["content-type"] == "message/rfc822"
