"""The SQL of search, for either backend: one query tree (archive/search/query.py) split into what
the backend's index finds and ranks and what else must hold, and the statements run.

The text part of the tree's top-level AND becomes one match expression, which also ranks; every
other part becomes a predicate, text ones as `id IN (one match)`. Each backend says its match
expressions and writes its statements beside this module: SQLite's FTS5 in search_fts5.py,
PostgreSQL's `tsvector`s in search_pg.py, both kept by the triggers of migrations 0010, 0013, 0014
and 0015 (and 0016: PostgreSQL's dates under a B-tree). Mail of a private list is never selected,
whatever the query.

What the doors use (the API and the page, the search feed and the mbox export of a search):
`search(conn, tree, ...)` → Found (a page of rows, their scores, the count, exact up to a limit), and
`matching_ids(conn, tree, ...)` → the ids alone, in the asked order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.search.query import And, DateRange, Exact, Node, Not, Or
from sathub.archive.store import search_fts5, search_pg, search_spans
from sathub.archive.store.emails import PARENT, children_query, email_query
from sathub.archive.store.listing import COUNT, Page
from sathub.archive.store.search_deadline import deadline
from sathub.archive.tables import emails, mailing_lists

SORTS = ("relevance", "date-desc", "date-asc")
RANK_WINDOW = 1_000  # relevance ranks the latest matches, this many (docs/archive-search.md)


@dataclass(frozen=True)
class Found:
    """One page of results: rows shaped as store.emails.EMAIL_ROW + content, in order, each with its
    score (higher is more relevant; None when sorted by date); the count of all, exact when
    `count_exact`, else the count limit, which more than that many match; and whether more match
    after this page (`more`: past the limit too)."""

    count: int
    count_exact: bool
    more: bool
    rows: Sequence[Row]
    scores: list[float | None]


class Backend(Protocol):
    """What each backend's module gives (search_fts5.SqliteSearch, search_pg.PostgresSearch)."""

    id: sa.ColumnElement  # the columns of the rows a search reads and tests
    date: sa.ColumnElement
    list_id: sa.ColumnElement

    def express(self, node: Node) -> str | None:
        """`node` as the index's match expression, or None when the index cannot say it."""

    def matching(self, expression: str) -> sa.Select:
        """The ids of the emails the match expression finds."""

    def message_id(self, value: str) -> sa.ColumnElement:
        """`m:value`."""

    def ranks(self, text: list[Node]) -> bool:
        """Whether the index finds and ranks the parts `text` (else they are predicates)."""

    def walk_from(self) -> int | None:
        """From how many matches a search by date walks the dates (None: never)."""

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
        """(the ids, scores and totals in order, the count) of the emails of public lists the index
        finds for `text` without `negated` and that satisfy `predicates`."""


