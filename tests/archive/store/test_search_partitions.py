"""PostgreSQL's search index in partitions of email ids (migration 0033, store/search_partitions.py,
search_pg.by_partitions): a search asked a partition at a time, newest first, finds every match's
newest, mail beyond the last partition included; the writers make the next partition ahead of the
ids and carve out what reached the default partition; processes that make partitions at once
agree, and one that cannot have its locks gives up without failing the write."""

from __future__ import annotations

import logging
import threading

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from sathub import db
from sathub.archive.mailman import live_ingest
from sathub.archive.search.query import parse
from sathub.archive.store import search, search_partitions, search_pg
from sathub.archive.store.listing import Page
from sathub.archive.store.search_partitions import BEYOND, SPAN, keep_ahead, make_partitions, partitions
from sathub.archive.store.search_pg import PostgresSearch
from tests.archive.api_fixtures import seed_archive, seed_big_list
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
    monkeypatch.setattr(search_pg, "_TOP_SECONDS", 0)
    monkeypatch.setattr(search_partitions, "CHECK_SECONDS", 0)


def repartition(engine, span: int) -> None:
    """The index's rows moved into partitions of `span` ids (the default partition kept, empty)."""
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE held AS SELECT * FROM email_search")
        for partition in partitions(conn):
            conn.exec_driver_sql(f"DROP TABLE {partition.name}")
        conn.exec_driver_sql("DELETE FROM email_search")
        top = conn.exec_driver_sql("SELECT max(email_id) FROM held").scalar_one()
        for first in range(0, top + 1, span):
            bounds = f"FOR VALUES FROM ({first}) TO ({first + span})"
            conn.exec_driver_sql(f"CREATE TABLE email_search_{first} PARTITION OF email_search {bounds}")
        conn.exec_driver_sql("INSERT INTO email_search SELECT * FROM held")
        conn.exec_driver_sql("DROP TABLE held")


def newest_of_every_match(conn, spans) -> list[int]:
    """Every match, newest first: the span statement with no bound, read whole."""
    return list(conn.scalars(spans.within.limit(None), {"bound": 0}))


def statements_of(engine, ran: list[str]):
    event.listen(engine, "before_cursor_execute", lambda *args: ran.append(args[2]))


def test_asked_a_partition_at_a_time_newest_first_a_search_finds_every_matchs_newest(partitioned):
    seed_big_list(partitioned, replies=22)
    repartition(partitioned, 7)
    with db.connect(partitioned) as conn:
        assert len(partitions(conn)) == 7  # ids 1-45
        known = search_pg._read(conn)
        for query in ("text", "s:big", "zzzznothing"):
            spans = PostgresSearch().spans([parse(query)], [], [], None, "relevance")
            every = newest_of_every_match(conn, spans)
            for needed in (1, 3, 20, 23, 45, 46):
                assert search_pg.by_partitions(conn, spans, needed, known) == every[:needed], (query, needed)
        # The partitions not needed are not asked: the newest holds the first three of "text".
        ran: list[str] = []
        statements_of(partitioned, ran)
        spans = PostgresSearch().spans([parse("text")], [], [], None, "relevance")
        every_text = search_pg.by_partitions(conn, spans, 3, known)
        assert len(ran) == 1
    # Mail that arrived since the partitions and the largest id were read (kept a second), beyond
    # the last partition, is found first all the same.
    with partitioned.begin() as conn:
        conn.exec_driver_sql("SELECT setval('emails_id_seq', 60)")
    store_one(partitioned, 1, "big@example.org")
    with db.connect(partitioned) as conn:
        assert search_pg.by_partitions(conn, spans, 2, known) == [61, every_text[0]]
        # By date the dates decide, not the ids: the match is read whole (None).
        by_date = PostgresSearch().spans([parse("text")], [], [], None, "date-desc")
        assert search_pg.by_partitions(conn, by_date, 3, known) is None


@pytest.mark.parametrize("sort", ["relevance", "date-desc"])
def test_pages_read_by_partitions_are_the_pages_of_every_match_read(partitioned, sort):
    """A count limit reads the matches as far as needed (here a partition at a time: the spans
    would hold more than half the mail); the pages, counts and `more` are those of the statement
    that reads every match."""
    seed_big_list(partitioned, replies=22)
    seed_archive(partitioned)
    repartition(partitioned, 5)
    with db.connect(partitioned) as conn:
        for query in ("text", "s:big", "welcome", "f:busy@example.org -s:big", "zzzznothing"):
            for offset, limit in ((0, 10), (5, 10), (40, 10), (0, 100)):
                page = Page(limit, offset)
                capped = search.search(conn, parse(query), sort=sort, page=page, count_limit=12)
                every = search.search(conn, parse(query), sort=sort, page=page)
                assert [row.id for row in capped.rows] == [row.id for row in every.rows], (query, offset)
                assert capped.scores == pytest.approx(every.scores)
                assert capped.more == every.more
                assert (capped.count, capped.count_exact) == (min(every.count, 12), every.count <= 12)


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
