"""SQLite's statements of a search (archive/store/search.py hands it the tree's parts): the FTS5
table `email_search` matches (`MATCH`) and ranks (`bm25`). It holds the mail of lists that are not
private alone (migration 0017), so that bm25's statistics are public mail's: what it finds is
public. The list asked for is a facet of the match (migration 0015: archive/search/facets.py), so
without other predicates (`m:`) FTS5 alone finds, windows and counts; `emails` is read for the
window's dates, `m:`, and by date. A tree without words to find (dates and lists alone, which the
index finds but cannot rank) reads and tests the emails instead."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.archive.search import facets
from sathub.archive.search.expressions import facets_expression, fts_expression, has_words
from sathub.archive.search.query import And, Node
from sathub.archive.store.listing import COUNT
from sathub.archive.tables import PRIVATE, emails, mailing_lists

# The index of migrations 0010, 0015 and 0017, named here only (not part of tables.metadata: the
# migrations and their triggers own it, and nothing but them writes it).
_FTS = sa.table("email_search", sa.column("rowid", sa.Integer))
_FTS_NAME: sa.ColumnElement = sa.literal_column("email_search")
# bm25 weights per FTS5 column (subject, body, sender, files, facets): a word in the subject says
# more; facets (dates, lists) say nothing of relevance (a column without a weight would weigh 1).
# The sender weighs as the text: it is a few words, often the same ones twice (a name that falls
# back to the address), so at 2 a word of it outweighed the same word in a discussion's text, and
# bounces from MAILER-DAEMON@… were 3rd, 4th and 8th for `gpsd daemon` on the corpus (every
# subject says "[Gpsd-dev]"); at 1 none is in the first ten (docs/archive-search.md, "Relevance").
_BM25 = (sa.literal(4.0), sa.literal(1.0), sa.literal(1.0), sa.literal(1.0), sa.literal(0.0))
NO_TOTAL = sa.null().label("total")
# By date: from this many matches, walking the index of dates and testing each email against the
# matches (their ids read once) beats reading and sorting every match's date. Each match joined
# costs ~0.4 µs; the walk reads about (offset + limit) x emails / matches entries.
WALK_FROM = 1_000
_LISTS = sa.select(mailing_lists.c.id, mailing_lists.c.name)
_PUBLIC = sa.and_(
    mailing_lists.c.id == emails.c.list_id,
    mailing_lists.c.archive_policy != PRIVATE,
)


def lists(conn: Connection) -> tuple[tuple[int, str], ...]:
    """(id, name) of every list: FTS5 asks for lists by their facets."""
    return tuple((list_id, name) for list_id, name in conn.execute(_LISTS))


class SqliteSearch:
    """What archive/store/search.py asks of a backend, for SQLite: the columns of the rows a search
    reads (the emails'), the tree's parts as FTS5 expressions, and the statements. `lists` (id,
    name): the facets of the lists."""

    def __init__(self, lists: tuple[tuple[int, str], ...]) -> None:
        self.id: sa.ColumnElement = emails.c.id
        self.date: sa.ColumnElement = emails.c.date
        self.list_id: sa.ColumnElement = emails.c.list_id
        self.list_ids = {name: list_id for list_id, name in lists}

    def express(self, node: Node) -> str | None:
        return fts_expression(node, self.list_ids)

    def matching(self, expression: str) -> sa.Select:
        return _matching(expression)

    def message_id(self, value: str) -> sa.ColumnElement:
        return emails.c.message_id == sa.literal(value)

    def ranks(self, text: list[Node]) -> bool:
        """Whether the index finds and ranks `text`: words outside a NOT (dates and lists alone are
        facets, which it finds but cannot rank)."""
        return any(has_words(item) for item in text)

    def walk_from(self) -> int | None:
        return WALK_FROM

    def statement(
        self,
        text: list[Node],
        negated: list[Node],
        predicates: list[sa.ColumnElement],
        list_id: int | None,
        sort: str,
        *,
        walk: bool,
        window: int,
    ) -> tuple[sa.Select, sa.Select]:
        """(the ids and scores in order, the count) of the emails of public lists that FTS5 finds
        for `text` without `negated` and that satisfy `predicates` (_indexed); without `text`, of
        the emails that satisfy `predicates` (_unindexed)."""
        if not text:
            return _unindexed(predicates, list_id, sort)
        items = text + negated
        expression = str(self.express(items[0] if len(items) == 1 else And(tuple(items))))
        if list_id is not None:
            expression = f"{expression} AND {facets_expression([facets.list_word(list_id)])}"
        return _indexed(expression, predicates, sort, walk=walk, window=window)


def _match(expression: str) -> sa.ColumnElement:
    return _FTS_NAME.op("MATCH")(sa.literal(expression))


def _matching(expression: str) -> sa.Select:
    """The ids of the emails the match expression finds."""
    return sa.select(_FTS.c.rowid).where(_match(expression))


def _indexed(
    expression: str, predicates: list[sa.ColumnElement], sort: str, *, walk: bool, window: int
) -> tuple[sa.Select, sa.Select]:
    """(the ids and scores in order, the count) of what the FTS5 `expression` and `predicates`
    find: by relevance the `window` latest ranked, by arrival, or by date either every match's
    date read and sorted, or with `walk` (when they are many: WALK_FROM) the index of dates walked
    newest (oldest) first, each email tested against the matches until the page is full."""
    where = [_match(expression), *predicates]
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
            .cte("window")
            .prefix_with("MATERIALIZED")
        )
        # Without predicates the index counts alone; with them, the window counts when it holds
        # every match (no second scan of the matches joined to emails).
        total = _all_in(latest, window) if predicates else NO_TOTAL
        ids = sa.select(latest.c.id, latest.c.score, total).select_from(latest.join(emails, emails.c.id == latest.c.id))
        ids = ids.where(latest.c.score >= _page_end(latest))
        return ids.order_by(latest.c.score.desc(), emails.c.date.desc(), latest.c.id.desc()), count
    if sort == "arrival":  # what follows the relevance window: the other matches, latest first
        ids = sa.select(_FTS.c.rowid.label("id"), sa.null().label("score"), NO_TOTAL).select_from(source)
        return ids.where(*where).order_by(_FTS.c.rowid.desc()), count
    order = _by_date(sort)
    if walk:  # `+ 0`: the index of dates is walked, the matches looked up, not the other way
        walked = sa.select(emails.c.id.label("id"), sa.null().label("score"), NO_TOTAL).select_from(emails)
        return walked.where((emails.c.id + 0).in_(_matching(expression)), *predicates).order_by(*order), count
    dated = _FTS.join(emails, emails.c.id == _FTS.c.rowid)
    ids = sa.select(emails.c.id.label("id"), sa.null().label("score"), NO_TOTAL).select_from(dated)
    return ids.where(*where).order_by(*order), count


def _unindexed(predicates: list[sa.ColumnElement], list_id: int | None, sort: str) -> tuple[sa.Select, sa.Select]:
    """(the ids in order, the count) of the emails of public lists that satisfy `predicates`: the
    emails are read, and tested."""
    where = list(predicates)
    if list_id is not None:
        where.append(emails.c.list_id == list_id)
    where.append(_PUBLIC)
    source = emails.join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
    count = sa.select(COUNT).select_from(source).where(*where)
    order = (emails.c.id.desc(),) if sort == "arrival" else _by_date(sort)
    ids = sa.select(emails.c.id.label("id"), sa.null().label("score"), NO_TOTAL).select_from(source).where(*where)
    return ids.order_by(*order), count


def _by_date(sort: str) -> tuple:
    if sort == "date-asc":
        return emails.c.date, emails.c.id
    return emails.c.date.desc(), emails.c.id.desc()


def _page_end(latest: sa.CTE) -> sa.ColumnElement:
    """The score of the page's last row in the window `latest` (its `offset + limit`th best), or
    the lowest there is when the window ends first: the rows scored below it are not on the page,
    and need not be joined to `emails` for the date that breaks ties. A row's date lies past its
    text, on the row's overflow pages: the window statement of `gpsd` on the corpus, median of
    200 in process, two runs alternated, 3.2 and 2.7 ms joining the thousand rows, 1.8 and 1.9
    joining the page's (`gps time` 3.8 -> 2.4 and 3.0, `gpsd -python` 3.7 and 2.7 -> 2.6 and 2.1)."""
    end = sa.bindparam("offset", type_=sa.Integer) + sa.bindparam("limit", type_=sa.Integer) - 1
    last = sa.select(latest.c.score).order_by(latest.c.score.desc()).limit(1).offset(end).scalar_subquery()
    return sa.func.coalesce(last, sa.literal(-1e308))


def _all_in(latest: sa.CTE, window: int) -> sa.ColumnElement:
    """A window of fewer than `window` rows holds every match, so its size is the count (no second
    scan of the match joined to emails, for `m:`). Not asked where FTS5 counts from its index
    alone: counting the window costs 0.5 ms for a common word."""
    rows = sa.select(sa.func.count()).select_from(latest).scalar_subquery()
    return sa.case((rows < window, rows), else_=sa.null()).label("total")