class _Compiler:
    """The parts (what the index finds, what it takes away, the rest) and the predicates of a tree,
    for one backend."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def predicate(self, node: Node) -> sa.ColumnElement:
        backend = self.backend
        expression = backend.express(node)
        if expression is not None:
            return backend.id.in_(backend.matching(expression))
        if isinstance(node, And):
            return sa.and_(*(self.predicate(item) for item in node.items))
        if isinstance(node, Or):
            return sa.or_(*(self.predicate(item) for item in node.items))
        if isinstance(node, Not):
            return sa.not_(self.predicate(node.item))
        if isinstance(node, DateRange):
            return sa.and_(sa.true(), *self.dated(node))
        if isinstance(node, Exact) and node.field == "m":
            return backend.message_id(node.value)
        if isinstance(node, Exact):
            # IN, not `=` a scalar subquery: for a list that is not there that is NULL, and its
            # NOT (`-l:nowhere@x`) NULL again, which found no email instead of every one.
            return backend.list_id.in_(sa.select(mailing_lists.c.id).where(mailing_lists.c.name == node.value))
        raise TypeError(node)

    def dated(self, node: DateRange) -> list[sa.ColumnElement]:
        """The emails' dates within `node`, as conditions of the backend's rows."""
        bounds = []
        if node.start is not None:
            bounds.append(self.backend.date >= node.start)
        if node.end is not None:
            bounds.append(self.backend.date < node.end)
        return bounds

    def parts(self, tree: Node) -> tuple[list[Node], list[Node], list[Node]] | None:
        """(what the index finds, what it takes away, the rest) of the tree's top-level AND, or
        None when the index has nothing to find and rank."""
        items = tree.items if isinstance(tree, And) else (tree,)
        text: list[Node] = [
            item for item in items if self.backend.express(item) is not None and not isinstance(item, Not)
        ]
        if not self.backend.ranks(text):
            return None
        negated: list[Node] = [
            item for item in items if isinstance(item, Not) and self.backend.express(item.item) is not None
        ]
        return text, negated, [item for item in items if item not in text and item not in negated]


def _statement(
    compiler: _Compiler, tree: Node, list_id: int | None, sort: str, walk: bool = False
) -> tuple[sa.Select, sa.Select]:
    """(the ids and scores in order, the count) of the emails `tree` finds on public lists; with
    `walk`, by date walking the dates (SQLite: search_fts5)."""
    parts = compiler.parts(tree)
    if parts is None:  # nothing for the index to find: every part is a predicate
        parts = [], [], list(tree.items if isinstance(tree, And) else (tree,))
    text, negated, rest = parts
    predicates = [compiler.predicate(item) for item in rest]
    if walk:
        # The walk begins and ends at the dates asked (each a facet of the match too): `d:2010
        # gps` newest first walked the eleven later years' dates first.
        predicates += [bound for item in text if isinstance(item, DateRange) for bound in compiler.dated(item)]
    return compiler.backend.statement(text, negated, predicates, list_id, sort, walk=walk, window=RANK_WINDOW)


def matching_ids(
    conn: Connection, tree: Node, *, list_id: int | None = None, sort: str = "date-desc", limit: int | None = None
) -> list[int]:
    """The ids of the emails `tree` finds on public lists (of `list_id` alone when given), in
    `sort` order, at most `limit` of them. By date every match; by relevance the ranked window
    (RANK_WINDOW ids at most): exports and feeds ask by date."""
    ids, _ = _statement(_compiler(conn), tree, list_id, sort)
    if limit is not None:
        ids = ids.limit(limit)
    # SQLite's window joins the dates of the rows up to its page's end alone (search_fts5._page_end).
    return [row.id for row in conn.execute(ids, {"offset": 0, "limit": limit or RANK_WINDOW})]


def count(conn: Connection, tree: Node, *, list_id: int | None = None) -> int:
    """How many emails of public lists `tree` finds (of `list_id` alone when given)."""
    _, counting = _statement(_compiler(conn), tree, list_id, "date-desc")
    return conn.execute(counting).scalar_one()


def search(
    conn: Connection,
    tree: Node,
    *,
    list_id: int | None = None,
    sort: str = "relevance",
    page: Page,
    count_limit: int | None = None,
    deadline_ms: int | None = None,
) -> Found:
    """One page of the emails `tree` finds on public lists, with their scores and the count, exact
    up to `count_limit` (None: always). By relevance, the RANK_WINDOW latest matching arrivals are
    ranked first, then the other matches follow, latest arrival first, their score None; by date,
    all are ordered. Its statements stop after `deadline_ms` (None: never) with
    search_deadline.SearchTooCostly."""
    with deadline(conn, deadline_ms):
        return _search(conn, tree, list_id, sort, page, count_limit)


def _search(conn: Connection, tree: Node, list_id: int | None, sort: str, page: Page, count_limit: int | None) -> Found:
    compiler = _compiler(conn)
    ranks = compiler.parts(tree) is not None
    ids, counting = _paged(compiler, tree, list_id, sort)
    limit, offset = page.bound()["limit"], page.bound()["offset"]
    # The count stops at the first match past both the limit and this page's end: enough to say
    # "more than the limit" and whether a next page exists, without reading every match.
    reach = max(count_limit, offset + limit) if count_limit is not None else None
    counted = None
    walk_from = compiler.backend.walk_from()
    if sort != "relevance" and walk_from is not None and ranks:
        # The index alone: how to read them by date (counted far enough to tell).
        counted = _count(conn, counting, None if reach is None else max(reach, walk_from))
        if counted >= walk_from:
            if sort == "date-desc":
                tree = _since_the_latest(conn, compiler, tree, list_id, offset + limit)
            ids, _ = _paged(compiler, tree, list_id, sort, walk=True)
    windowed = sort == "relevance" and ranks
    if ranks and count_limit is not None and isinstance(compiler.backend, search_pg.PostgresSearch):
        spanned = _by_spans(conn, compiler, tree, list_id, sort, (offset, limit), count_limit)
        if spanned is not None:
            return spanned
    hits: list = []
    if offset < RANK_WINDOW or not windowed:
        hits = list(conn.execute(ids, {"limit": limit, "offset": offset}))
    if windowed and offset + limit > RANK_WINDOW:
        # Past the ranked window, the other matches follow, latest arrival first, without a score.
        rest, _ = _paged(compiler, tree, list_id, "arrival")
        skip = RANK_WINDOW + max(0, offset - RANK_WINDOW)
        hits = [*hits, *conn.execute(rest, {"limit": limit - len(hits), "offset": skip}).all()]
    if hits and hits[0].total is not None:  # counted exactly on the way (PostgreSQL, a small window)
        total = hits[0].total
    else:
        total = counted if counted is not None else _count(conn, counting, reach)
    return _found(conn, [(hit.id, hit.score) for hit in hits], total, offset + limit, count_limit)


def _since_the_latest(conn: Connection, compiler: _Compiler, tree: Node, list_id: int | None, needed: int) -> Node:
    """SQLite, newest first, a match of many (walked): `tree` narrowed to the whole years from that
    of the oldest of its `needed` latest arrivals on. Those arrivals are `needed` matches dated
    then or later, so the `needed` newest by date are too; and the walk, which reads the ids of
    every match first to test each email of the dates' index against them, reads those years'
    alone. Arrivals follow the dates loosely (an archive imported list by list, or out of order,
    narrows less; never wrongly). The walk's statement newest first on the corpus, median of 200
    in process: `gpsd` 5.0 -> 0.9 ms (and 0.1 for the arrivals' dates), `gpsd -python` 4.9 -> 1.0
    (0.3), `f:esr@thyrsus.com` 3.3 -> 1.8 (0.6); at 1,000,000 messages, a search in process,
    `gpsd` 197-273 -> 4-10 ms, `offset=5000` 177-295 -> 27-32. Not narrowed past half the
    archive's years: the match is then asked with each year's facet, whose emails FTS5 reads
    (`satel*` at `offset=5000`, eleven years of eighteen, 91-107 -> 138-142 ms). Not oldest first:
    arrivals are read latest first."""
    arrivals, _ = _paged(compiler, tree, list_id, "arrival")
    oldest, first, last = conn.execute(_oldest_of(arrivals), {"limit": needed, "offset": 0}).one()
    if oldest is None or 2 * (last.year - oldest.year + 1) > last.year - first.year + 1:
        return tree
    within = DateRange(datetime(oldest.year, 1, 1), _new_year(last.year + 1))
    return And((*(tree.items if isinstance(tree, And) else (tree,)), within))


@lru_cache(maxsize=512)
def _oldest_of(arrivals: sa.Select) -> sa.Select:
    """The oldest date of the emails `arrivals` finds (its LIMIT and OFFSET parameters), and the
    archive's newest date (from the dates' index: the tiling of the years up to it is a few words,
    not the centuries up to 9999)."""
    found = arrivals.subquery("arrivals")
    oldest = sa.select(sa.func.min(emails.c.date)).where(emails.c.id.in_(sa.select(found.c.id))).scalar_subquery()
    bounds = (
        sa.select(sa.func.min(emails.c.date)).scalar_subquery(),
        sa.select(sa.func.max(emails.c.date)).scalar_subquery(),
    )
    return sa.select(oldest, *bounds)


def _new_year(year: int) -> datetime | None:
    """The first moment of `year`, None (an open end) past the last year a date can have."""
    return datetime(year, 1, 1) if year <= datetime.max.year else None


def _found(
    conn: Connection, hits: list[tuple[int, float | None]], total: int, end: int, count_limit: int | None
) -> Found:
    """The page of `hits` (id, score) that ends at the `end`th match, of `total` (the count limit
    plus one or more when not counted further)."""
    rows = emails_by_id(conn, [email_id for email_id, _ in hits])
    scores = [None if score is None else float(score) for _, score in hits]
    if count_limit is not None and total > count_limit:
        return Found(count_limit, False, end < total, rows, scores)
    return Found(total, True, end < total, rows, scores)


def _by_spans(
    conn: Connection,
    compiler: _Compiler,
    tree: Node,
    list_id: int | None,
    sort: str,
    page: tuple[int, int],
    count_limit: int,
) -> Found | None:
    """On PostgreSQL: the matches read in the search's order a span at a time, as far as the count
    limit, the page's end and by relevance the window need (search_spans.span_matches); by relevance
    the RANK_WINDOW newest ranked, the others after them as they arrived. None when reading every
    match costs less."""
    offset, limit = page
    spans = _spans(compiler, tree, list_id, sort)
    # The window is the same on every page: the RANK_WINDOW newest, whatever the page asks.
    window_size = RANK_WINDOW if spans.scores is not None else 0
    found = search_spans.span_matches(conn, spans, max(count_limit, offset + limit, window_size) + 1)
    if found is None:
        return None
    window, rest = found[:window_size], found[window_size:]
    hits: list[tuple[int, float | None]]
    if spans.scores is not None and offset < len(window):  # the page starts in the ranked window
        ranked = conn.execute(spans.scores, {"ids": window, "limit": limit, "offset": offset}).all()
        hits = [*((row.id, row.score) for row in ranked), *((email_id, None) for email_id in rest)][:limit]
    else:
        hits = [(email_id, None) for email_id in found[offset : offset + limit]]
    # Not every match read: `found` holds one past the count limit, the page's end and the window.
    return _found(conn, hits, len(found), offset + limit, count_limit)


@lru_cache(maxsize=512)
def _spans(compiler: _Compiler, tree: Node, list_id: int | None, sort: str) -> search_spans.Spans:
    backend = compiler.backend
    if not isinstance(backend, search_pg.PostgresSearch):
        raise TypeError(backend)
    text, negated, rest = compiler.parts(tree) or ([], [], [])
    return backend.spans(text, negated, [compiler.predicate(item) for item in rest], list_id, sort)


def _count(conn: Connection, counting: sa.Select, reach: int | None) -> int:
    """The number of matches, or reach + 1 when there are more than `reach` (None: every one)."""
    if reach is None:
        return conn.execute(counting).scalar_one()
    return conn.execute(_bounded(counting), {"bound": reach + 1}).scalar_one()


@lru_cache(maxsize=512)
def _bounded(counting: sa.Select) -> sa.Select:
    """`counting` stopped after `bound` matches: a LIMIT on the rows it counts, which both FTS5 and
    PostgreSQL's bitmap scan honour by reading no further."""
    rows = counting.with_only_columns(sa.literal_column("1")).limit(_BOUND).subquery("counted")
    return sa.select(COUNT).select_from(rows)


