"""The SQL of search (archive/store/search.py, with either backend's statements) held to what it
must find, on SQLite and PostgreSQL.

On the real corpus (shared/data/mail, imported once per backend by the `corpus` fixture of
tests/archive/corpus.py), for random queries of every kind, the emails the database finds are
exactly those a brute-force Python scan over the stored emails finds (tests/archive/search/
brute.py). PostgreSQL's tsvector keeps at most 16,383 positions per document and 256 per word, and
the migration indexes a body's first 250,000 characters (docs/archive-search.md, "Limits"): emails
beyond those limits are left out of the comparison on PostgreSQL.

Relevance, on the hand-built archive of api_fixtures: a word asked of a field is ranked by that
field alone."""

from __future__ import annotations

import random
from collections import Counter
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sathub.archive.search.query import parse
from sathub.archive.store import search
from sathub.archive.store.listing import Page
from sathub.archive.tables import PRIVATE, attachments, emails, mailing_lists
from sathub.db import connect
from tests.archive.api_fixtures import seed_archive
from tests.archive.corpus import CORPUS_GROUP
from tests.archive.import_fixtures import archive as mbox
from tests.archive.import_fixtures import day, message, run
from tests.archive.search.brute import Doc, matches, normal_words
from tests.conftest import migrate, scratch_engine

BODY_LIMIT, POSITIONS, PER_WORD = 250_000, 16_383, 256


def load(engine) -> tuple[list[Doc], set[int]]:
    """Every email of a public list as a Doc, and the ids beyond PostgreSQL's tsvector limits."""
    with engine.connect() as conn:
        names: dict[int, list[str]] = {}
        for email_id, name in conn.execute(
            sa.select(attachments.c.email_id, attachments.c.name).order_by(
                attachments.c.email_id, attachments.c.counter
            )
        ):
            names.setdefault(email_id, []).append(name)
        rows = conn.execute(
            sa.select(emails, mailing_lists.c.name.label("list_name"))
            .join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
            .where(mailing_lists.c.archive_policy != PRIVATE)
        ).all()
    docs, beyond = [], set()
    for row in rows:
        body = f"{row.content}\n{row.scrubbed}"  # what the index reads (migration 0023)
        fields = {
            "subject": normal_words(row.subject),
            "body": normal_words(body),
            "sender": normal_words(f"{row.sender_name} {row.sender_address} {row.sender_comment}"),
            "files": normal_words(" ".join(names.get(row.id, []))),
        }
        docs.append(Doc(row.id, row.list_name, row.message_id, row.date, fields))
        if (
            len(body) > BODY_LIMIT
            or sum(len(words) for words in fields.values()) >= POSITIONS
            or any(count >= PER_WORD for words in fields.values() for count in Counter(words).values())
        ):
            beyond.add(row.id)
    return docs, beyond


@pytest.fixture(scope="module")
def loaded(corpus):
    docs, beyond = load(corpus.engine)
    pick = random.Random(24)
    samples = {name: [] for name in ("subject", "body", "sender", "files")}
    phrases = []
    for doc in pick.sample(docs, 3000):
        for name, words in doc.fields.items():
            if words:
                samples[name].append(pick.choice(words))
        body = doc.fields["body"]
        if len(body) > 3:
            at = pick.randrange(len(body) - 2)
            phrases.append(body[at : at + pick.choice((2, 3))])
    return corpus.engine, docs, beyond, samples, phrases


def term(samples, phrases):
    word = st.sampled_from(samples["body"] + samples["subject"])
    fielded = st.sampled_from(["s", "b", "f", "n"]).flatmap(
        lambda f: st.sampled_from(samples[{"s": "subject", "b": "body", "f": "sender", "n": "files"}[f]] or ["x"]).map(
            lambda w: f"{f}:{w}"
        )
    )
    prefix = word.filter(lambda w: len(w) >= 4).flatmap(lambda w: st.integers(3, len(w)).map(lambda k: f"{w[:k]}*"))
    phrase = st.sampled_from(phrases).map(lambda p: '"' + " ".join(p) + '"')
    year = st.integers(1998, 2022)
    dates = st.tuples(year, st.integers(1, 12), year, st.integers(1, 12)).map(
        lambda t: f"d:{min(t[0], t[2])}-{t[1]:02d}..{max(t[0], t[2]) + 1}-{t[3]:02d}"
    )
    return st.one_of(word, word, fielded, prefix, phrase, dates)


