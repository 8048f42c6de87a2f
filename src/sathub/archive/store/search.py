"""The SQL of search: one query tree (archive/search/query.py) compiled for either backend.

SQLite matches with the FTS5 table `email_search` (`MATCH`, ranked by `bm25`); PostgreSQL with
the `tsvector` of `email_search.document` (`@@`, ranked by `ts_rank`), both kept by the triggers of
migrations 0010 and 0013. The text part of the tree's top-level AND becomes one match expression,
which also ranks; every other part (dates, `m:`, `l:`, and text under an OR or NOT that SQLite's
syntax cannot say) becomes a predicate, text ones as `id IN (one match)`. Mail of a private list
is never selected, whatever the query.

The rows a search reads: on SQLite `emails` (joined to the FTS5 match by rowid); on PostgreSQL
`email_search` itself, which carries each email's list and date (0013), so that no match is looked
up in `emails`: private lists are left out by their ids (`list_id NOT IN (the private lists)`,
read once per statement from the small `mailing_lists`), and `emails` is read for the page's
rows only.

What other doors use (the API and the page here; the search feed and the mbox export of a search):
`search(conn, tree, ...)` → Found (a page of rows, their scores, the exact count), and
`matching_ids(conn, tree, ...)` → the ids alone, in the asked order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Row

from sathub.archive.search.query import And, DateRange, Exact, Node, Not, Or, Term
from sathub.archive.store.listing import COUNT, Page
from sathub.archive.store.reads import _children_query, _email_query, _parent
from sathub.archive.tables import PRIVATE, emails, mailing_lists

SORTS = ("relevance", "date-desc", "date-asc")

# The index of migration 0010, named here only (not part of tables.metadata: the migration and
# its triggers own it, and nothing but them writes it).
_FTS = sa.table("email_search", sa.column("rowid", sa.Integer))
_FTS_NAME: sa.ColumnElement = sa.literal_column("email_search")
_PG = sa.table(
    "email_search",
    sa.column("email_id", sa.Integer),
    sa.column("list_id", sa.Integer),
    sa.column("date", sa.DateTime),
    sa.column("heading", postgresql.TSVECTOR),
    sa.column("document", postgresql.TSVECTOR),
)
_PG_MATCHED = _PG.alias("matched")
_SQLITE_COLUMNS = {"subject": "subject", "body": "body", "sender": "sender", "files": "files"}
_PG_WEIGHTS = {"subject": "A", "body": "B", "sender": "C", "files": "D"}
_HEADING_FIELDS = ("subject", "sender", "files")  # the fields of email_search.heading (0013)
# bm25 weights per FTS5 column (subject, body, sender, files): a word in the subject says more.
_BM25 = (sa.literal(4.0), sa.literal(1.0), sa.literal(2.0), sa.literal(1.0))
_PUBLIC = sa.and_(
    mailing_lists.c.id == emails.c.list_id,
    mailing_lists.c.archive_policy != PRIVATE,
)
_PRIVATE_LISTS = sa.select(mailing_lists.c.id).where(mailing_lists.c.archive_policy == PRIVATE)


@dataclass(frozen=True)
class Found:
    """One page of results: rows shaped as store.reads.EMAIL_ROW + content, in order, each with its
    score (higher is more relevant; None when sorted by date), and the exact count of all."""

    count: int
    rows: Sequence[Row]
    scores: list[float | None]


# SQLite's FTS5 expressions -------------------------------------------------------------------


def _fts_term(term: Term) -> str:
    phrase = '"' + " ".join(term.words) + '"' + (" *" if term.prefix else "")
    return f"{{{_SQLITE_COLUMNS[term.field]}}} : {phrase}" if term.field else phrase


def fts_expression(node: Node) -> str | None:
    """`node` as one FTS5 expression, or None when FTS5 cannot say it (dates, exact fields, a NOT
    with nothing to subtract from, since FTS5's NOT is binary)."""
    if isinstance(node, Term):
        return _fts_term(node)
    if isinstance(node, Or):
        parts = [fts_expression(item) for item in node.items]
        return None if None in parts else "(" + " OR ".join(p for p in parts if p) + ")"
    if isinstance(node, And):
        positive = [fts_expression(item) for item in node.items if not isinstance(item, Not)]
        negative = [fts_expression(item.item) for item in node.items if isinstance(item, Not)]
        if not positive or None in positive or None in negative:
            return None
        return "(" + " AND ".join(p for p in positive if p) + "".join(f" NOT {n}" for n in negative) + ")"
    return None


# PostgreSQL's tsquery ------------------------------------------------------------------------


def _ts_term(term: Term) -> str:
    def lexemes(weight: str) -> str:
        last = len(term.words) - 1
        return " <-> ".join(
            f"'{word}':{'*' if term.prefix and i == last else ''}{weight}" for i, word in enumerate(term.words)
        )

    if term.field:
        return "(" + lexemes(_PG_WEIGHTS[term.field]) + ")"
    if len(term.words) == 1:
        return "(" + lexemes("") + ")"
    # A phrase stays inside one field: positions of the fields follow one another in a document.
    return "(" + " | ".join(f"({lexemes(weight)})" for weight in _PG_WEIGHTS.values()) + ")"


def tsquery(node: Node) -> str | None:
    """`node` as a tsquery text (the lexemes are already words of text.py), or None when it holds
    dates or exact fields."""
    if isinstance(node, Term):
        return _ts_term(node)
    if isinstance(node, Not):
        inner = tsquery(node.item)
        return None if inner is None else f"!{inner}"
    if isinstance(node, And | Or):
        parts = [tsquery(item) for item in node.items]
        if None in parts:
            return None
        return "(" + (" & " if isinstance(node, And) else " | ").join(p for p in parts if p) + ")"
    return None


# The statement -------------------------------------------------------------------------------


class _Compiler:
    """The match (the ranked text part) and the predicates of one tree, for one dialect."""

    def __init__(self, dialect: str) -> None:
        self.postgresql = dialect == "postgresql"
        # The columns of the rows a search reads (module docstring): the index's on PostgreSQL.
        rows = _PG.c if self.postgresql else emails.c
        self.id: sa.ColumnElement = rows.email_id if self.postgresql else rows.id
        self.date: sa.ColumnElement = rows.date
        self.list_id: sa.ColumnElement = rows.list_id

    def express(self, node: Node) -> str | None:
        return tsquery(node) if self.postgresql else fts_expression(node)

    def matching(self, expression: str) -> sa.ColumnElement:
        """`id IN (the emails the match expression finds)`."""
        if self.postgresql:
            query = sa.select(_PG_MATCHED.c.email_id).where(_PG_MATCHED.c.document.op("@@")(_ts(expression)))
        else:
            query = sa.select(_FTS.c.rowid).where(_FTS_NAME.op("MATCH")(sa.literal(expression)))
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
        items = tree.items if isinstance(tree, And) else (tree,)
        text: list[Node] = [item for item in items if self.express(item) is not None and not isinstance(item, Not)]
        if not text:
            return [], None, [self.predicate(item) for item in items]
        negated: list[Node] = [item for item in items if isinstance(item, Not) and self.express(item.item) is not None]
        rest = [item for item in items if item not in text and item not in negated]
        return self.match(text, negated), self.express(_all(text)), [self.predicate(item) for item in rest]

    def match(self, text: list[Node], negated: list[Node]) -> list[sa.ColumnElement]:
        """The index conditions of the words `text` without the `negated` ones. On PostgreSQL the
        parts of subject, sender and file names alone (`s:`, `f:`, `n:`) are asked of `heading`
        (migration 0013), which holds those fields only: the GIN index cannot tell the fields (the
        weights) apart, so each email it finds is checked again against its tsvector, which is a
        few words in `heading` and the whole text in `document`. A NOT alone is never asked of an
        index (it would read all of it): then everything is asked of `document`, as before 0013."""
        if not self.postgresql:
            return [_FTS_NAME.op("MATCH")(sa.literal(self.express(_all(text + negated))))]
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


def _statement(conn: Connection, tree: Node, list_id: int | None, sort: str) -> tuple[sa.Select, sa.Select]:
    """(the ids and scores in order, the count) of the emails `tree` finds on public lists."""
    compiler = _Compiler(conn.dialect.name)
    matched, ranked, predicates = compiler.split(tree)
    where = list(predicates)
    if list_id is not None and matched and not compiler.postgresql:
        # `+ 0` keeps SQLite from walking the list's emails by index and asking FTS5 about each
        # (825 ms for `gpsd` in gpsd-dev, 9,545 matches): the match drives, each row's list is
        # read by key.
        where.append(compiler.list_id + 0 == list_id)
    elif list_id is not None:
        where.append(compiler.list_id == list_id)
    where.extend(matched)
    source: sa.FromClause
    if compiler.postgresql:
        source = _PG
        where.append(compiler.list_id.not_in(_PRIVATE_LISTS))
    else:
        source = _FTS.join(emails, emails.c.id == _FTS.c.rowid) if matched else emails
        source = source.join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
        where.append(_PUBLIC)
    newest = (compiler.date.desc(), compiler.id.desc())
    count = sa.select(COUNT).select_from(source).where(*where)
    if matched and sort == "relevance":
        # Ranked among the RANK_WINDOW latest arrivals that match, so that a common word costs
        # the scores of a thousand emails, not of all of them. FTS5 hands its rows over in rowid
        # (= id) order, and SQLite scores only the rows the window keeps.
        if compiler.postgresql:
            assert ranked is not None  # words to find are words to rank by
            window = _latest(where, tree, ranked)
            ranked_documents: sa.FromClause = window
            score: sa.ColumnElement = window.c.score
        else:
            bm25 = (-sa.func.bm25(_FTS_NAME, *_BM25)).label("score")
            window = _window(compiler, source, where, _FTS.c.rowid, bm25)
            ranked_documents, score = window, window.c.score
        ranking = (score.desc(), window.c.date.desc(), window.c.id.desc())
        total: sa.ColumnElement = window.c.total if compiler.postgresql else _NO_TOTAL
        if not compiler.postgresql and (predicates or list_id is not None):  # the index cannot count
            total = _all_in_window()
        ids = sa.select(window.c.id, score.label("score"), total).select_from(ranked_documents)
        return ids.order_by(*ranking), count
    if sort == "arrival":  # what follows the relevance window: the other matches, latest first
        order: tuple = ((compiler.id + 0).desc(),) if compiler.postgresql else (compiler.id.desc(),)
    else:
        order = (compiler.date, compiler.id) if sort == "date-asc" else newest
    total = _TOTAL if compiler.postgresql else _NO_TOTAL
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


# PostgreSQL reads every match to sort it anyway: the count rides along (one scan of the match,
# not two). SQLite streams the window from FTS5 in rowid order (bm25 cannot be beside a window
# function there) and counts the window itself when it holds every match, else the index.
_TOTAL = sa.func.count().over().label("total")
_RANKED = _PG.alias("ranked")
_NO_TOTAL = sa.null().label("total")

RANK_WINDOW = 1_000


def _all_in_window() -> sa.ColumnElement:
    """SQLite: a window of fewer than RANK_WINDOW rows holds every match, so its size is the count
    (no second scan of the match joined to emails, for a date range, `l:` or a list). Not asked
    where FTS5 counts from its index alone: counting the window costs 0.5 ms for a common word."""
    rows = sa.func.count().over()
    return sa.case((rows < RANK_WINDOW, rows), else_=sa.null()).label("total")


def _window(
    compiler: _Compiler, source: sa.FromClause, where: list, arrival: sa.ColumnElement, *extra: sa.ColumnElement
) -> sa.Subquery:
    return (
        sa.select(compiler.id.label("id"), compiler.date.label("date"), *extra)
        .select_from(source)
        .where(*where)
        .order_by(arrival.desc())
        .limit(RANK_WINDOW)
        .subquery("window")
    )


def _ranks(conn: Connection, tree: Node) -> bool:
    """Whether the tree has words to rank by (else relevance is simply newest first)."""
    return bool(_Compiler(conn.dialect.name).split(tree)[0])


def _index_count(conn: Connection, tree: Node) -> sa.Select | None:
    """SQLite's count read from the FTS5 index alone, when the tree is text only and no list is
    private (then every indexed email is a result the joins would keep); else None. PostgreSQL's
    count reads the index's table alone anyway."""
    compiler = _Compiler(conn.dialect.name)
    expression = compiler.express(tree)
    if compiler.postgresql or expression is None or isinstance(tree, Not) or conn.execute(_ANY_PRIVATE).scalar():
        return None
    return sa.select(COUNT).select_from(_FTS).where(_FTS_NAME.op("MATCH")(sa.literal(expression)))


_ANY_PRIVATE = sa.select(sa.exists().where(mailing_lists.c.archive_policy == PRIVATE))


def matching_ids(
    conn: Connection, tree: Node, *, list_id: int | None = None, sort: str = "date-desc", limit: int | None = None
) -> list[int]:
    """The ids of the emails `tree` finds on public lists (of `list_id` alone when given), in
    `sort` order, at most `limit` of them. By date every match; by relevance the ranked window
    (RANK_WINDOW ids at most): exports and feeds ask by date."""
    ids, _ = _statement(conn, tree, list_id, sort)
    if limit is not None:
        ids = ids.limit(limit)
    return [row.id for row in conn.execute(ids)]


def count(conn: Connection, tree: Node, *, list_id: int | None = None) -> int:
    """How many emails of public lists `tree` finds (of `list_id` alone when given)."""
    fast = _index_count(conn, tree) if list_id is None else None
    _, counting = _statement(conn, tree, list_id, "date-desc")
    return conn.execute(fast if fast is not None else counting).scalar_one()


def search(conn: Connection, tree: Node, *, list_id: int | None = None, sort: str = "relevance", page: Page) -> Found:
    """One page of the emails `tree` finds on public lists, with their scores and the exact count.
    By relevance, the RANK_WINDOW latest matching arrivals are ranked first, then the other
    matches follow, latest arrival first, their score None; by date, all are ordered."""
    ids, counting = _statement(conn, tree, list_id, sort)
    limit, offset = page.bound()["limit"], page.bound()["offset"]
    windowed = sort == "relevance" and _ranks(conn, tree)
    hits = conn.execute(ids.limit(limit).offset(offset)).all() if offset < RANK_WINDOW or not windowed else []
    if windowed and offset + limit > RANK_WINDOW:
        # Past the ranked window, the other matches follow, latest arrival first, without a score.
        rest, _ = _statement(conn, tree, list_id, "arrival")
        skip = RANK_WINDOW + max(0, offset - RANK_WINDOW)
        hits = [*hits, *conn.execute(rest.limit(limit - len(hits)).offset(skip)).all()]
    if hits and hits[0].total is not None:
        total = hits[0].total
    else:
        fast = _index_count(conn, tree) if list_id is None else None
        total = conn.execute(fast if fast is not None else counting).scalar_one()
    rows = emails_by_id(conn, [hit.id for hit in hits])
    return Found(total, rows, [None if hit.score is None else float(hit.score) for hit in hits])


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
