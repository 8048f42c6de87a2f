"""SQLite's statements of a search (archive/store/search.py builds the match expression and calls
`statement`): FTS5 finds, windows and counts; `emails` is read for the window's dates, `m:`, and
by date. The list asked for and the private lists left out are facets of the match (migration
0015), so without other predicates (`m:`) FTS5 alone finds, windows and counts."""

from __future__ import annotations

import sqlalchemy as sa

from sathub.archive.store.listing import COUNT
from sathub.archive.tables import emails

# The index of migrations 0010 and 0015, named here only (not part of tables.metadata: the
# migrations and their triggers own it, and nothing but them writes it).
_FTS = sa.table("email_search", sa.column("rowid", sa.Integer))
_FTS_NAME: sa.ColumnElement = sa.literal_column("email_search")
# bm25 weights per FTS5 column (subject, body, sender, files, facets): a word in the subject says
# more; facets (dates, lists) say nothing of relevance (a column without a weight would weigh 1).
_BM25 = (sa.literal(4.0), sa.literal(1.0), sa.literal(2.0), sa.literal(1.0), sa.literal(0.0))
NO_TOTAL = sa.null().label("total")
# By date: from this many matches, walking the index of dates and testing each email against the
# matches (their ids read once) beats reading and sorting every match's date. Each match joined
# costs ~0.4 µs; the walk reads about (offset + limit) x emails / matches entries.
WALK_FROM = 1_000


def match(expression: str) -> sa.ColumnElement:
    return _FTS_NAME.op("MATCH")(sa.literal(expression))


def matching(expression: str) -> sa.Select:
    """The ids of the emails the match expression finds."""
    return sa.select(_FTS.c.rowid).where(match(expression))


def statement(
    expression: str, predicates: list[sa.ColumnElement], sort: str, *, walk: bool, window: int
) -> tuple[sa.Select, sa.Select]:
    """(the ids and scores in order, the count) of what the FTS5 `expression` and `predicates`
    find: by relevance the `window` latest ranked, by arrival, or by date either every match's
    date read and sorted, or with `walk` (when they are many: WALK_FROM) the index of dates walked
    newest (oldest) first, each email tested against the matches until the page is full."""
    where = [match(expression), *predicates]
    source = _FTS.join(emails, emails.c.id == _FTS.c.rowid) if predicates else _FTS
    count = sa.select(COUNT).select_from(source).where(*where)
    if sort == "relevance":
        # Ranked among the `window` latest arrivals that match, so that a common word costs the
        # scores of a thousand emails, not of all of them. FTS5 hands its rows over in rowid (=
        # id) order, and SQLite scores only the rows the window keeps.
        bm25 = (-sa.func.bm25(_FTS_NAME, *_BM25)).label("score")
        latest = (
            sa.select(_FTS.c.rowid.label("id"), bm25)
            .select_from(source)
            .where(*where)
            .order_by(_FTS.c.rowid.desc())
            .limit(window)
            .subquery("window")
        )
        # Without predicates the index counts alone; with them, the window counts when it holds
        # every match (no second scan of the matches joined to emails).
        total = _all_in(window) if predicates else NO_TOTAL
        ids = sa.select(latest.c.id, latest.c.score, total).select_from(latest.join(emails, emails.c.id == latest.c.id))
        return ids.order_by(latest.c.score.desc(), emails.c.date.desc(), latest.c.id.desc()), count
    if sort == "arrival":  # what follows the relevance window: the other matches, latest first
        ids = sa.select(_FTS.c.rowid.label("id"), sa.null().label("score"), NO_TOTAL).select_from(source)
        return ids.where(*where).order_by(_FTS.c.rowid.desc()), count
    order = (emails.c.date, emails.c.id) if sort == "date-asc" else (emails.c.date.desc(), emails.c.id.desc())
    if walk:  # `+ 0`: the index of dates is walked, the matches looked up, not the other way
        walked = sa.select(emails.c.id.label("id"), sa.null().label("score"), NO_TOTAL).select_from(emails)
        return walked.where((emails.c.id + 0).in_(matching(expression)), *predicates).order_by(*order), count
    dated = _FTS.join(emails, emails.c.id == _FTS.c.rowid)
    ids = sa.select(emails.c.id.label("id"), sa.null().label("score"), NO_TOTAL).select_from(dated)
    return ids.where(*where).order_by(*order), count


def _all_in(window: int) -> sa.ColumnElement:
    """A window of fewer than `window` rows holds every match, so its size is the count (no second
    scan of the match joined to emails, for `m:`). Not asked where FTS5 counts from its index
    alone: counting the window costs 0.5 ms for a common word."""
    rows = sa.func.count().over()
    return sa.case((rows < window, rows), else_=sa.null()).label("total")