def queries(samples, phrases):
    leaf = term(samples, phrases)
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.tuples(inner, inner).map(lambda t: f"{t[0]} {t[1]}"),
            st.tuples(inner, inner).map(lambda t: f"({t[0]} OR {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]} -({t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]} AND NOT {t[1]}"),
        ),
        max_leaves=4,
    )


@CORPUS_GROUP
def test_every_kind_of_query_finds_what_a_scan_finds(loaded):
    engine, docs, beyond, samples, phrases = loaded
    ignored = beyond if engine.dialect.name == "postgresql" else set()

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(queries(samples, phrases))
    def check(text):
        tree = parse(text)
        expected = {doc.id for doc in docs if matches(doc, tree)} - ignored
        with engine.connect() as conn:
            found = set(search.matching_ids(conn, tree)) - ignored
        assert found == expected, text

    check()


@CORPUS_GROUP
@pytest.mark.parametrize(
    "text",
    [
        "gpsd",
        "horak",
        "release*",
        '"release candidate"',
        "s:release",
        "f:esr@thyrsus.com",
        "f:raymond",
        "n:patch*",
        "d:2010-01-01..2010-12-31 gps",
        "d:..2006-06",
        "ntp OR chrony",
        "gps -usb",
        "(python OR gpsd) NOT release",
        "l:gpsd-users@lists.berlios.de fix",
    ],
)
def test_the_documented_examples_find_what_a_scan_finds(loaded, text):
    engine, docs, beyond, _, _ = loaded
    ignored = beyond if engine.dialect.name == "postgresql" else set()
    tree = parse(text)
    expected = {doc.id for doc in docs if matches(doc, tree)} - ignored
    with engine.connect() as conn:
        assert set(search.matching_ids(conn, tree)) - ignored == expected
        assert search.count(conn, tree) == len(search.matching_ids(conn, tree))
        # Pages by date, as the API asks them (SQLite walks the dates when the matches are many).
        by_date = sorted(docs, key=lambda doc: (doc.date, doc.id))
        for sort, order in (("date-desc", by_date[::-1]), ("date-asc", by_date)):
            ordered = [doc.id for doc in order if doc.id in expected]
            for offset in (0, 20) if not ignored else (0,):  # (matched long emails would shift offsets)
                page = [row.id for row in search.search(conn, tree, sort=sort, page=Page(10, offset)).rows]
                kept = [email_id for email_id in page if email_id not in ignored]
                assert kept == ordered[offset : offset + len(kept)], (text, sort, offset)
                if not ignored:
                    assert len(page) == len(ordered[offset : offset + 10]), (text, sort, offset)
    assert expected or text in ("horak", "n:patch*"), text  # the corpus may lack these


WORDS = ("alpha", "beta", "gamma", "delta", "omega")


@pytest.fixture
def small_archive(engine, tmp_path, monkeypatch, request):
    """80 emails of a few words each (so that most queries match many), with a ranked window of 7
    and SQLite walking the dates from 10 matches: every path of a search's count is taken."""
    from sathub.archive.store import search_fts5

    pick = random.Random(37)
    mail = [
        message(
            f"m{n}",
            subject=" ".join(pick.choices(WORDS, k=pick.randint(1, 2))),
            body=" ".join(pick.choices(WORDS, k=pick.randint(1, 6))) + "\n",
            date=day(pick.randint(1, 28)),
        )
        for n in range(80)
    ]
    run(engine, mbox(tmp_path, "small.mbox", *mail))
    monkeypatch.setattr(search, "RANK_WINDOW", 7)
    monkeypatch.setattr(search_fts5, "WALK_FROM", 10)
    search._paged.cache_clear()  # statements are kept with the window they were built with
    request.addfinalizer(search._paged.cache_clear)
    docs, _ = load(engine)
    return engine, docs


