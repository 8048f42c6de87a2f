"""The headers of `raw` and `t.mbox.gz` as public-inbox 1.9 writes them (PublicInbox::Mbox mbox_hdr,
Hval to_filename): the answers it gave are in observed/ and test_door.py; these are its rules'
edges, read from its source. The thread public-inbox answers for a message, on the corpus (its
own index's, observed/threads.json.gz)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from sathub.archive.public_inbox.answers import file_name, raw_charset, thread_of
from sathub.archive.store import public_inbox
from sathub.archive.tables import mailing_lists
from tests.archive.corpus import CORPUS_GROUP, EDGE_LIST


@pytest.mark.parametrize(
    ("source", "charset"),
    [
        (b"Subject: x\n\nbody\n", "us-ascii"),  # no Content-Type: text/plain; charset=us-ascii
        (b"Content-Type: text/plain; charset=ISO-8859-1\n\nbody\n", "ISO-8859-1"),  # as written
        (b'Content-Type: text/plain; charset="utf-8"\n\nbody\n', "utf-8"),
        (b"Content-Type: text/plain\n\nbody\n", "UTF-8"),  # a Content-Type without one
        (b"Content-Type: text/plain; charset=a\\x0d\n\nbody\n", "UTF-8"),  # no header injection
    ],
)
def test_raw_charset(source, charset):
    assert raw_charset(source) == charset


@pytest.mark.parametrize(
    ("subject", "name"),
    [
        ("[Fedora-packaging] RPM macros", "Fedora-packaging-RPM-macros"),  # observed
        ("..a...b--", "a.b"),
        ("", "no-subject"),
        ("???", "no-subject"),
        ("first\nsecond", "first"),
    ],
)
def test_file_name(subject, name):
    assert file_name(subject) == name


OBSERVED_THREADS = Path(__file__).parent / "observed" / "threads.json.gz"


@CORPUS_GROUP
def test_thread_of_is_public_inbox_thread_on_the_corpus(corpus):
    """Every thread public-inbox 1.9 answers on three corpus lists (observed/README.md): each
    distinct set of Message-IDs, asked by one of the messages it answers for; 27 of the 1,123
    were joined through a References entry other than the parent, or a message never received."""
    observed = json.loads(gzip.decompress(OBSERVED_THREADS.read_bytes()))
    differ = []
    with corpus.engine.connect() as conn:
        for address, seen in observed.items():
            list_id = conn.scalar(sa.select(mailing_lists.c.id).where(mailing_lists.c.name == address))
            asker = {thread: number for number, thread in reversed(list(enumerate(seen["thread"])))}
            for thread, number in sorted(asker.items()):
                message = public_inbox.find_message(conn, [list_id], seen["messages"][number])
                theirs = [seen["messages"][index] for index in seen["threads"][thread]]
                if sorted(row.message_id for row in thread_of(conn, message)) != sorted(theirs):
                    differ.append(seen["messages"][number])
            assert len(asker) == {EDGE_LIST: 14, "python-committers@python.org": 1079}.get(address, 30)
    assert differ == []
