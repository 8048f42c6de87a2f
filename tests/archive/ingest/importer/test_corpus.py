"""The whole real corpus of shared/data/mail/ (22,087 mbox messages), imported once per backend.

The corpus gets a database of its own (tests/archive/corpus.py), built once per session for SQLite
and, when SATHUB_TEST_POSTGRES_URL is set, PostgreSQL.

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

import random
import re

import pytest
import sqlalchemy as sa

from sathub.archive.ingest.archive_files import RawMessage, read_archives
from sathub.archive.ingest.importer import import_archive
from sathub.archive.ingest.summary import ImportSummary
from sathub.archive.mail.message import parse_email
from sathub.archive.tables import emails, mailing_lists, senders, threads
from tests.archive.corpus import CORPUS_GROUP, EDGE_LIST, EXPECTED, MAIL, extra_list, sources
from tests.archive.import_checks import check_threads, list_id, snapshot

pytestmark = CORPUS_GROUP


def counts(summary: ImportSummary) -> tuple[int, int, int, int]:
    return summary.imported, summary.duplicates, summary.appended_pieces, sum(summary.skipped.values())


def test_every_file_imports_with_the_expected_counts(corpus):
    assert {name: counts(summary) for name, summary in corpus.summaries.items()} == EXPECTED
    assert dict(corpus.summaries[EDGE_LIST].skipped) == {"text before the first From line (not an mbox message)": 1}
    with corpus.engine.connect() as conn:
        stored = dict(
            iter(
                conn.execute(
                    sa.select(mailing_lists.c.name, sa.func.count(emails.c.id))
                    .join(emails, emails.c.list_id == mailing_lists.c.id)
                    .group_by(mailing_lists.c.name)
                )
            )
        )
    assert stored == {name: expected[0] for name, expected in EXPECTED.items()}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_threads_follow_every_rule(corpus, name):
    with corpus.engine.connect() as conn:
        assert check_threads(conn, name) == EXPECTED[name][0]


def test_what_the_readme_says_is_in_the_corpus(corpus):
    with corpus.engine.connect() as conn:
        esr = conn.execute(
            sa.select(sa.func.count()).select_from(emails.join(senders)).where(senders.c.address == "esr@thyrsus.com")
        ).scalar_one()
        assert esr == 3498  # across the two gpsd lists
        gpsd = sa.select(emails.c.message_id_hash).join(mailing_lists).where(mailing_lists.c.name.like("gpsd-%"))
        cross_posted = conn.execute(
            sa.select(sa.func.count()).select_from(
                gpsd.group_by(emails.c.message_id_hash).having(sa.func.count() > 1).subquery()
            )
        ).scalar_one()
        assert cross_posted == 517
        biggest = conn.execute(
            sa.select(threads.c.subject, threads.c.emails_count).order_by(threads.c.emails_count.desc()).limit(3)
        ).all()
        assert biggest == [
            ("[python-committers] Transfer of power", 109),
            ("[python-committers] Anatoly Techtonik's contribution", 105),
            ("[Gpsd-dev] Input packets buffering bug(s)", 97),
        ]
        encoded = conn.execute(
            sa.select(sa.func.count()).select_from(emails).where(emails.c.subject.like("%=?%?=%"))
        ).scalar_one()
        assert encoded == 0  # every RFC 2047 subject decoded


def test_reimporting_the_corpus_adds_nothing(corpus):
    with corpus.engine.connect() as conn:
        before = [
            conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            for table in (emails, threads, senders, mailing_lists)
        ]
        edge_before = snapshot(conn, EDGE_LIST)
    for name, (imported, duplicates, _, _) in EXPECTED.items():
        again = import_archive(corpus.engine, name, sources(name))
        assert (again.imported, again.duplicates, again.corrected) == (0, imported + duplicates, 0)
    with corpus.engine.connect() as conn:
        assert [
            conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            for table in (emails, threads, senders, mailing_lists)
        ] == before
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
            assert (
                conn.execute(
                    sa.select(sa.func.count()).select_from(emails).where(emails.c.list_id == list_id(conn, name))
                ).scalar_one()
                == 6
            )


PIPERMAIL = ("gpsd-dev@lists.berlios.de", "gpsd-users@lists.berlios.de", "python-committers@python.org")


def test_thread_counts_of_the_corpus(corpus):
    """HyperKitty shows 1,797 and 1,231 threads for gpsd-users and python-committers: it keeps
    late-parent orphans and pipermail pieces as threads of their own (docs/archive-api.md)."""
    with corpus.engine.connect() as conn:
        counts = dict(
            iter(
                conn.execute(
                    sa.select(mailing_lists.c.name, sa.func.count(threads.c.id))
                    .join(threads, threads.c.list_id == mailing_lists.c.id)
                    .group_by(mailing_lists.c.name)
                )
            )
        )
    assert counts["gpsd-users@lists.berlios.de"] == 1771
    assert counts["python-committers@python.org"] == 1207


def test_every_pipermail_sender_name_is_its_address(corpus):
    """`From: esr at thyrsus.com (Eric S. Raymond)`: a comment is no display name (Header rules 1)."""
    with corpus.engine.connect() as conn:
        named = conn.execute(
            sa.select(sa.func.count())
            .select_from(emails.join(mailing_lists))
            .where(mailing_lists.c.name.in_(PIPERMAIL), emails.c.sender_name != emails.c.sender_address)
        ).scalar_one()
        total = conn.execute(
            sa.select(sa.func.count())
            .select_from(emails.join(mailing_lists))
            .where(mailing_lists.c.name.in_(PIPERMAIL))
        ).scalar_one()
    assert (named, total) == (0, 9567 + 5548 + 6777)


def test_two_spellings_of_one_address_share_one_mailman_id(corpus):
    """gpsd-dev writes `crocker at cavs.msstate.edu`, gpsd-users once `crocker at CAVS.MsState.Edu`."""
    with corpus.engine.connect() as conn:
        spellings = conn.execute(
            sa.select(emails.c.sender_address, senders.c.mailman_id)
            .join(senders, senders.c.id == emails.c.sender_id)
            .where(sa.func.lower(emails.c.sender_address) == "crocker@cavs.msstate.edu")
            .distinct()
            .order_by(emails.c.sender_address)
        ).all()
    assert spellings == [
        ("crocker@CAVS.MsState.Edu", "46010e59481c5f72b9f009d7b1c8adf7"),
        ("crocker@cavs.msstate.edu", "46010e59481c5f72b9f009d7b1c8adf7"),
    ]


FORMAT_PATCH = re.compile(rb"^From ([0-9a-f]{40}) Mon Sep 17 00:00:00 2001$", re.MULTILINE)
MESSAGE_ID = re.compile(rb"^Message-ID: <([^>]+)>$", re.MULTILINE)


def test_format_patch_pieces_are_appended_to_the_message_before_them(corpus):
    """The 8 `git format-patch` texts pasted into gpsd-dev bodies (after pipermail's
    `-------------- next part --------------`, so not in `content`) belong to the message before them."""
    patches = {}
    for item in read_archives(sources("gpsd-dev@lists.berlios.de")):
        if isinstance(item, RawMessage):
            for commit in FORMAT_PATCH.findall(item.data):
                patches[commit[:7].decode()] = MESSAGE_ID.search(item.data).group(1).decode()
    assert patches == {
        "5d6b028": "Pine.OSF.4.61.0908291947220.405409@sirppi.helsinki.fi",
        "0a0f2d2": "Pine.OSF.4.61.0908291947220.405409@sirppi.helsinki.fi",
        "58c78a2": "Pine.OSF.4.61.0908291947220.405409@sirppi.helsinki.fi",
        "2bccb1d": "Pine.OSF.4.61.1004170725190.38183@sirppi.helsinki.fi",
        "0209bb1": "Pine.OSF.4.61.1004170725190.38183@sirppi.helsinki.fi",
        "664f9f9": "Pine.OSF.4.61.1004170725190.38183@sirppi.helsinki.fi",
        "2231411": "Pine.OSF.4.61.1004170725190.38183@sirppi.helsinki.fi",
        "c63dff1": "rmilj81fnnx.fsf@fnord.ir.bbn.com",
    }
    with corpus.engine.connect() as conn:
        patch_subjects = conn.execute(
            sa.select(sa.func.count())
            .select_from(emails)
            .where(emails.c.subject == "[PATCH] Shuffle children of <tgroup> to conform to DocBook.")
        ).scalar_one()
        content = conn.execute(
            sa.select(emails.c.content).where(
                emails.c.message_id == "Pine.OSF.4.61.0908291947220.405409@sirppi.helsinki.fi"
            )
        ).scalar_one()
    assert patch_subjects == 0
    assert content.endswith("build for me using xmlto 0.0.20 and DocBook 4.5.\n\nJoonas\n")
