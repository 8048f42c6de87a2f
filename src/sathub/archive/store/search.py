"""The SQL of search: one query tree (archive/search/query.py) compiled for either backend.

SQLite matches with the FTS5 table `email_search` (`MATCH`, ranked by `bm25`); PostgreSQL with
the `tsvector` of `email_search.document` (`@@`, ranked by `ts_rank`), both kept by the triggers of
migrations 0010, 0013, 0014 and 0015 (and 0016: PostgreSQL's dates under a B-tree). The text part
of the tree's top-level AND becomes one match expression, which also ranks; every other part
becomes a predicate, text ones as `id IN (one match)`. Mail of a private list is never selected,
whatever the query.

The rows a search reads: on SQLite the FTS5 index alone, the email's list and date being words of
it (facets, migration 0015: archive/search/facets.py), so that dates, `l:`, `mlist=` and the
private lists are part of the match, and `emails` is read for the ranked window's dates, the page's
rows, `m:`, and sorting by date; on PostgreSQL `email_search` itself, which carries each email's
list and date (0013): private lists are left out by their ids (`list_id NOT IN (the private
lists)`, read once per statement from the small `mailing_lists`), and `emails` is read for the
page's rows only.

What other doors use (the API and the page here; the search feed and the mbox export of a search):
`search(conn, tree, ...)` → Found (a page of rows, their scores, the exact count), and
`matching_ids(conn, tree, ...)` → the ids alone, in the asked order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Row

from sathub.archive.search import facets
from sathub.archive.search.expressions import facets_expression, fts_expression, has_words, tsquery
from sathub.archive.search.query import And, DateRange, Exact, Node, Not, Or, Term
from sathub.archive.store import search_fts5 as fts5
from sathub.archive.store.listing import COUNT, Page
from sathub.archive.store.reads import _children_query, _email_query, _parent
from sathub.archive.tables import PRIVATE, emails, mailing_lists

SORTS = ("relevance", "date-desc", "date-asc")

# PostgreSQL's index (migrations 0010, 0013), named here only (not part of tables.metadata: the
# migrations and their triggers own it, and nothing but them writes it).
_PG = sa.table(
    "email_search",
    sa.column("email_id", sa.Integer),
    sa.column("list_id", sa.Integer),
    sa.column("date", sa.DateTime),
    sa.column("heading", postgresql.TSVECTOR),
    sa.column("document", postgresql.TSVECTOR),
)
_PG_MATCHED = _PG.alias("matched")
_HEADING_FIELDS = ("subject", "sender", "files")  # the fields of email_search.heading (0013)
_PUBLIC = sa.and_(
    mailing_lists.c.id == emails.c.list_id,
    mailing_lists.c.archive_policy != PRIVATE,
)
_PRIVATE_LISTS = sa.select(mailing_lists.c.id).where(mailing_lists.c.archive_policy == PRIVATE)
_LISTS = sa.select(mailing_lists.c.id, mailing_lists.c.name, mailing_lists.c.archive_policy)


@dataclass(frozen=True)
class Found:
    """One page of results: rows shaped as store.reads.EMAIL_ROW + content, in order, each with its
    score (higher is more relevant; None when sorted by date), and the exact count of all."""

    count: int
    rows: Sequence[Row]
    scores: list[float | None]


# The statement -------------------------------------------------------------------------------


class _Compiler:
    """The match (the ranked text part) and the predicates of one tree, for one dialect."""

    def __init__(self, postgresql: bool, lists: tuple[tuple[int, str, str], ...]) -> None:
        self.postgresql = postgresql
        # The columns of the rows a search reads (module docstring): the index's on PostgreSQL.
        rows = _PG.c if self.postgresql else emails.c
        self.id: sa.ColumnElement = rows.email_id if self.postgresql else rows.id
        self.date: sa.ColumnElement = rows.date
        self.list_id: sa.ColumnElement = rows.list_id
        # SQLite asks FTS5 for lists by their facets (migration 0015): `lists` (id, name, policy).
        self.list_ids = {name: list_id for list_id, name, _ in lists}
        self.private_ids = [list_id for list_id, _, policy in lists if policy == PRIVATE]

    def express(self, node: Node) -> str | None:
        return tsquery(node) if self.postgresql else fts_expression(node, self.list_ids)

    def matching(self, expression: str) -> sa.ColumnElement:
        """`id IN (the emails the match expression finds)`."""
        if self.postgresql:
            query = sa.select(_PG_MATCHED.c.email_id).where(_PG_MATCHED.c.document.op("@@")(_ts(expression)))
        else:
            query = fts5.matching(expression)
        return self.id.in_(query)

    def predicate(self, node: Node) -> sa.ColumnElement:
        expression = self.express(node)
        if expression is not None:
            return self.matching(expression)
        if isinstance(node, And):
            return sa.and_(*(self.predicate(item) for item in node.items))
        if isinstance(node, Or):
            return sa.or_(*(self.predicate(item) for item in node.items))
        if isinstance(node, Not):
            return sa.not_(self.predicate(node.item))
        if isinstance(node, DateRange):
            bounds = []
            if node.start is not None:
                bounds.append(self.date >= node.start)
            if node.end is not None:
                bounds.append(self.date < node.end)
            return sa.and_(sa.true(), *bounds)
        if isinstance(node, Exact) and node.field == "m":
            if self.postgresql:
                return self.id.in_(sa.select(emails.c.id).where(emails.c.message_id == sa.literal(node.value)))
            return emails.c.message_id == sa.literal(node.value)
        if isinstance(node, Exact):
            return (
                self.list_id
                == sa.select(mailing_lists.c.id).where(mailing_lists.c.name == node.value).scalar_subquery()
            )
        raise TypeError(node)

    def split(self, tree: Node) -> tuple[list[sa.ColumnElement], str | None, list[sa.ColumnElement]]:
        """(the match: conditions on the index, none when the tree has no words to find; what
        ranks: the words without the NOTs; the other predicates) of the tree's top-level AND."""
        parts = self.parts(tree)
        if parts is None:
            items = tree.items if isinstance(tree, And) else (tree,)
            return [], None, [self.predicate(item) for item in items]
        text, negated, rest = parts
        return self.match(text, negated), self.express(_all(text)), [self.predicate(item) for item in rest]

    def parts(self, tree: Node) -> tuple[list[Node], list[Node], list[Node]] | None:
        """(what the index finds, what it takes away, the rest) of the tree's top-level AND, or
        None when the index has no words to find (SQLite: dates and lists alone are facets, which
        the index finds but cannot rank)."""
        items = tree.items if isinstance(tree, And) else (tree,)
        text: list[Node] = [item for item in items if self.express(item) is not None and not isinstance(item, Not)]
        if not text or (not self.postgresql and not any(has_words(item) for item in text)):
            return None
        negated: list[Node] = [item for item in items if isinstance(item, Not) and self.express(item.item) is not None]
        return text, negated, [item for item in items if item not in text and item not in negated]

    def match(self, text: list[Node], negated: list[Node]) -> list[sa.ColumnElement]:
        """The index conditions of the words `text` without the `negated` ones. On PostgreSQL the
        parts of subject, sender and file names alone (`s:`, `f:`, `n:`) are asked of `heading`
        (migration 0013), which holds those fields only: the GIN index cannot tell the fields (the
        weights) apart, so each email it finds is checked again against its tsvector, which is a
        few words in `heading` and the whole text in `document`. A NOT alone is never asked of an
        index (it would read all of it): then everything is asked of `document`, as before 0013.
        (SQLite's words never come here: _statement gives them to search_fts5.)"""
        heading = [item for item in text if _in_heading(item)]
        heading_not = [item for item in negated if _in_heading(item)]
        body = [item for item in text if item not in heading]
        body_not = [item for item in negated if item not in heading_not]
        if not heading or (body_not and not body):
            heading, heading_not, body, body_not = [], [], text, negated
        asked = ((_PG.c.heading, heading + heading_not), (_PG.c.document, body + body_not))
        queries = [(column, tsquery(_all(parts))) for column, parts in asked if parts and parts[0] in text]
        return [column.op("@@")(_ts(query)) for column, query in queries if query is not None]


