"""PostgreSQL's statements of a search (archive/store/search.py hands it the tree's parts): the
`tsvector`s of `email_search` match (`@@`, the GIN indexes) and rank (`ts_rank`); the index's own
rows carry each email's list and date (migration 0013), so that private lists are left out by
their ids (`list_id NOT IN (the private lists)`, read once per statement from the small
`mailing_lists`), and `emails` is read for the page's rows only."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from sathub.archive.search.expressions import tsquery
from sathub.archive.search.query import And, Node, Not, Or, Term
from sathub.archive.store.listing import COUNT
from sathub.archive.store.search_spans import OnTable, Spans
from sathub.archive.tables import PRIVATE, emails, mailing_lists

# The index (migrations 0010, 0013), named here only (not part of tables.metadata: the migrations
# and their triggers own it, and nothing but them writes it).
_INDEX = sa.table(
    "email_search",
    sa.column("email_id", sa.Integer),
    sa.column("list_id", sa.Integer),
    sa.column("date", sa.DateTime),
    sa.column("heading", postgresql.TSVECTOR),
    sa.column("document", postgresql.TSVECTOR),
)
_MATCHED = _INDEX.alias("matched")
_RANKED = _INDEX.alias("ranked")
_HEADING_FIELDS = ("subject", "sender", "files")  # the fields of email_search.heading (0013)
_PRIVATE_LISTS = sa.select(mailing_lists.c.id).where(mailing_lists.c.archive_policy == PRIVATE)
_SAME_TIME = sa.literal_column("INTERVAL '0 s'", sa.Interval)
# PostgreSQL reads every match to sort it anyway: the count rides along (one scan of the match,
# not two).
_TOTAL = sa.func.count().over().label("total")
# The date of an email `span` emails from the first by date, read from the dates' B-tree (0016).
_EDGE = sa.select(_INDEX.c.date).offset(sa.bindparam("span", type_=sa.Integer)).limit(1)
# The parameters of the spans' statements (search_spans.py): a bound (an id or a date, one name:
# the statement's parameter whichever it is), the matches needed, a range's first id.
_BOUND_ID = sa.bindparam("bound", type_=sa.Integer)
_BOUND_DATE = sa.bindparam("bound", type_=sa.DateTime)
_NEEDED = sa.bindparam("needed", type_=sa.Integer)
_FIRST = sa.bindparam("first", type_=sa.Integer)
_IDS = sa.bindparam("ids", type_=postgresql.ARRAY(sa.Integer))


class PostgresSearch:
    """What archive/store/search.py asks of a backend, for PostgreSQL: the columns of the rows a
    search reads (the index's), the tree's parts as tsqueries, and the statements."""

    def __init__(self) -> None:
        self.id: sa.ColumnElement = _INDEX.c.email_id
        self.date: sa.ColumnElement = _INDEX.c.date
        self.list_id: sa.ColumnElement = _INDEX.c.list_id

    def express(self, node: Node) -> str | None:
        return tsquery(node)

    def matching(self, expression: str) -> sa.Select:
        """The ids of the emails the tsquery `expression` finds."""
        return sa.select(_MATCHED.c.email_id).where(_MATCHED.c.document.op("@@")(_ts(expression)))

    def message_id(self, value: str) -> sa.ColumnElement:
        return self.id.in_(sa.select(emails.c.id).where(emails.c.message_id == sa.literal(value)))

    def ranks(self, text: list[Node]) -> bool:
        """Whether the index finds (and ranks) `text`: any part it can say."""
        return bool(text)

    def walk_from(self) -> int | None:
        return None  # the planner chooses how to read by date (test_search_pg)

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
        """(the ids and scores in order, the count) of the emails of public lists that the index
        finds for `text` without `negated` and that satisfy `predicates`: by relevance the `window`
        latest ranked, by arrival, or by date."""
        where = self._where(text, negated, predicates, list_id)
        count = sa.select(COUNT).select_from(_INDEX).where(*where)
        if text and _match(text, negated) and sort == "relevance":
            # Ranked among the `window` latest arrivals that match, so that a common word costs
            # the scores of a thousand emails, not of all of them (_latest).
            latest = _latest(where, text, window)
            ranking = (latest.c.score.desc(), latest.c.date.desc(), latest.c.id.desc())
            return sa.select(latest.c.id, latest.c.score, latest.c.total).order_by(*ranking), count
        if sort == "arrival":  # what follows the relevance window: the other matches, latest first
            order: tuple = ((self.id + 0).desc(),)
        else:
            # Sorted by an expression of the date, which no index gives in order: with the dates'
            # B-tree (migration 0016) the planner walked that index newest first, testing every
            # email's tsvector, as if the page's end would stop it, but the count (`count(*) OVER
            # ()`) reads every match first: a rare word sorted by date took 34 ms instead of 0.6
            # (the corpus).
            date = self.date + _SAME_TIME
            order = (date, self.id) if sort == "date-asc" else (date.desc(), self.id.desc())
        ids = sa.select(self.id.label("id"), sa.null().label("score"), _TOTAL).select_from(_INDEX).where(*where)
        return ids.order_by(*order), count

    def _where(
        self, text: list[Node], negated: list[Node], predicates: list[sa.ColumnElement], list_id: int | None
    ) -> list[sa.ColumnElement]:
        where = list(predicates)
        if list_id is not None:
            where.append(self.list_id == list_id)
        where.extend(_match(text, negated) if text else [])
        where.append(self.list_id.not_in(_PRIVATE_LISTS))
        return where

    def spans(
        self,
        text: list[Node],
        negated: list[Node],
        predicates: list[sa.ColumnElement],
        list_id: int | None,
        sort: str,
    ) -> Spans:
        """The statements of search_spans.span_matches (and of its window's ranking, by relevance)."""
        where = self._where(text, negated, predicates, list_id)
        if sort == "relevance":
            scores = _ranked_page(text)
            # A range of ids asked of the id (the index's partitions pruned by it) and its span of
            # the GIN indexes' id expression (migration 0033: their scan bounded by it).
            newest = _in_order([*where, self.id > _BOUND_ID, self.id + 0 > _BOUND_ID], [self.id.desc()])
            every = _in_order([*where, self.id >= _FIRST], [self.id.desc()])
            return Spans(newest=OnTable(newest), every=OnTable(every), scores=scores)
        # Ordered by an expression of the date, as statement() orders: not by walking its B-tree.
        date = self.date + _SAME_TIME
        descending = sort != "date-asc"
        order: list[sa.ColumnElement] = [date.desc(), self.id.desc()] if descending else [date, self.id]
        # The span's bound on that expression too: migration 0031's GIN indexes hold it, not the
        # date (a d: range keeps the dates' B-tree).
        within = _in_order([*where, date > _BOUND_DATE if descending else date < _BOUND_DATE], order)
        edge = _EDGE.order_by(self.date.desc() if descending else self.date)
        dated = OnTable(_in_order([*where, self.id >= _FIRST], order, with_dates=True))
        return Spans(within=within, edge=edge, dated=dated, descending=descending)


def _ranked_page(text: list[Node]) -> sa.Select:
    """The id and score of the emails `ids` ranked for the words `text`, higher first (then the later
    date, then the later arrival, as _latest's window), the `limit` from `offset` on. The ids are
    joined as a table, each looked up in its partition when it is read: `= ANY(ids)` had the
    planner test each of the thousand ids against every partition's range (`ephemeris` at
    1,000,000 messages: planned in 4.2 ms and run in 7.5, against 1.3 and 5.4)."""
    window = sa.func.unnest(_IDS).table_valued("id").render_derived(name="listed")
    score = _score(text)
    return (
        sa.select(_RANKED.c.email_id.label("id"), score)
        .select_from(window.join(_RANKED, _RANKED.c.email_id == window.c.id))
        .order_by(score.desc(), _RANKED.c.date.desc(), _RANKED.c.email_id.desc())
        .limit(sa.bindparam("limit", type_=sa.Integer))
        .offset(sa.bindparam("offset", type_=sa.Integer))
    )


def _in_order(where: list[sa.ColumnElement], order: list[sa.ColumnElement], with_dates: bool = False) -> sa.Select:
    """The ids of the first `needed` rows of the index where `where` holds, in `order`, as one
    array: a row each cost more than the statement (SQLAlchemy's rows, 1.75 us each: 19 ms for
    the 11,000 ids of `ephemeris` at 1,000,000 messages, against 23 ms for its 14 statements).
    array_agg keeps the order of the subquery it reads, which has no join after it (PostgreSQL's
    manual, "Aggregate Functions"). `with_dates`: their dates too, a second array."""
    first = sa.select(_INDEX.c.email_id, _INDEX.c.date).where(*where).order_by(*order).limit(_NEEDED).subquery("first")
    arrays = [first.c.email_id, first.c.date] if with_dates else [first.c.email_id]
    return sa.select(*(sa.func.coalesce(postgresql.array_agg(column), sa.text("'{}'")) for column in arrays))


def _match(text: list[Node], negated: list[Node]) -> list[sa.ColumnElement]:
    """The index conditions of the words `text` without the `negated` ones. The parts of subject,
    sender and file names alone (`s:`, `f:`, `n:`) are asked of `heading` (migration 0013), which
    holds those fields only: the GIN index cannot tell the fields (the weights) apart, so each
    email it finds is checked again against its tsvector, which is a few words in `heading` and the
    whole text in `document`. A NOT alone is never asked of an index (it would read all of it):
    then everything is asked of `document`, as before 0013."""
    heading = [item for item in text if _in_heading(item)]
    heading_not = [item for item in negated if _in_heading(item)]
    body = [item for item in text if item not in heading]
    body_not = [item for item in negated if item not in heading_not]
    if not heading or (body_not and not body):
        heading, heading_not, body, body_not = [], [], text, negated
    asked = ((_INDEX.c.heading, heading + heading_not), (_INDEX.c.document, body + body_not))
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


def _ranked_by(text: list[Node]) -> sa.ColumnElement:
    """The tsvector a match is ranked by. `heading` when every word that ranks is asked of the
    subject, the sender or the file names (`s:`, `f:`, `n:`): ts_rank counts a word wherever it
    is, whatever the weight the query asks, so `document` counted the text's `release` for
    `s:release` too (SQLite's bm25 counts the asked column only), and reading a thousand whole
    texts was half of that search (6.7 -> 3.3 ms of CPU). Else `document`."""
    return _RANKED.c.heading if all(_in_heading(item) for item in text) else _RANKED.c.document


def _score(text: list[Node]) -> sa.ColumnElement:
    """The relevance of a `_RANKED` row for the words `text` (higher first)."""
    return sa.func.ts_rank(_ranked_by(text), _ts(str(tsquery(_all(text))))).label("score")


def _latest(where: list, text: list[Node], window: int) -> sa.Subquery:
    """The relevance window: the `window` latest arrivals that match (id, date, score), each with
    the count of all matches. One pass over the match counts it and keeps the ids, sorted as plain
    integers (`count(*) OVER ()` and a sort of the rows kept every matching row twice: 15 -> 10.5
    ms of CPU for `gpsd`, 15,091 matches), and the window's tsvectors are then read by key
    (`= ANY`) to be ranked. The ids are sorted by the aggregate, not by the index's table read in
    id order, which would test each row against the match."""
    latest = postgresql.array_agg(postgresql.aggregate_order_by(_INDEX.c.email_id, _INDEX.c.email_id.desc()))
    found = (
        sa.select(sa.func.count().label("total"), latest[1:window].label("ids"))
        .select_from(_INDEX)
        .where(*where)
        .subquery("found")
    )
    score = _score(text)
    return (
        sa.select(_RANKED.c.email_id.label("id"), _RANKED.c.date.label("date"), found.c.total, score)
        .select_from(found.join(_RANKED, _RANKED.c.email_id == sa.any_(found.c.ids)))
        .subquery("window")
    )


def _ts(expression: str) -> sa.ColumnElement:
    return sa.cast(sa.literal(expression), postgresql.TSQUERY)
