"""The whole real corpus of shared/data/mail/, imported once per backend for the whole session.

The corpus gets a database of its own (not the shared `engine` one, which other tests empty). The
fixture lives here and is registered once in tests/archive/conftest.py: a fixture imported into
several test modules is a fixture of each, and the corpus was imported once per module. Tests
that use it carry CORPUS_GROUP, so that under `pytest -n` (`--dist loadgroup`) one worker builds
it once per backend and runs them all."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

from sathub import db
from sathub.archive.ingest.importer import import_archive
from sathub.archive.ingest.summary import ImportSummary
from sathub.archive.tables import mailing_lists
from tests.conftest import BACKENDS, POSTGRES_URL, SHARED_DATA, fresh_postgres_database

CORPUS_GROUP = pytest.mark.xdist_group("corpus")

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