def _all(items: list[Node]) -> Node:
    return items[0] if len(items) == 1 else And(tuple(items))


def _in_heading(node: Node) -> bool:
    """Whether every word of `node` is asked of the subject, the sender or the file names."""
    if isinstance(node, Term):
        return node.field in _HEADING_FIELDS
    if isinstance(node, Not):
        return _in_heading(node.item)
    return isinstance(node, And | Or) and all(_in_heading(item) for item in node.items)


def _ranked_by(tree: Node) -> sa.ColumnElement:
    """PostgreSQL: the tsvector a match is ranked by. `heading` when every word that ranks is asked
    of the subject, the sender or the file names (`s:`, `f:`, `n:`): ts_rank counts a word wherever
    it is, whatever the weight the query asks, so `document` counted the text's `release` for
    `s:release` too (SQLite's bm25 counts the asked column only), and reading a thousand whole
    texts was half of that search (6.7 -> 3.3 ms of CPU). Else `document`."""
    items = tree.items if isinstance(tree, And) else (tree,)
    words = [item for item in items if tsquery(item) is not None and not isinstance(item, Not)]
    return _RANKED.c.heading if all(_in_heading(item) for item in words) else _RANKED.c.document


def _ts(expression: str) -> sa.ColumnElement:
    return sa.cast(sa.literal(expression), postgresql.TSQUERY)


