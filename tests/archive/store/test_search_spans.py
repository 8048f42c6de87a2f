"""PostgreSQL: a search's matches read in its order as far as they are needed
(archive/store/search_spans.py): what span_matches finds is every match's newest (sorted whole
here), by spans of ids widened as far as needed and a partition at a time newest first
(migration 0033), with a stale largest id, and with mail beyond the partitions; the pages it
gives are those of the statement that reads every match."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from sathub import db
from sathub.archive.removal.operations import DELETE, HIDE, run, scope_of
from sathub.archive.search.query import And, Not, parse
from sathub.archive.store import search, search_spans
from sathub.archive.store.listing import Page
from sathub.archive.store.search_partitions import partitions
from sathub.archive.store.search_pg import PostgresSearch
from sathub.archive.tables import emails
from tests.archive.api_fixtures import MAIL, seed_archive, seed_big_list
from tests.archive.corpus import CORPUS_GROUP
from tests.archive.store.test_search_partitions import partitioned, repartition, store_one
from tests.conftest import BACKENDS

__all__ = ["partitioned"]  # the fixture, shared with the partitions' tests


@pytest.fixture(autouse=True)
def fresh_largest_id():
    """Each test's spans start from the index's largest id as it is: span_matches keeps it a second
    per engine, and a test's engine may be an earlier test's, whose mail was another."""
    search_spans._known.clear()


def force_spans(monkeypatch) -> None:
    """span_matches asks spans of up to all the mail and never chooses to read a match whole."""
    monkeypatch.setattr(search_spans, "_WHOLE", 0)
    monkeypatch.setattr(search_spans, "_HALF", 1)


def spans_of(query: str, sort: str = "relevance"):
    tree = parse(query)
    items = list(tree.items) if isinstance(tree, And) else [tree]
    text = [item for item in items if not isinstance(item, Not)]
    negated = [item for item in items if isinstance(item, Not)]
    return PostgresSearch().spans(text, negated, [], None, sort)


def every_match(conn, spans) -> list[int]:
    """Every match, newest first: the statement of a range's matches, on the index from id 0."""
    return spans.every.ids(conn, "email_search", first=0, needed=10**9)