def test_counts_past_a_small_limit_say_so_and_pages_go_on(small_archive):
    """For random queries, count limits and pages: up to the limit the count is the scan's, past it
    the limit with `count_exact` false; `more` says whether the scan has matches after the page,
    whose size is the scan's."""
    engine, docs = small_archive
    samples = {key: list(WORDS) for key in ("subject", "body", "sender", "files")}
    phrases = [[a, b] for a in WORDS for b in WORDS]

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(
        queries(samples, phrases),
        st.integers(1, 90),
        st.sampled_from(search.SORTS),
        st.sampled_from((0, 3, 6, 20, 75)),
    )
    def check(text, count_limit, sort, offset):
        tree = parse(text)
        expected = sum(matches(doc, tree) for doc in docs)
        with engine.connect() as conn:
            found = search.search(conn, tree, sort=sort, page=Page(5, offset), count_limit=count_limit)
        shown = (expected, True) if expected <= count_limit else (count_limit, False)
        assert (found.count, found.count_exact) == shown, (text, count_limit, sort, offset)
        assert found.more == (offset + 5 < expected), (text, count_limit, sort, offset)
        assert len(found.rows) == len(range(expected)[offset : offset + 5]), (text, count_limit, sort, offset)

    check()


MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def test_newest_first_pages_are_the_scans_whatever_order_the_mail_arrived_in(engine, tmp_path, monkeypatch):
    """120 emails over six years arrive mostly in date order, but the first three are the newest
    and the five oldest arrive halfway; SQLite walks the dates from 10 matches, narrowed to the
    years of the latest arrivals (store/search.py, _since_the_latest) and to the dates asked.
    Every page newest first holds the emails a scan finds, sorted by date then id, newest first."""
    from sathub.archive.store import search_fts5

    pick = random.Random(120)
    dated = sorted((pick.randint(2015, 2020), pick.randint(0, 11), pick.randint(1, 28)) for _ in range(120))
    arrivals = dated[-3:] + dated[5:60] + dated[:5] + dated[60:-3]
    mail = [
        message(
            f"a{n}",
            subject=" ".join(pick.choices(WORDS, k=2)),
            body=" ".join(pick.choices(WORDS, k=pick.randint(1, 4))),
            date=f"Mon, {day_:02d} {MONTHS[month]} {year} 10:00:00 +0000",
        )
        for n, (year, month, day_) in enumerate(arrivals)
    ]
    run(engine, mbox(tmp_path, "years.mbox", *mail))
    monkeypatch.setattr(search_fts5, "WALK_FROM", 10)
    docs, _ = load(engine)
    asked = ("alpha", "alpha beta", "-gamma alpha", "s:delta", "omega OR beta", '"alpha beta"', "beta d:2016..2018")
    for text in (*asked, "alpha d:2019-03..2020-06-15"):
        tree = parse(text)
        expected = [
            doc.id for doc in sorted((d for d in docs if matches(d, tree)), key=lambda d: (d.date, d.id), reverse=True)
        ]
        assert len(expected) >= 10, text  # walked (the last two between their dates)
        with engine.connect() as conn:
            for offset in range(0, len(expected) + 5, 4):
                found = search.search(conn, tree, sort="date-desc", page=Page(5, offset), count_limit=10_000)
                assert [row.id for row in found.rows] == expected[offset : offset + 5], (text, offset)


# -- relevance ------------------------------------------------------------------------------------


def scores(engine, query: str) -> dict[int, float | None]:
    with connect(engine) as conn:
        found = search.search(conn, parse(query), page=Page(10, 0))
    return {row.id: score for row, score in zip(found.rows, found.scores, strict=True)}