def _statement(
    compiler: _Compiler, tree: Node, list_id: int | None, sort: str, walk: bool = False
) -> tuple[sa.Select, sa.Select]:
    """(the ids and scores in order, the count) of the emails `tree` finds on public lists; with
    `walk`, by date on SQLite, walking the dates (search_fts5.statement). SQLite's trees with words
    are FTS5's alone; PostgreSQL's and SQLite's without words are split below."""
    parts = None if compiler.postgresql else compiler.parts(tree)
    if parts is not None:
        text, negated, rest = parts
        predicates = [compiler.predicate(item) for item in rest]
        expression = str(compiler.express(_all(text + negated)))
        if list_id is not None:
            expression = f"{expression} AND {facets_expression([facets.list_word(list_id)])}"
        if compiler.private_ids:
            private = facets_expression([facets.list_word(i) for i in compiler.private_ids])
            expression = f"({expression}) NOT {private}"
        return fts5.statement(expression, predicates, sort, walk=walk, window=RANK_WINDOW)
    matched, ranked, predicates = compiler.split(tree)
    where = list(predicates)
    if list_id is not None:
        where.append(compiler.list_id == list_id)
    where.extend(matched)
    source: sa.FromClause
    if compiler.postgresql:
        source = _PG
        where.append(compiler.list_id.not_in(_PRIVATE_LISTS))
    else:  # no words to find: the emails are read, and tested
        source = emails.join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
        where.append(_PUBLIC)
    count = sa.select(COUNT).select_from(source).where(*where)
    if matched and sort == "relevance":
        # Ranked among the RANK_WINDOW latest arrivals that match, so that a common word costs
        # the scores of a thousand emails, not of all of them (_latest).
        assert ranked is not None  # words to find are words to rank by
        window = _latest(where, tree, ranked)
        ranking = (window.c.score.desc(), window.c.date.desc(), window.c.id.desc())
        return sa.select(window.c.id, window.c.score, window.c.total).order_by(*ranking), count
    if sort == "arrival":  # what follows the relevance window: the other matches, latest first
        order: tuple = ((compiler.id + 0).desc(),) if compiler.postgresql else (compiler.id.desc(),)
    else:
        # PostgreSQL sorts by an expression of the date, which no index gives in order: with the
        # dates' B-tree (migration 0016) it walked that index newest first, testing every email's
        # tsvector, as if the page's end would stop it, but the count (`count(*) OVER ()`) reads
        # every match first: a rare word sorted by date took 34 ms instead of 0.6 (the corpus).
        date = compiler.date + _SAME_TIME if compiler.postgresql else compiler.date
        order = (date, compiler.id) if sort == "date-asc" else (date.desc(), compiler.id.desc())
    total = _TOTAL if compiler.postgresql else fts5.NO_TOTAL
    ids = sa.select(compiler.id.label("id"), sa.null().label("score"), total).select_from(source).where(*where)
    return ids.order_by(*order), count


def _latest(where: list, tree: Node, ranked: str) -> sa.Subquery:
    """PostgreSQL's relevance window: the RANK_WINDOW latest arrivals that match (id, date, score),
    each with the count of all matches. One pass over the match counts it and keeps the ids, sorted
    as plain integers (`count(*) OVER ()` and a sort of the rows kept every matching row twice:
    15 -> 10.5 ms of CPU for `gpsd`, 15,091 matches), and the window's tsvectors are then read by
    key (`= ANY`) to be ranked. The ids are sorted by the aggregate, not by the index's table read
    in id order, which would test each row against the match."""
    latest = postgresql.array_agg(postgresql.aggregate_order_by(_PG.c.email_id, _PG.c.email_id.desc()))
    found = (
        sa.select(sa.func.count().label("total"), latest[1:RANK_WINDOW].label("ids"))
        .select_from(_PG)
        .where(*where)
        .subquery("found")
    )
    score = sa.func.ts_rank(_ranked_by(tree), _ts(ranked)).label("score")
    return (
        sa.select(_RANKED.c.email_id.label("id"), _RANKED.c.date.label("date"), found.c.total, score)
        .select_from(found.join(_RANKED, _RANKED.c.email_id == sa.any_(found.c.ids)))
        .subquery("window")
    )


_SAME_TIME = sa.literal_column("INTERVAL '0 s'", sa.Interval)

# PostgreSQL reads every match to sort it anyway: the count rides along (one scan of the match,
# not two).
_TOTAL = sa.func.count().over().label("total")
_RANKED = _PG.alias("ranked")

RANK_WINDOW = 1_000  # relevance ranks the latest matches, this many (docs/archive-search.md)


def _ranks(compiler: _Compiler, tree: Node) -> bool:
    """Whether the tree has words to rank by (else relevance is simply newest first)."""
    return compiler.parts(tree) is not None


