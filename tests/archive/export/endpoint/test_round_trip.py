"""The round trip, proven on the whole corpus (shared/data/mail, 22,087 mbox messages in 5 lists):
every list is exported through the HTTP door, the exports are imported into a fresh database
(`--mboxrd`), and the new database answers the API as the old one does (lists, emails, threads,
senders, dates, texts, attachments), while every message's source is byte-identical to the
original file's and to the old database's. Python's mailbox.mbox reads each export back to the
same messages. Both backends; the corpus is the session's (tests/archive/corpus.py)."""

from __future__ import annotations

import mailbox
import zlib

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.archive.ingest.archive_files import RawMessage, read_archives
from sathub.archive.ingest.importer import import_archive
from sathub.archive.mail.dates import utc_now
from sathub.archive.mail.ids import clean_message_id, message_id_hash
from sathub.archive.mail.message import parse_email
from sathub.archive.tables import attachments, email_sources, emails, mailing_lists
from sathub.config import Settings
from tests.archive.corpus import CORPUS_GROUP, EXPECTED, sources
from tests.archive.source_fixtures import gunzip
from tests.conftest import POSTGRES_URL, fresh_postgres_database

BASE = "http://sathub.test"
pytestmark = CORPUS_GROUP
SAMPLE = 20  # every 20th thread and email is also compared through its detail endpoint


def client_of(engine, url: str) -> TestClient:
    settings = Settings(database_url=url, base_url=BASE, secret_key="test")
    return TestClient(create_app(settings, engine=engine), base_url=BASE)


@pytest.fixture(scope="module")
def round_trip(corpus, tmp_path_factory):
    """(old client, new client, the exports' bytes by list, the new engine)."""
    folder = tmp_path_factory.mktemp("exports")
    old_url = corpus.engine.url.render_as_string(hide_password=False)
    exports: dict[str, bytes] = {}
    with client_of(corpus.engine, old_url) as old:
        for name in EXPECTED:
            response = old.get(f"/archive/list/{name}/export/{name.split('@')[0]}.mbox.gz")
            assert response.status_code == 200
            exports[name] = gunzip(response.content)
            (folder / f"{name}.mbox").write_bytes(exports[name])
    drop = None
    if corpus.engine.dialect.name == "sqlite":
        url = f"sqlite:///{folder / 'again.db'}"
    else:
        url, drop = fresh_postgres_database(POSTGRES_URL)
    engine = db.create_engine(url)
    db.upgrade(engine)
    for name in EXPECTED:
        summary = import_archive(engine, name, [folder / f"{name}.mbox"], mboxrd=True)
        assert (summary.imported, summary.duplicates, summary.appended_pieces) == (EXPECTED[name][0], 0, 0)
    with client_of(corpus.engine, old_url) as old, client_of(engine, url) as new:
        yield old, new, exports, engine
    engine.dispose()
    if drop:
        drop()


def without_creation_time(body):
    """A list's `created_at` is when the database created it: the one thing a new database cannot share."""
    items = body if isinstance(body, list) else [body]
    for item in items:
        item.pop("created_at", None)
    return body


def same(old, new, path: str):
    before, after = old.get(path), new.get(path)
    assert (before.status_code, after.status_code) == (200, 200), path
    if ("/list/" in path and path.count("/") == 5) or path.endswith("/lists/"):
        assert without_creation_time(before.json()) == without_creation_time(after.json()), path
    else:
        assert before.content == after.content, path
    return before.json()


def test_every_api_answer_of_the_new_database_equals_the_old(round_trip):
    old, new, _, _ = round_trip
    same(old, new, "/archive/api/lists/")
    senders = set()
    for name in EXPECTED:
        api = f"/archive/api/list/{name}/"
        same(old, new, api)
        listed = same(old, new, api + "emails/")  # ids, threads, parents, children, senders, dates
        assert len(listed) == EXPECTED[name][0]
        threads = same(old, new, api + "threads/")
        for thread in threads[::SAMPLE]:
            same(old, new, f"{api}thread/{thread['thread_id']}/")
            same(old, new, f"{api}thread/{thread['thread_id']}/emails/")
        for email in listed[::SAMPLE]:
            same(old, new, f"{api}email/{email['message_id_hash']}/")  # content and attachments
        senders |= {email["sender"]["mailman_id"] for email in listed[::SAMPLE]}
    for mailman_id in sorted(senders)[:: SAMPLE * 3]:
        same(old, new, f"/archive/api/sender/{mailman_id}/emails/")


def stored(engine) -> dict[tuple[str, str], tuple]:
    """Every email's text, attachments and source, by (list, hash)."""
    found: dict[tuple[str, str], list] = {}
    by_id: dict[int, tuple[str, str]] = {}
    with engine.connect() as conn:
        query = (
            sa.select(
                mailing_lists.c.name, emails.c.id, emails.c.message_id_hash, emails.c.content, email_sources.c.data
            )
            .join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
            .outerjoin(email_sources, email_sources.c.email_id == emails.c.id)
        )
        for row in conn.execute(query):
            by_id[row.id] = (row.name, row.message_id_hash)
            found[by_id[row.id]] = [row.content, zlib.decompress(row.data), []]
        parts = sa.select(attachments).order_by(attachments.c.email_id, attachments.c.counter)
        for row in conn.execute(parts):
            found[by_id[row.email_id]][2].append((row.counter, row.name, row.content_type, row.encoding, row.content))
    return {key: (value[0], value[1], tuple(value[2])) for key, value in found.items()}


def test_every_text_attachment_and_source_is_the_same_and_the_sources_are_the_originals(corpus, round_trip):
    _, _, _, engine = round_trip
    before, after = stored(corpus.engine), stored(engine)
    assert len(before) == sum(expected[0] for expected in EXPECTED.values())
    assert before == after
    # Each source is the message as the original file holds it (the first copy of each Message-ID).
    originals: dict[tuple[str, str], bytes] = {}
    for name in EXPECTED:
        for item in read_archives(sources(name)):
            if isinstance(item, RawMessage):
                key = (name, parse_email(item.data, item.from_line, utc_now()).message_id_hash)
                originals.setdefault(key, item.data)
    assert {key: value[1] for key, value in before.items()} == {key: originals[key] for key in before}


def test_pythons_mailbox_reads_the_exports_back(round_trip, tmp_path):
    _, new, exports, _ = round_trip
    for name, data in exports.items():
        path = tmp_path / f"{name}.mbox"
        path.write_bytes(data)
        box = mailbox.mbox(path)
        listed = new.get(f"/archive/api/list/{name}/emails/").json()
        assert len(box) == EXPECTED[name][0] == len(listed)
        assert all(message.get_from() for message in box)  # every message has its From_ line
        hashes = {
            message_id_hash(clean_message_id(str(message["Message-ID"]))) for message in box if message["Message-ID"]
        }
        assert hashes <= {email["message_id_hash"] for email in listed}
        assert len(hashes) >= len(listed) - 2  # the edge list has messages without a Message-ID
