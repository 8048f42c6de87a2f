"""PostgreSQL's search index in partitions of email ids (migration 0033, store/search_partitions.py):
mail beyond the last partition is found, then carved out into partitions of its own; the writers
make the next partition ahead of the ids; processes that make partitions at once agree, and one
that cannot have its locks gives up without failing the write. (The searches a partition at a
time: test_search_spans.py.)"""

from __future__ import annotations

import logging
import threading

import pytest
import sqlalchemy as sa

from sathub import db
from sathub.archive.mailman import live_ingest
from sathub.archive.search.query import parse
from sathub.archive.store import search, search_partitions, search_spans
from sathub.archive.store.listing import Page
from sathub.archive.store.search_partitions import BEYOND, SPAN, keep_ahead, make_partitions, partitions
from tests.archive.api_fixtures import seed_archive
from tests.conftest import BACKENDS, migrate, scratch_engine

pytestmark = pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)  # PostgreSQL


@pytest.fixture
def partitioned(database_url, tmp_path):
    """A new database at the head, its search index's partitions and largest id read afresh by
    every statement (search_pg keeps them a second)."""
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "head")
        yield engine


@pytest.fixture(autouse=True)
def fresh_reads(monkeypatch):
    monkeypatch.setattr(search_spans, "_TOP_SECONDS", 0)
    monkeypatch.setattr(search_partitions, "CHECK_SECONDS", 0)


def repartition(engine, span: int) -> None:
    """The index's rows moved into partitions of `span` ids from its first (below it one partition,
    empty; the default partition kept, empty)."""
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE held AS SELECT * FROM email_search")
        for partition in partitions(conn):
            conn.exec_driver_sql(f"DROP TABLE {partition.name}")
        conn.exec_driver_sql("DELETE FROM email_search")
        low, top = conn.exec_driver_sql("SELECT min(email_id), max(email_id) FROM held").one()
        low -= low % span
        for first, after in [(0, low), *((first, first + span) for first in range(low, top + 1, span))]:
            if after > first:
                bounds = f"FOR VALUES FROM ({first}) TO ({after})"
                conn.exec_driver_sql(f"CREATE TABLE email_search_{first} PARTITION OF email_search {bounds}")
        conn.exec_driver_sql("INSERT INTO email_search SELECT * FROM held")
        conn.exec_driver_sql("DROP TABLE held")


def store_one(engine, number: int, address: str = "dev@example.org") -> None:
    raw = (
        f"From: someone@example.org\nTo: {address}\nSubject: partition {number}\n"
        f"Message-ID: <partition-{number}@example.org>\nDate: Mon, 1 Mar 2021 10:00:00 +0000\n\n"
        "quasar text\n"
    ).encode()
    live_ingest.store_alone(engine, address, live_ingest.parse(raw))


def ids_of(engine, query: str) -> list[int]:
    with db.connect(engine) as conn:
        found = search.search(conn, parse(query), sort="relevance", page=Page(100, 0), count_limit=3)
    return [row.id for row in found.rows]


def test_mail_beyond_the_partitions_is_found_then_carved_out_into_its_own(partitioned, monkeypatch):
    seed_archive(partitioned)
    monkeypatch.setattr(live_ingest, "keep_ahead", lambda engine: None)  # as if the writer had stopped
    with partitioned.begin() as conn:
        conn.exec_driver_sql(f"SELECT setval('emails_id_seq', {2 * SPAN + 10})")
    for number in range(3):
        store_one(partitioned, number)
    with db.connect(partitioned) as conn:
        beyond = list(conn.scalars(sa.text(f"SELECT email_id FROM {BEYOND} ORDER BY email_id DESC")))
        assert beyond == [2 * SPAN + 13, 2 * SPAN + 12, 2 * SPAN + 11]
        assert [p.first for p in partitions(conn)] == [0, SPAN]
    assert ids_of(partitioned, "quasar") == beyond  # found there, the newest first
    with partitioned.begin() as conn:
        make_partitions(conn)
    with db.connect(partitioned) as conn:
        # Up to the one after the next id's (2 * SPAN + 14): the default partition is empty again.
        assert [p.first for p in partitions(conn)] == [0, SPAN, 2 * SPAN, 3 * SPAN]
        assert conn.scalar(sa.text(f"SELECT count(*) FROM {BEYOND}")) == 0
        assert list(conn.scalars(sa.text(f"SELECT email_id FROM email_search_{2 * SPAN} ORDER BY email_id"))) == sorted(
            beyond
        )
        # Each new partition as the migration makes them: no statistics of the tsvectors, every index.
        targets = conn.execute(
            sa.text(
                "SELECT attstattarget FROM pg_attribute WHERE attrelid = :name ::regclass "
                "AND attname IN ('heading', 'document')"
            ),
            {"name": f"email_search_{3 * SPAN}"},
        )
        assert [row[0] for row in targets] == [0, 0]
        indexes = conn.scalars(
            sa.text("SELECT indexdef FROM pg_indexes WHERE tablename = :name"), {"name": f"email_search_{2 * SPAN}"}
        )
        assert sorted(" ".join(i.split(" USING ")[1:]) for i in indexes) == [
            "btree (date)",
            "btree (email_id)",
            "gin (document, ((email_id + 0)), ((date + '00:00:00'::interval)))",
            "gin (heading, ((email_id + 0)), ((date + '00:00:00'::interval)))",
        ]
    assert ids_of(partitioned, "quasar") == beyond


def test_a_writer_makes_the_next_partition_before_mail_reaches_it(partitioned, caplog):
    seed_archive(partitioned)
    with partitioned.begin() as conn:
        conn.exec_driver_sql(f"SELECT setval('emails_id_seq', {SPAN + SPAN // 2})")
    store_one(partitioned, 1)  # its id is in the second partition: the third is made
    with db.connect(partitioned) as conn:
        assert [p.first for p in partitions(conn)] == [0, SPAN, 2 * SPAN]
    # Another process holds what making one needs: the write is stored all the same, and a later one makes it.
    with partitioned.begin() as conn:
        conn.exec_driver_sql(f"SELECT setval('emails_id_seq', {2 * SPAN + SPAN // 2})")
    holding = partitioned.connect()
    holding.exec_driver_sql("LOCK TABLE email_search IN SHARE UPDATE EXCLUSIVE MODE")
    with caplog.at_level(logging.INFO, logger=search_partitions.__name__):
        store_one(partitioned, 2)
    assert "not made this time" in caplog.text
    holding.rollback()
    holding.close()
    assert ids_of(partitioned, "s:partition") == [2 * SPAN + SPAN // 2 + 1, SPAN + SPAN // 2 + 1]
    keep_ahead(partitioned)
    with db.connect(partitioned) as conn:
        assert [p.first for p in partitions(conn)] == [0, SPAN, 2 * SPAN, 3 * SPAN]


def test_processes_making_partitions_at_once_make_each_once(partitioned):
    with partitioned.begin() as conn:
        conn.exec_driver_sql(f"SELECT setval('emails_id_seq', {3 * SPAN})")
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def make() -> None:
        try:
            start.wait()
            with partitioned.begin() as conn:
                make_partitions(conn)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=make) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with db.connect(partitioned) as conn:
        # One took the lock and made them; one that found it taken made none, nor failed.
        assert [p.first for p in partitions(conn)] == [0, SPAN, 2 * SPAN, 3 * SPAN, 4 * SPAN]