@CORPUS_GROUP
def test_bounces_do_not_outrank_the_discussion_of_gpsd_daemon(loaded):
    """The corpus's bounces match `gpsd daemon` by their list's subject prefix and their sender,
    MAILER-DAEMON@…, twice (the name falls back to the address): with the sender weighed twice the
    text on SQLite, three of them were in the first eight."""
    engine = loaded[0]
    with connect(engine) as conn:
        first = search.search(conn, parse("gpsd daemon"), page=Page(10, 0)).rows
        matched = search.emails_by_id(conn, search.matching_ids(conn, parse("gpsd daemon")))
    assert sum(row.sender_address.startswith("MAILER-DAEMON@") for row in matched) >= 3
    assert [row.sender_address for row in first if row.sender_address.startswith("MAILER-DAEMON@")] == []


def test_every_page_of_tied_scores_is_ordered_by_date_then_arrival(engine, tmp_path):
    """Three groups of eight emails of the same length and subject, saying `alpha` three, two and
    one times: within a group the scores tie (by construction, on both backends), so the order is
    the group, then the later date (five days for eight emails: dates tie too), then the later
    arrival. Every page of every size holds the rows that order puts there: SQLite joins the
    dates of the rows up to the page's end alone, and a tie across the page's end must not be
    cut."""
    pick = random.Random(24)
    bodies = {3: "alpha alpha alpha", 2: "alpha alpha other", 1: "alpha other other"}
    mail = [(times, n, pick.randint(1, 5)) for times in bodies for n in range(8)]
    pick.shuffle(mail)  # arrival order apart from the groups and the dates
    run(
        engine,
        mbox(
            tmp_path,
            "ties.mbox",
            *(message(f"t{t}n{n}", subject="report", body=bodies[t], date=day(d)) for t, n, d in mail),
        ),
    )
    with engine.connect() as conn:
        stored = {
            row.message_id: (row.id, row.date)
            for row in conn.execute(sa.select(emails.c.id, emails.c.message_id, emails.c.date))
        }
    ranked = sorted(((times, *stored[f"t{times}n{n}@example.org"]) for times, n, _ in mail), reverse=True)
    expected = [email_id for _, email_id, _ in sorted(ranked, key=lambda row: (row[0], row[2], row[1]), reverse=True)]
    with engine.connect() as conn:
        for limit in (1, 3, 7, 24):
            for offset in range(0, 25):
                found = search.search(conn, parse("alpha"), page=Page(limit, offset), count_limit=10_000)
                assert [row.id for row in found.rows] == expected[offset : offset + limit], (limit, offset)
        assert search.matching_ids(conn, parse("alpha"), sort="relevance") == expected


def test_a_fielded_word_is_ranked_by_its_field_alone(engine):
    """B and D have the same subject; B's text says "welcome" three times, which does not raise B
    above D for `s:welcome` (SQLite's bm25 counts the hits in the asked column only; PostgreSQL
    ranks such a query by `heading`: ts_rank of `document` counted the text's words too). For
    `welcome`, B comes first on both."""
    ids = seed_archive(engine)
    with engine.begin() as conn:
        conn.execute(emails.update().where(emails.c.id == ids["B"]).values(content="Welcome, welcome, welcome!\n"))
    by_subject = scores(engine, "s:welcome")
    assert by_subject[ids["B"]] <= by_subject[ids["D"]]
    anywhere = scores(engine, "welcome")
    assert anywhere[ids["B"]] > anywhere[ids["D"]]


def test_dates_and_lists_asked_with_words_leave_their_scores_alone(engine):
    """On SQLite dates and lists are words of the index's facets column, which weighs nothing in
    bm25; on PostgreSQL they are columns. Either way the words alone make the score."""
    seed_archive(engine)
    alone = scores(engine, "welcome")
    for narrowed in ("welcome d:2000..2100", "welcome l:dev@example.org"):
        found = scores(engine, narrowed)
        assert found and found == pytest.approx({email_id: alone[email_id] for email_id in found}), narrowed


# -- what private mail tells ----------------------------------------------------------------------

