"""Parsing in a helper process once the archive is big (sathub.archive.ingest.parsing)."""

from sathub.archive.ingest import parsing
from tests.archive.import_checks import check_threads, snapshot
from tests.archive.import_fixtures import archive, day, message, run


def test_a_helper_process_parses_big_archives_with_the_same_result(engine, tmp_path, monkeypatch):
    monkeypatch.setattr(parsing, "CHUNK", 3)
    monkeypatch.setattr(parsing, "IN_PLACE_CHUNKS", 2)  # messages 7 and later go to the helper
    messages = [message(f"m{n}", reply_to=f"m{n // 2}" if n else None, date=day(1 + n % 28)) for n in range(30)]
    path = archive(tmp_path, "a.mbox", *reversed(messages), messages[5])
    here = run(engine, path, list_name="here@example.org", parse_processes=0, batch_size=4)
    helper = run(engine, path, list_name="helper@example.org", parse_processes=1, batch_size=4)
    assert (here.imported, here.duplicates) == (helper.imported, helper.duplicates) == (30, 1)
    with engine.connect() as conn:
        assert check_threads(conn, "helper@example.org") == 30
        assert snapshot(conn, "helper@example.org") == snapshot(conn, "here@example.org")
