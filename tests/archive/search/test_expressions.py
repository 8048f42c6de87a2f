"""The query tree in each engine's own language, asked of that engine alone (no archive, no store):
SQLite's FTS5 expression of a few documents in an FTS5 table with the index's tokenizer, and
PostgreSQL's tsquery of the same documents' weighted tsvectors (the fields A–D, as migration 0010
builds them) find exactly what brute.py's scan of the documents finds."""

from __future__ import annotations

from datetime import datetime

import pytest
import sqlalchemy as sa

from sathub.archive.search.expressions import facets_expression, fts_expression, has_words, tsquery
from sathub.archive.search.query import parse
from tests.archive.search.brute import Doc, matches, normal_words
from tests.conftest import BACKENDS

FIELDS = ("subject", "body", "sender", "files")
DOCUMENTS = [
    ("Release candidate 2", "The release is near.", "Eric Raymond esr@thyrsus.com", ""),
    ("Re: gpsd", "gps over usb, candidate release", "Gary Miller gem@rellim.com", "diff.patch"),
    ("ntp and chrony", "Which time daemon? chrony here.", "Zoë Ünïcode zoe@example.com", "notes.txt"),
    ("Horák reports", "gps on windows; ntp too", "Jan Horák jan@example.cz", "report.html"),
    ("Patch: releases", "prerelease notes for gpsd", "Eric Raymond esr@thyrsus.com", "diff-2.patch"),
]
QUERIES = [
    "gpsd",
    "horak",
    "release",
    "release*",
    '"release candidate"',
    '"candidate release"',
    '"release cand"*',
    "s:release",
    "b:release",
    "f:esr@thyrsus.com",
    "f:raymond",
    "n:diff*",
    'n:"report.html"',
    "ntp OR chrony",
    "ntp chrony",
    "gps -usb",
    "gps NOT windows",
    "(ntp OR chrony) -windows",
    "(gpsd OR gps) (release OR ntp) -s:patch",
    "zoe",
]


def docs() -> list[Doc]:
    return [
        Doc(
            n,
            "dev@example.org",
            f"{n}@example.org",
            datetime(2021, 1, 1),
            dict(zip(FIELDS, map(normal_words, d), strict=True)),
        )
        for n, d in enumerate(DOCUMENTS, 1)
    ]


def expected(text: str) -> set[int]:
    tree = parse(text)
    return {doc.id for doc in docs() if matches(doc, tree)}


def fts5_found(conn, text: str) -> set[int]:
    expression = fts_expression(parse(text), {})
    assert expression is not None, text
    return set(conn.exec_driver_sql("SELECT rowid FROM temp.t WHERE t MATCH ?", (expression,)).scalars())


def test_fts5_expressions_find_what_a_scan_finds():
    engine = sa.create_engine("sqlite://")
    with engine.connect() as conn:
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE temp.t USING fts5(subject, body, sender, files, facets, "
            "tokenize='unicode61 remove_diacritics 2')"
        )
        for n, fields in enumerate(DOCUMENTS, 1):
            conn.exec_driver_sql(
                "INSERT INTO temp.t(rowid, subject, body, sender, files) VALUES (?, ?, ?, ?, ?)", (n, *fields)
            )
        # A list and a date are facets: words of the fifth column, asked as `{facets} : …`.
        conn.exec_driver_sql("UPDATE temp.t SET facets = 'l1 y2021' WHERE rowid IN (1, 2)")
        for text in QUERIES:
            assert fts5_found(conn, text) == expected(text), text
        assert fts5_found(conn, "l:dev@example.org release") == set()  # no id for the list: no email
        facet = facets_expression(["l1"])
        assert set(conn.exec_driver_sql("SELECT rowid FROM temp.t WHERE t MATCH ?", (facet,)).scalars()) == {1, 2}


def test_fts5_cannot_say_a_message_id_nor_a_lonely_not():
    assert fts_expression(parse("m:<a@b>"), {}) is None
    assert fts_expression(parse("NOT gps"), {}) is None
    assert fts_expression(parse("gps m:<a@b>"), {}) is None


def test_words_outside_a_not():
    assert has_words(parse("gps"))
    assert has_words(parse("d:2010 gps"))
    assert not has_words(parse("NOT gps"))
    assert not has_words(parse("d:2010 l:dev@example.org"))


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
def test_tsqueries_find_what_a_scan_finds(engine):
    weighted = " || ".join(
        f"setweight(to_tsvector('simple', search_words(:{field})), '{weight}')"
        for field, weight in zip(FIELDS, "ABCD", strict=True)
    )
    with engine.connect() as conn:
        for text in QUERIES:
            query = tsquery(parse(text))
            assert query is not None, text
            found = {
                n
                for n, fields in enumerate(DOCUMENTS, 1)
                if conn.scalar(
                    sa.text(f"SELECT ({weighted}) @@ CAST(:query AS tsquery)"),
                    {**dict(zip(FIELDS, fields, strict=True)), "query": query},
                )
            }
            assert found == expected(text), text
    assert tsquery(parse("d:2010 gps")) is None and tsquery(parse("m:<a@b>")) is None