PUBLIC_LIST = "dev@lists.example.org"
# `alpha` and `beta` each in one public email of the same length, the `alpha` one newer: they tie
# and the newer comes first. Private mail saying `alpha` must neither lower its score nor reorder.
PUBLIC_MAIL = [
    message("one", subject="alpha report", body="alpha\n", date=day(2)),
    message("two", subject="beta report", body="beta\n", date=day(1)),
    *(message(f"filler{n}", subject=f"gamma report {n}", body="gamma\n", date=day(3 + n)) for n in range(6)),
]
# Five emails saying `alpha` again and again, on another list.
ALPHAS = [message(f"alpha{n}", subject="alpha alpha", body="alpha\n", date=day(20 + n)) for n in range(5)]
PUBLIC_ANSWERS = [
    f"{prefix}?q={quote(query)}{extra}"
    for prefix in ("/archive/api/search/", "/archive/search")
    for query in ("alpha OR beta", "alpha", "s:alpha OR s:beta", "report", "alpha -beta")
    for extra in ("", "&sort=date-desc", f"&mlist={quote(PUBLIC_LIST)}")
]


def public_answers(client) -> list[bytes]:
    answers = [client.get(path) for path in PUBLIC_ANSWERS]
    assert [answer.status_code for answer in answers] == [200] * len(answers)
    return [answer.content for answer in answers]


def test_private_mail_changes_no_public_answer(engine, client, tmp_path):
    """FTS5's bm25 weighs a word by how many emails of its whole index hold it: 30 private emails
    saying "candidate" moved a public score (8.256 -> 8.087) and 5 reordered two results (issue
    40), which told what private mail says. Public answers are the same bytes after a private
    import, on both backends."""
    run(engine, mbox(tmp_path, "public.mbox", *PUBLIC_MAIL), list_name=PUBLIC_LIST)
    before = public_answers(client)
    assert b'"count":2' in before[0]  # one and two, found and ranked
    run(engine, mbox(tmp_path, "private.mbox", *ALPHAS), list_name="secret@lists.example.org", private=True)
    assert public_answers(client) == before


def test_a_list_made_private_takes_its_mail_out_of_public_scores(engine, client, tmp_path):
    """A public list turned private (Mailman's policy, or an import with --private) leaves the
    public answers as they were before it had mail; turned public again, as they were then."""
    run(engine, mbox(tmp_path, "public.mbox", *PUBLIC_MAIL), list_name=PUBLIC_LIST)
    alone = public_answers(client)
    run(engine, mbox(tmp_path, "other.mbox", *ALPHAS), list_name="other@lists.example.org")
    beside = public_answers(client)
    assert beside != alone
    for policy, expected in ((PRIVATE, alone), ("public", beside)):
        with engine.begin() as conn:
            conn.execute(
                mailing_lists.update()
                .where(mailing_lists.c.name == "other@lists.example.org")
                .values(archive_policy=policy)
            )
        assert public_answers(client) == expected, policy


# -- m: of every list ------------------------------------------------------------------------------


def test_a_message_id_of_every_list_is_looked_up_by_its_own_index(database_url, tmp_path):
    """`m:` without a list: no index led with the Message-ID (30–85 ms on the corpus, SQLite). Each
    statement of the search is explained as it ran; on PostgreSQL with sequential scans priced out,
    as a table of two emails would be read whole anyway. On a database of its own: in the session's,
    the emails earlier tests left as dead rows once led the planner to another index of emails."""
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "head")
        _explain_message_id_search(engine, tmp_path)


def _explain_message_id_search(engine, tmp_path) -> None:
    run(engine, mbox(tmp_path, "two.mbox", message("one"), message("two")))
    ran: list[tuple[str, object]] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        ran.append((statement, parameters))

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        with connect(engine) as conn:
            assert search.search(conn, parse("m:<one@example.org>"), page=Page(10, 0)).count == 1
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    explain = "EXPLAIN QUERY PLAN" if engine.dialect.name == "sqlite" else "EXPLAIN"
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            # Statistics of these two emails, not of what earlier tests left in the session's database
            # (a CI run once saw the planner pick another index of emails on such stale figures).
            conn.exec_driver_sql("ANALYZE emails, mailing_lists")
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
        plans = [
            " ".join(str(row[-1]) for row in conn.exec_driver_sql(f"{explain} {statement}", parameters))
            for statement, parameters in ran
            if "message_id =" in statement
        ]
    assert plans and all("emails_message_id" in plan for plan in plans), plans
