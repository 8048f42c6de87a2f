"""The real corpus (shared/data/mail: four public lists, 21,941 messages) and a database holding
it, shared by the export, search and peer benchmarks."""

from __future__ import annotations

import glob
from pathlib import Path

import sqlalchemy as sa

from bench.common import MAIL
from sathub import db
from sathub.archive.ingest.importer import import_archive
from sathub.archive.store import lists

CORPUS_LISTS = sorted(Path(p) for p in glob.glob(str(MAIL / "*.mbox.gz")))
BIG_LIST = "gpsd-dev@lists.berlios.de"


def corpus_engine(url: str) -> sa.Engine:
    """An engine on `url`, migrated, holding the corpus (imported first when its biggest list is
    not there)."""
    engine = db.create_engine(url)
    db.upgrade(engine)
    with engine.connect() as conn:
        found = lists.find_list(conn, BIG_LIST)
    if found is None:
        for path in CORPUS_LISTS:
            import_archive(engine, path.name.removesuffix(".mbox.gz"), [path])
    return engine
