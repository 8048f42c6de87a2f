"""The SQL of search: one query tree (archive/search/query.py) compiled for either backend.

SQLite matches with the FTS5 table `email_search` (`MATCH`, ranked by `bm25`); PostgreSQL with
the `tsvector` of `email_search.document` (`@@`, ranked by `ts_rank`), both kept by the triggers of
migration 0010. The text part of the tree's top-level AND becomes one match expression, which
also ranks; every other part (dates, `m:`, `l:`, and text under an OR or NOT that SQLite's syntax
cannot say) becomes a predicate on `emails`, text ones as `id IN (one match)`. Mail of a private
list is never selected, whatever the query.

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
_PG = sa.table("email_search", sa.column("email_id", sa.Integer), sa.column("document", postgresql.TSVECTOR))
_SQLITE_COLUMNS = {"subject": "subject", "body": "body", "sender": "sender", "files": "files"}
_PG_WEIGHTS = {"subject": "A", "body": "B", "sender": "C", "files": "D"}
# bm25 weights per FTS5 column (subject, body, sender, files): a word in the subject says more.
_BM25 = (sa.literal(4.0), sa.literal(1.0), sa.literal(2.0), sa.literal(1.0))
_PUBLIC = sa.and_(
    mailing_lists.c.id == emails.c.list_id,
    mailing_lists.c.archive_policy != PRIVATE,
)


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

    def express(self, node: Node) -> str | None:
        return tsquery(node) if self.postgresql else fts_expression(node)

    def matching(self, expression: str) -> sa.ColumnElement:
        """`emails.id IN (the emails the match expression finds)`."""
        if self.postgresql:
            query = sa.select(_PG.c.email_id).where(_PG.c.document.op("@@")(_ts(expression)))
        else:
            query = sa.select(_FTS.c.rowid).where(_FTS_NAME.op("MATCH")(sa.literal(expression)))
        return emails.c.id.in_(query)

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
                bounds.append(emails.c.date >= node.start)
            if node.end is not None:
                bounds.append(emails.c.date < node.end)
            return sa.and_(sa.true(), *bounds)
        if isinstance(node, Exact) and node.field == "m":
            return emails.c.message_id == sa.literal(node.value)
        if isinstance(node, Exact):
            return (
                emails.c.list_id
                == sa.select(mailing_lists.c.id).where(mailing_lists.c.name == node.value).scalar_subquery()
            )
        raise TypeError(node)

    def split(self, tree: Node) -> tuple[str | None, str | None, list[sa.ColumnElement]]:
        """(the match expression, what ranks: its words without the NOTs, the other predicates)
        of the tree's top-level AND."""
        items = tree.items if isinstance(tree, And) else (tree,)
        text: list[Node] = [item for item in items if self.express(item) is not None and not isinstance(item, Not)]
        if not text:
            return None, None, [self.predicate(item) for item in items]
        negated: list[Node] = [item for item in items if isinstance(item, Not) and self.express(item.item) is not None]
        rest = [item for item in items if item not in text and item not in negated]
        matched = self.express(text[0] if len(text) == 1 and not negated else And(tuple(text + negated)))
        ranked = self.express(text[0] if len(text) == 1 else And(tuple(text)))
        return matched, ranked, [self.predicate(item) for item in rest]


def _ts(expression: str) -> sa.ColumnElement:
    return sa.cast(sa.literal(expression), postgresql.TSQUERY)


def _statement(conn: Connection, tree: Node, list_id: int | None, sort: str) -> tuple[sa.Select, sa.Select]:
    """(the ids and scores in order, the count) of the emails `tree` finds on public lists."""
    compiler = _Compiler(conn.dialect.name)
    matched, ranked, predicates = compiler.split(tree)
    where = [_PUBLIC, *predicates]
    if list_id is not None:
        where.append(emails.c.list_id == list_id)
    source: sa.FromClause = emails
    if matched is not None and compiler.postgresql:
        source = emails.join(_PG, _PG.c.email_id == emails.c.id)
        where.append(_PG.c.document.op("@@")(_ts(matched)))
    elif matched is not None:
        source = _FTS.join(emails, emails.c.id == _FTS.c.rowid)
        where.append(_FTS_NAME.op("MATCH")(sa.literal(matched)))
    source = source.join(mailing_lists, mailing_lists.c.id == emails.c.list_id)
    newest = (emails.c.date.desc(), emails.c.id.desc())
    count = sa.select(COUNT).select_from(source).where(*where)
    if matched is not None and sort == "relevance":
        # Ranked among the RANK_WINDOW latest arrivals that match, so that a common word costs
        # the scores of a thousand emails, not of all of them. FTS5 hands its rows over in rowid
        # (= id) order, and SQLite scores only the rows the window keeps.
        if compiler.postgresql:
            # `+ 0`: PostgreSQL sorts the match's rows, instead of walking emails in id order and
            # testing each against the match. The window keeps ids only; the thousand documents
            # are read again by key to be ranked.
            window = _window(source, where, emails.c.id + 0, _TOTAL)
            ranked_documents: sa.FromClause = window.join(_RANKED, _RANKED.c.email_id == window.c.id)
            score: sa.ColumnElement = sa.func.ts_rank(_RANKED.c.document, _ts(ranked or matched))
        else:
            window = _window(source, where, _FTS.c.rowid, (-sa.func.bm25(_FTS_NAME, *_BM25)).label("score"), _NO_TOTAL)
            ranked_documents, score = window, window.c.score
        ranking = (score.desc(), window.c.date.desc(), window.c.id.desc())
        ids = sa.select(window.c.id, score.label("score"), window.c.total).select_from(ranked_documents)
        return ids.order_by(*ranking), count
    if sort == "arrival":  # what follows the relevance window: the other matches, latest first
        order: tuple = ((emails.c.id + 0).desc(),) if compiler.postgresql else (emails.c.id.desc(),)
    else:
        order = (emails.c.date, emails.c.id) if sort == "date-asc" else newest
    total = _TOTAL if compiler.postgresql else _NO_TOTAL
    ids = sa.select(emails.c.id, sa.null().label("score"), total).select_from(source).where(*where).order_by(*order)
    return ids, count


# PostgreSQL reads every match to sort it anyway: the count rides along (one scan of the match,
# not two). SQLite streams the window from FTS5 in rowid order and counts from the index instead.
_TOTAL = sa.func.count().over().label("total")
_RANKED = _PG.alias("ranked")
_NO_TOTAL = sa.null().label("total")


RANK_WINDOW = 1_000


def _window(source: sa.FromClause, where: list, arrival: sa.ColumnElement, *extra: sa.ColumnElement) -> sa.Subquery:
    return (
        sa.select(emails.c.id, emails.c.date, *extra)
        .select_from(source)
        .where(*where)
        .order_by(arrival.desc())
        .limit(RANK_WINDOW)
        .subquery("window")
    )


def _ranks(conn: Connection, tree: Node) -> bool:
    """Whether the tree has words to rank by (else relevance is simply newest first)."""
    return _Compiler(conn.dialect.name).split(tree)[0] is not None


def _index_count(conn: Connection, tree: Node) -> sa.Select | None:
    """The count read from the index alone, when the tree is text only and no list is private
    (then every indexed email is a result the joins would keep); else None."""
    compiler = _Compiler(conn.dialect.name)
    expression = compiler.express(tree)
    if expression is None or isinstance(tree, Not) or conn.execute(_ANY_PRIVATE).scalar():
        return None
    if compiler.postgresql:
        return sa.select(COUNT).select_from(_PG).where(_PG.c.document.op("@@")(_ts(expression)))
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
