"""The whole real corpus of shared/data/mail/ (22,087 mbox messages), imported once per backend.

The corpus gets a database of its own (not the shared `engine` one, which other tests empty),
built once per session for SQLite and, when SATHUB_TEST_POSTGRES_URL is set, PostgreSQL.

Expected counts, per file (mbox messages = imported + duplicates + appended pieces + skipped):
- gpsd-dev: 9,660 = 9,567 + 64 + 29. HyperKitty archives 9,596: it also archives the 29 pieces
  cut from bodies at unescaped "From " lines as emails of their own (21 header-less pieces and 8
  patches pasted from `git format-patch`, whose "From <commit> Mon Sep 17 00:00:00 2001" line
  cut the body); we append them to the message they belong to (archive-api.md, Importing).
- gpsd-users: 5,569 = 5,548 + 17 + 4 (HyperKitty 5,552 = 5,548 + the 4 pieces).
- python-committers: 6,783 = 6,777 + 1 + 5 (HyperKitty 6,782 = 6,777 + the 5 pieces).
- 3GPP: 50 = 49 + 1 (as HyperKitty).
- edge/ (21 files into edge@example.com): 25 = 15 + 10 duplicates, and attachment-1.txt, which has
  no "From " line, is reported as skipped text (no message). Six files reuse `<msg@id>` and four
  `<msg1>`, so only the first of each is kept. HyperKitty archives 14: it fails on one of the
  15 distinct messages, which we decode leniently.
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

from sathub import db
from sathub.archive.importing.importer import import_archive
from sathub.archive.importing.sources import RawMessage, read_archives
from sathub.archive.importing.summary import ImportSummary
from sathub.archive.mail.message import parse_email
from sathub.archive.tables import emails, mailing_lists, senders, threads
from tests.archive.import_checks import check_threads, list_id, snapshot
from tests.conftest import BACKENDS, POSTGRES_URL, SHARED_DATA, fresh_postgres_database

MAIL = SHARED_DATA / "mail"
EDGE_LIST = "edge@example.com"
# list -> (imported, duplicates, appended pieces, skipped)
EXPECTED = {
    "3gpp_tsg_sa_wg4_evs@list.etsi.org": (49, 1, 0, 0),
    "gpsd-dev@lists.berlios.de": (9567, 64, 29, 0),
    "gpsd-users@lists.berlios.de": (5548, 17, 4, 0),
    "python-committers@python.org": (6777, 1, 5, 0),
    EDGE_LIST: (15, 10, 0, 1),
}


def sources(name: str) -> list[Path]:
    return [MAIL / "edge"] if name == EDGE_LIST else [MAIL / f"{name}.mbox.gz"]


@dataclass
class Corpus:
    engine: sa.Engine
    summaries: dict[str, ImportSummary]


@pytest.fixture(scope="session", params=BACKENDS)
def corpus(request, tmp_path_factory):
    drop = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('corpus') / 'corpus.db'}"
    else:
        url, drop = fresh_postgres_database(POSTGRES_URL)
    engine = db.create_engine(url)
    db.upgrade(engine)
    summaries = {name: import_archive(engine, name, sources(name)) for name in EXPECTED}
    yield Corpus(engine, summaries)
    engine.dispose()
    if drop:
        drop()


@contextlib.contextmanager
def extra_list(corpus: Corpus, name: str):
    """A list imported by one test only, deleted afterwards so the other tests see the corpus."""
    try:
        yield name
    finally:
        with corpus.engine.begin() as conn:
            conn.execute(mailing_lists.delete().where(mailing_lists.c.name == name))


def counts(summary: ImportSummary) -> tuple[int, int, int, int]:
    return summary.imported, summary.duplicates, summary.appended_pieces, sum(summary.skipped.values())


def test_every_file_imports_with_the_expected_counts(corpus):
    assert {name: counts(summary) for name, summary in corpus.summaries.items()} == EXPECTED
    assert dict(corpus.summaries[EDGE_LIST].skipped) == {"text before the first From line (not an mbox message)": 1}
    with corpus.engine.connect() as conn:
        stored = dict(iter(conn.execute(sa.select(mailing_lists.c.name, sa.func.count(emails.c.id))
                                        .join(emails, emails.c.list_id == mailing_lists.c.id)
                                        .group_by(mailing_lists.c.name))))
    assert stored == {name: expected[0] for name, expected in EXPECTED.items()}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_threads_follow_every_rule(corpus, name):
    with corpus.engine.connect() as conn:
        assert check_threads(conn, name) == EXPECTED[name][0]


def test_what_the_readme_says_is_in_the_corpus(corpus):
    with corpus.engine.connect() as conn:
        esr = conn.execute(sa.select(sa.func.count()).select_from(emails.join(senders))
                           .where(senders.c.address == "esr@thyrsus.com")).scalar_one()
        assert esr == 3498  # across the two gpsd lists
        gpsd = sa.select(emails.c.message_id_hash).join(mailing_lists).where(mailing_lists.c.name.like("gpsd-%"))
        cross_posted = conn.execute(sa.select(sa.func.count()).select_from(
            gpsd.group_by(emails.c.message_id_hash).having(sa.func.count() > 1).subquery())).scalar_one()
        assert cross_posted == 517
        biggest = conn.execute(sa.select(threads.c.subject, threads.c.emails_count)
                               .order_by(threads.c.emails_count.desc()).limit(3)).all()
        assert biggest == [("[python-committers] Transfer of power", 109),
                           ("[python-committers] Anatoly Techtonik's contribution", 105),
                           ("[Gpsd-dev] Input packets buffering bug(s)", 97)]
        encoded = conn.execute(sa.select(sa.func.count()).select_from(emails)
                               .where(emails.c.subject.like("%=?%?=%"))).scalar_one()
        assert encoded == 0  # every RFC 2047 subject decoded


def test_reimporting_the_corpus_adds_nothing(corpus):
    with corpus.engine.connect() as conn:
        before = [conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                  for table in (emails, threads, senders, mailing_lists)]
        edge_before = snapshot(conn, EDGE_LIST)
    for name, (imported, duplicates, _, _) in EXPECTED.items():
        again = import_archive(corpus.engine, name, sources(name))
        assert (again.imported, again.duplicates) == (0, imported + duplicates)
    with corpus.engine.connect() as conn:
        assert [conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                for table in (emails, threads, senders, mailing_lists)] == before
        assert snapshot(conn, EDGE_LIST) == edge_before


def test_threads_do_not_depend_on_the_order_of_the_messages(corpus, tmp_path):
    """python-committers, every message in a random order (most replies before their parents),
    in small batches, gives the same threads as the archive's own order."""
    name = "python-committers@python.org"
    first_copies = {}
    for item in read_archives(sources(name)):
        if isinstance(item, RawMessage):
            key = parse_email(item.data, item.from_line, None).message_id_hash
            first_copies.setdefault(key, item)
    shuffled = list(first_copies.values())
    random.Random(2024).shuffle(shuffled)
    path = tmp_path / "shuffled.mbox"
    with open(path, "wb") as out:
        for item in shuffled:
            out.write(item.from_line.encode("latin-1") + b"\n" + item.data + b"\n")
    with extra_list(corpus, "shuffled@python.org") as shuffled_list:
        summary = import_archive(corpus.engine, shuffled_list, [path], batch_size=97)
        assert (summary.imported, summary.duplicates) == (6777, 0)
        with corpus.engine.connect() as conn:
            assert check_threads(conn, shuffled_list) == 6777
            assert snapshot(conn, shuffled_list) == snapshot(conn, name)


def test_private_list_mail_is_never_public(corpus):
    with extra_list(corpus, "secret@example.com") as name:
        import_archive(corpus.engine, name, [MAIL / "edge" / "non-ascii-headers.txt"], private=True)
        with corpus.engine.connect() as conn:
            policies = dict(iter(conn.execute(sa.select(mailing_lists.c.name, mailing_lists.c.archive_policy))))
            assert policies.pop(name) == "private"
            assert set(policies.values()) == {"public"}
            assert conn.execute(sa.select(sa.func.count()).select_from(emails)
                                .where(emails.c.list_id == list_id(conn, name))).scalar_one() == 6