def matching_ids(
    conn: Connection, tree: Node, *, list_id: int | None = None, sort: str = "date-desc", limit: int | None = None
) -> list[int]:
    """The ids of the emails `tree` finds on public lists (of `list_id` alone when given), in
    `sort` order, at most `limit` of them. By date every match; by relevance the ranked window
    (RANK_WINDOW ids at most): exports and feeds ask by date."""
    ids, _ = _statement(_compiler(conn), tree, list_id, sort)
    if limit is not None:
        ids = ids.limit(limit)
    return [row.id for row in conn.execute(ids)]


def count(conn: Connection, tree: Node, *, list_id: int | None = None) -> int:
    """How many emails of public lists `tree` finds (of `list_id` alone when given)."""
    _, counting = _statement(_compiler(conn), tree, list_id, "date-desc")
    return conn.execute(counting).scalar_one()


def search(conn: Connection, tree: Node, *, list_id: int | None = None, sort: str = "relevance", page: Page) -> Found:
    """One page of the emails `tree` finds on public lists, with their scores and the exact count.
    By relevance, the RANK_WINDOW latest matching arrivals are ranked first, then the other
    matches follow, latest arrival first, their score None; by date, all are ordered."""
    compiler = _compiler(conn)
    ids, counting = _paged(compiler, tree, list_id, sort)
    counted = None
    if sort != "relevance" and not compiler.postgresql and compiler.parts(tree) is not None:
        counted = conn.execute(counting).scalar_one()  # FTS5 alone: how to read them by date
        if counted >= fts5.WALK_FROM:
            ids, _ = _paged(compiler, tree, list_id, sort, walk=True)
    limit, offset = page.bound()["limit"], page.bound()["offset"]
    windowed = sort == "relevance" and _ranks(compiler, tree)
    hits: list = []
    if offset < RANK_WINDOW or not windowed:
        hits = list(conn.execute(ids, {"limit": limit, "offset": offset}))
    if windowed and offset + limit > RANK_WINDOW:
        # Past the ranked window, the other matches follow, latest arrival first, without a score.
        rest, _ = _paged(compiler, tree, list_id, "arrival")
        skip = RANK_WINDOW + max(0, offset - RANK_WINDOW)
        hits = [*hits, *conn.execute(rest, {"limit": limit - len(hits), "offset": skip}).all()]
    if hits and hits[0].total is not None:
        total = hits[0].total
    else:
        total = counted if counted is not None else conn.execute(counting).scalar_one()
    rows = emails_by_id(conn, [hit.id for hit in hits])
    return Found(total, rows, [None if hit.score is None else float(hit.score) for hit in hits])


def _compiler(conn: Connection) -> _Compiler:
    postgresql = conn.dialect.name == "postgresql"
    return _compiler_for(postgresql, () if postgresql else tuple(tuple(row) for row in conn.execute(_LISTS)))


# A search's statements are kept, by the tree and what else makes them (the lists, the order, the
# list asked for), with LIMIT and OFFSET as parameters: building them and their cache key for
# SQLAlchemy's compiled cache was a tenth of a search's time, and a reader paging through results,
# or many asking the same, ask the same statements again.
@lru_cache(maxsize=64)
def _compiler_for(postgresql: bool, lists: tuple[tuple[int, str, str], ...]) -> _Compiler:
    return _Compiler(postgresql, lists)


@lru_cache(maxsize=512)
def _paged(
    compiler: _Compiler, tree: Node, list_id: int | None, sort: str, walk: bool = False
) -> tuple[sa.Select, sa.Select]:
    ids, counting = _statement(compiler, tree, list_id, sort, walk)
    return ids.limit(_LIMIT).offset(_OFFSET), counting


_LIMIT, _OFFSET = sa.bindparam("limit", type_=sa.Integer), sa.bindparam("offset", type_=sa.Integer)


_BY_ID = _email_query(extra=(emails.c.content,)).where(emails.c.id.in_(sa.bindparam("ids", expanding=True)))


def emails_by_id(conn: Connection, ids: list[int]) -> list[Row]:
    """The emails `ids` (shaped as store.reads.EMAIL_ROW + content), in the order of `ids`."""
    if not ids:
        return []
    found = {row.id: row for row in conn.execute(_BY_ID, {"ids": ids})}
    return [found[email_id] for email_id in ids if email_id in found]


_CHILDREN = _children_query(_parent.c.id.in_(sa.bindparam("ids", expanding=True)))


def children(conn: Connection, ids: list[int]) -> dict[int, list[str]]:
    """The replies' hashes of each of the emails `ids`, as the listings give them."""
    result: dict[int, list[str]] = {}
    if ids:
        for parent_id, message_id_hash in conn.execute(_CHILDREN, {"ids": ids}):
            result.setdefault(parent_id, []).append(message_id_hash)
    return result