def _compiler(conn: Connection) -> _Compiler:
    if conn.dialect.name == "postgresql":
        return _compiler_for(None)
    return _compiler_for(search_fts5.lists(conn))


# A search's statements are kept, by the tree and what else makes them (the lists, the order, the
# list asked for), with LIMIT and OFFSET as parameters: building them and their cache key for
# SQLAlchemy's compiled cache was a tenth of a search's time, and a reader paging through results,
# or many asking the same, ask the same statements again.
@lru_cache(maxsize=64)
def _compiler_for(lists: tuple[tuple[int, str], ...] | None) -> _Compiler:
    """PostgreSQL's (`lists` None), or SQLite's for these lists (id, name)."""
    return _Compiler(search_pg.PostgresSearch() if lists is None else search_fts5.SqliteSearch(lists))


@lru_cache(maxsize=512)
def _paged(
    compiler: _Compiler, tree: Node, list_id: int | None, sort: str, walk: bool = False
) -> tuple[sa.Select, sa.Select]:
    ids, counting = _statement(compiler, tree, list_id, sort, walk)
    return ids.limit(_LIMIT).offset(_OFFSET), counting


_LIMIT, _OFFSET = sa.bindparam("limit", type_=sa.Integer), sa.bindparam("offset", type_=sa.Integer)
_BOUND = sa.bindparam("bound", type_=sa.Integer)


_BY_ID = email_query(extra=(emails.c.content,)).where(emails.c.id.in_(sa.bindparam("ids", expanding=True)))


def emails_by_id(conn: Connection, ids: list[int]) -> list[Row]:
    """The emails `ids` (shaped as store.emails.EMAIL_ROW + content), in the order of `ids`."""
    if not ids:
        return []
    found = {row.id: row for row in conn.execute(_BY_ID, {"ids": ids})}
    return [found[email_id] for email_id in ids if email_id in found]


_CHILDREN = children_query(PARENT.c.id.in_(sa.bindparam("ids", expanding=True)))


def children(conn: Connection, ids: list[int]) -> dict[int, list[str]]:
    """The replies' hashes of each of the emails `ids`, as the listings give them."""
    result: dict[int, list[str]] = {}
    if ids:
        for parent_id, message_id_hash in conn.execute(_CHILDREN, {"ids": ids}):
            result.setdefault(parent_id, []).append(message_id_hash)
    return result
