"""Message sources' SQL (sathub.archive.store.email_sources), both backends: the source of one
message as the import kept it, and the export's chunks (the size of each, the filters, the
attachments of the messages that have no source), on the hard cases of source_fixtures."""

from __future__ import annotations

from datetime import datetime
from functools import partial

from sathub import db
from sathub.archive.mail.kept_source import source_of
from sathub.archive.store import email_sources, lists
from tests.archive.api_fixtures import MAIL
from tests.archive.source_fixtures import ENVELOPES, HASHES, LIST, SOURCES, import_fixture


def chunks(engine, list_id, **filters) -> list[list[str]]:
    """The message_id_hash of each chunk's rows."""
    found = email_sources.export_chunks(partial(db.connect, engine), list_id, **filters)
    return [[row.message_id_hash for row in rows] for rows, _rebuilt in found]


def test_one_source_as_the_import_kept_it(engine, tmp_path):
    import_fixture(engine, tmp_path)
    with engine.connect() as conn:
        dev = lists.find_list(conn, LIST)
        for key, source, envelope in zip(HASHES, SOURCES, ENVELOPES, strict=True):
            row = email_sources.email_source(conn, dev.id, key)
            assert (source_of(row, []), row.size, row.envelope) == (source, len(source), envelope.decode())
        assert email_sources.email_source(conn, dev.id, "A" * 32) is None


def test_the_export_reads_a_small_chunk_first_then_bigger_ones(engine, tmp_path, monkeypatch):
    import_fixture(engine, tmp_path)
    monkeypatch.setattr(email_sources, "FIRST_CHUNK", 1)
    monkeypatch.setattr(email_sources, "EXPORT_CHUNK", 2)
    with engine.connect() as conn:
        dev = lists.find_list(conn, LIST)
    assert chunks(engine, dev.id) == [[HASHES[0]], [HASHES[1], HASHES[2]]]
    assert chunks(engine, None) == [[HASHES[0]], [HASHES[1], HASHES[2]]]  # every list's
    assert chunks(engine, dev.id, thread=HASHES[0]) == [[HASHES[0]], [HASHES[1]]]  # one and its reply
    assert chunks(engine, dev.id, message=HASHES[2]) == [[HASHES[2]]]
    assert chunks(engine, dev.id, start=datetime(2020, 1, 7), end=datetime(2020, 2, 1)) == [[HASHES[1]]]
    with engine.connect() as conn:
        ids = [row.id for row in (email_sources.email_source(conn, dev.id, key) for key in HASHES)]
    # A search's matches: slices of the ids given, a chunk at a time, however few each keeps.
    assert chunks(engine, dev.id, ids=[ids[0], ids[2]]) == [[HASHES[0]], [HASHES[2]]]
    assert chunks(engine, dev.id, ids=ids, thread=HASHES[0]) == [[HASHES[0]], [HASHES[1]]]
    assert chunks(engine, dev.id, ids=[]) == []


def test_mail_without_a_source_comes_with_what_rebuilds_it(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
    found = list(email_sources.export_chunks(partial(db.connect, engine), dev.id, message=MAIL["E"].hash))
    [([row], rebuilt)] = found
    assert row.data is None and (row.subject, row.content) == ("[dev] Report", "See attached.\n")
    assert [attachment.name for attachment in rebuilt[row.id]] == ["report.html", "signature.asc"]