@CORPUS_GROUP
@pytest.mark.parametrize("corpus", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("query", ["gpsd", "ephemeris", "s:release", "gpsd -python", "ntp OR chrony", "zzzznothing"])
def test_matches_read_newest_first_are_every_matchs_newest(corpus, query, monkeypatch):
    """span_matches widens its span of ids until it holds what is needed (spans forced: the corpus
    is small), or reads the range whole: what it finds are every match's newest. None only when
    the archive is smaller than the first span (the caller reads the match whole)."""
    force_spans(monkeypatch)
    spans = spans_of(query)
    with db.connect(corpus.engine) as conn:
        every = every_match(conn, spans)
        assert every == sorted(every, reverse=True)
        answers = {needed: search_spans.span_matches(conn, spans, needed) for needed in (1, 7, 1001, 10_001)}
        top = conn.scalar(sa.text("SELECT max(email_id) FROM email_search"))
    for needed, found in answers.items():
        assert found == (None if 2 * needed >= top else every[:needed]), needed


@CORPUS_GROUP
@pytest.mark.parametrize("corpus", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("sort", ["relevance", "date-desc", "date-asc"])
@pytest.mark.parametrize("query", ["gpsd", "ephemeris", "s:release", "gps time", "gpsd -python"])
@pytest.mark.parametrize("spans", [False, True], ids=["as set", "spans forced"])
def test_pages_read_by_spans_are_the_pages_of_every_match_read(corpus, query, sort, spans, monkeypatch):
    """With a count limit, the matches are read in the search's order a span at a time as far as
    needed, or whole (as set, the corpus is read whole: a span of 20,002 is most of it); the pages
    (rows, scores, whether more follow) are those of the statement that reads every match (no
    count limit): by relevance in the ranked window, across its end and past it, by date at the
    start and deep."""
    if spans:
        force_spans(monkeypatch)
    with db.connect(corpus.engine) as conn:
        for offset in (0, 995, 5000):
            page = Page(10, offset)
            capped = search.search(conn, parse(query), sort=sort, page=page, count_limit=10_000)
            every = search.search(conn, parse(query), sort=sort, page=page)
            assert [row.id for row in capped.rows] == [row.id for row in every.rows], offset
            assert capped.scores == pytest.approx(every.scores), offset
            assert capped.more == every.more
            assert (capped.count, capped.count_exact) == (min(every.count, 10_000), every.count <= 10_000)


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("whole", [search_spans._WHOLE, 0], ids=["as set", "never whole"])
def test_a_span_is_widened_until_it_holds_what_is_needed(engine, whole, monkeypatch):
    """big@example.org's 45 emails hold "text", the newest ids: a span of twice the matches needed
    holds them; more than there are gives every one. Spans of up to all the mail are asked here
    (_HALF 1), as a large archive's are of its newest part."""
    monkeypatch.setattr(search_spans, "_WHOLE", whole)
    monkeypatch.setattr(search_spans, "_HALF", 1)
    with engine.begin() as conn:  # ids 1001-1045: an archive larger than the spans asked
        conn.exec_driver_sql("SELECT setval('emails_id_seq', 1000)")
    seed_big_list(engine, replies=22)
    newest = spans_of("text")
    with db.connect(engine) as conn:
        every = list(conn.scalars(sa.select(emails.c.id).order_by(emails.c.id.desc())))
        assert len(every) == 45
        for needed in (1, 3, 20, 22, 46):
            assert search_spans.span_matches(conn, newest, needed) == every[:needed], needed
        # The thread's 23, older than the 22 single emails: the first spans hold none of them.
        big = list(conn.scalars(sa.select(emails.c.id).where(emails.c.subject == "Big").order_by(emails.c.id.desc())))
        assert len(big) == 23 and big[0] < min(set(every) - set(big))
        ran: list[str] = []
        event.listen(engine, "before_cursor_execute", lambda *args: ran.append(args[2]))
        assert search_spans.span_matches(conn, spans_of("s:big"), 2) == big[:2]
        # As set, the first span (4 ids) says the match is sparse: the range is read whole next;
        # never whole, the span is widened (4, 10, 25 ids: at least twice, a quarter over what the
        # matches found say, none) until it holds two.
        assert len(ran) == (2 if whole else 3)
        assert search_spans.span_matches(conn, spans_of("zzzznothing"), 3) == []
        # As set, a span of more than half the ids is not asked: the match is read whole (None).
        monkeypatch.setattr(search_spans, "_HALF", 2)
        ran.clear()
        assert search_spans.span_matches(conn, newest, every[0] // 4 + 1) is None
        assert ran == []


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
def test_a_stale_largest_id_changes_the_spans_not_what_they_find(engine, monkeypatch):
    """The largest id is read again only after _TOP_SECONDS: mail that arrived since (the largest id
    read as a middle one's) or was deleted (read as larger than any) still gives the newest matches."""
    force_spans(monkeypatch)
    seed_big_list(engine, replies=22)
    newest = spans_of("text")
    with db.connect(engine) as conn:
        every = list(conn.scalars(sa.select(emails.c.id).order_by(emails.c.id.desc())))
        for stale in (every[len(every) // 2], every[0] + 1_000):
            search_spans._known[engine] = search_spans._Known(time.monotonic(), stale, partitions(conn))
            found = {needed: search_spans.span_matches(conn, newest, needed) for needed in (1, 3, 20, 45)}
            # None: the caller reads the match whole, in the one statement of before.
            assert all(ids is None or ids == every[:needed] for needed, ids in found.items()), (stale, found)
            assert found[1] == every[:1]
    read = []
    event.listen(engine, "before_cursor_execute", lambda *args: read.append(args[2]))
    search_spans._known.pop(engine)
    with db.connect(engine) as conn:
        search_spans.span_matches(conn, newest, 3)
        search_spans.span_matches(conn, newest, 3)
    assert sum("SELECT max(email_id) FROM email_search" in statement for statement in read) == 1


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
def test_asked_a_partition_at_a_time_newest_first_a_search_finds_every_matchs_newest(partitioned, monkeypatch):
    """Partitions of 7 ids (the 45 emails' 1-45): the ranges are asked newest first, each for what
    is still needed; a range that holds them all ends the walk."""
    monkeypatch.setattr(search_spans, "_TOP_SECONDS", 0)
    monkeypatch.setattr(search_spans, "_FIRST_SPAN", 1)
    seed_big_list(partitioned, replies=22)
    repartition(partitioned, 7)
    with db.connect(partitioned) as conn:
        assert len(partitions(conn)) == 7
        for query in ("text", "s:big", "zzzznothing"):
            spans = spans_of(query)
            every = every_match(conn, spans)
            for needed in (1, 3, 10, 20, 22):
                assert search_spans.span_matches(conn, spans, needed) == every[:needed], (query, needed)
            assert search_spans.span_matches(conn, spans, 23) is None  # a first span as large as the archive
        # The newest range (ids 43-45, asked of the index from 42 on) holds the first three of
        # "text": one statement, the largest id and the partitions read first.
        ran: list[str] = []
        event.listen(partitioned, "before_cursor_execute", lambda *args: ran.append(args[2]))
        every_text = search_spans.span_matches(conn, spans_of("text"), 3)
        assert len(ran) == 3 and "FROM email_search AS" not in ran[2]
        ran.clear()
        search_spans.span_matches(conn, spans_of("text"), 10)  # and two partitions, by their names
        assert ["FROM email_search_35 AS email_search" in sql for sql in ran[2:]] == [False, True]
        known = search_spans._read(conn)
    # Mail that arrived since the partitions and the largest id were read (kept a second), beyond
    # the last partition, is found first all the same.
    with partitioned.begin() as conn:
        conn.exec_driver_sql("SELECT setval('emails_id_seq', 60)")
    store_one(partitioned, 1, "big@example.org")
    monkeypatch.setattr(search_spans, "_TOP_SECONDS", 60)
    search_spans._known[partitioned] = known
    with db.connect(partitioned) as conn:
        assert search_spans.span_matches(conn, spans_of("text"), 2) == [61, every_text[0]]


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("sort", ["relevance", "date-desc", "date-asc"])
def test_pages_read_by_partitions_are_the_pages_of_every_match_read(partitioned, sort, monkeypatch):
    """Partitions of 5 ids (the mail's ids past 5,000, larger than the first span of the ranked
    window's 1,001): the pages, counts and `more` are those of the statement that reads every
    match."""
    monkeypatch.setattr(search_spans, "_TOP_SECONDS", 0)
    monkeypatch.setattr(search_spans, "_FIRST_SPAN", 1)
    with partitioned.begin() as conn:
        conn.exec_driver_sql("SELECT setval('emails_id_seq', 5000)")
    seed_big_list(partitioned, replies=22)
    seed_archive(partitioned)
    repartition(partitioned, 5)
    with db.connect(partitioned) as conn:
        for query in ("text", "s:big", "welcome", "f:busy@example.org -s:big", "zzzznothing"):
            for offset, limit in ((0, 3), (5, 10), (7, 2), (40, 10)):
                page = Page(limit, offset)
                capped = search.search(conn, parse(query), sort=sort, page=page, count_limit=12)
                every = search.search(conn, parse(query), sort=sort, page=page)
                assert [row.id for row in capped.rows] == [row.id for row in every.rows], (query, offset)
                assert capped.scores == pytest.approx(every.scores)
                assert capped.more == every.more
                assert (capped.count, capped.count_exact) == (min(every.count, 12), every.count <= 12)


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("sort", ["date-desc", "date-asc"])
def test_by_date_the_partitions_are_asked_in_the_order_of_their_dates(partitioned, sort, monkeypatch):
    """big@example.org's thread (ids 1-23) is dated 2021, its single emails (24-45) 2020: by date
    the oldest ids come first. Partitions of 7 ids: the newest range is asked first (its dates are
    not read: mail may have arrived since), then the partitions in the order of their newest
    (oldest) dates, until one's dates all come after the last match needed."""
    monkeypatch.setattr(search_spans, "_TOP_SECONDS", 0)
    monkeypatch.setattr(search_spans, "_FIRST_SPAN", 1)
    seed_big_list(partitioned, replies=22)
    repartition(partitioned, 7)
    descending = sort == "date-desc"
    order = (emails.c.date.desc(), emails.c.id.desc()) if descending else (emails.c.date, emails.c.id)
    spans = spans_of("text", sort)
    with db.connect(partitioned) as conn:
        every = list(conn.scalars(sa.select(emails.c.id).order_by(*order)))
        assert every[:3] == ([23, 22, 21] if descending else [24, 25, 26])
        for needed in (1, 3, 10, 22):
            assert search_spans.span_matches(conn, spans, needed) == every[:needed], needed
        # (Asked of the partitions alone: here the first span of dates holds the three.)
        known = search_spans._read(conn)
        ran: list[str] = []
        event.listen(partitioned, "before_cursor_execute", lambda *args: ran.append(args[2]))
        assert search_spans._by_dates(conn, spans.dated, descending, 3, known) == every[:3]
    # The ids 42-45 (the newest range), then 21-27 (the thread's newest, the singles' oldest).
    asked = [sql for sql in ran if "coalesce_2" in sql]
    assert len(asked) == 2 and "FROM email_search_21 AS email_search" in asked[1]


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
@pytest.mark.parametrize("sort", ["relevance", "date-desc"])
@pytest.mark.parametrize("action", [HIDE, DELETE])
def test_asked_a_partition_at_a_time_a_search_gives_no_private_nor_removed_mail(partitioned, sort, action, monkeypatch):
    """Partitions of 5 ids (ids past 5,000, so that the window's spans are asked): alice's mail is
    A, D, F and X on public lists and P on private@ (the fixtures); after A is hidden or deleted,
    D, F and X alone come out, whatever the order."""
    monkeypatch.setattr(search_spans, "_TOP_SECONDS", 0)
    monkeypatch.setattr(search_spans, "_FIRST_SPAN", 1)
    with partitioned.begin() as conn:
        conn.exec_driver_sql("SELECT setval('emails_id_seq', 5000)")
    seed_archive(partitioned)
    seed_big_list(partitioned, replies=22)
    repartition(partitioned, 5)

    def found() -> set[str]:
        with db.connect(partitioned) as conn:
            rows = search.search(conn, parse("f:alice@example.org"), sort=sort, page=Page(50, 0), count_limit=12).rows
        return {row.message_id for row in rows}

    assert found() == {MAIL[key].message_id for key in ("A", "D", "F", "X")}
    # A on dev@ alone: X is its copy on other@, the same Message-ID.
    run(partitioned, action, scope_of(message_id=MAIL["A"].message_id, list_name="dev@example.org"), "test", "test")
    with db.connect(partitioned) as conn:
        rows = search.search(conn, parse("f:alice@example.org"), sort=sort, page=Page(50, 0), count_limit=12).rows
    assert sorted(row.list_name for row in rows if row.message_id == MAIL["A"].message_id) == ["other@example.org"]
    assert found() == {MAIL[key].message_id for key in ("D", "F", "X")}
