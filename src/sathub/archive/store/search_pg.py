"""PostgreSQL's statements of a search (archive/store/search.py hands it the tree's parts): the
`tsvector`s of `email_search` match (`@@`, the GIN indexes) and rank (`ts_rank`); the index's own
rows carry each email's list and date (migration 0013), so that private lists are left out by
their ids (`list_id NOT IN (the private lists)`, read once per statement from the small
`mailing_lists`), and `emails` is read for the page's rows only."""

from __future__ import annotations

import time
import weakref
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Engine

from sathub.archive.search.expressions import tsquery
from sathub.archive.search.query import And, Node, Not, Or, Term
from sathub.archive.store.listing import COUNT
from sathub.archive.store.search_partitions import Partition, partitions
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
# span_matches' bound, an id or a date (one name: the statement's parameter whichever it is)
_BOUND_ID = sa.bindparam("bound", type_=sa.Integer)
_BOUND_DATE = sa.bindparam("bound", type_=sa.DateTime)
# The date of an email `span` emails from the first by date, read from the dates' B-tree (0016).
_EDGE = sa.select(_INDEX.c.date).offset(sa.bindparam("span", type_=sa.Integer)).limit(1)
_NEEDED = sa.bindparam("needed", type_=sa.Integer)
# A partition's range (migration 0033), asked of the id itself: the planner prunes the others by it.
_FIRST, _AFTER = sa.bindparam("first", type_=sa.Integer), sa.bindparam("after", type_=sa.Integer)
_LAST_ID = 2**31 - 1  # the newest range's end: an email id is an integer
_IDS = sa.bindparam("ids", type_=postgresql.ARRAY(sa.Integer))
# span_matches' first span, in ids per match needed: the densest common word, `gpsd`, matches
# 87 % of the mail.
_FIRST_SPAN = 2
# span_matches reads a match whole when it holds fewer than this many times the matches needed:
# measured at 1,000,000 messages, `ephemeris` (10,452), `"release candidate"` (12,851) and
# `satel*` (86,001, few of them recent) cost less whole (15 / 80 / 72 ms) than by spans (28 / 101 /
# 102 ms).
_WHOLE = 3
# Nor does it ask a span of more than half the mail: the whole costs less. The corpus (21,941
# messages; a span of 2 x 10,001 ids, then read whole), in process, median of 15: `gpsd` in a list
# by date 23.5 -> 6.5 ms, by relevance 19.6 -> 7.3 ms, `gps time` 11.3 -> 6.1 ms.
_HALF = 2
# span_matches' largest id and partitions, read again after this many seconds: statements of their
# own (`ephemeris` by date on the corpus, in process, median of 60, three runs alternated: 2.2-3.0
# ms with the id read every time, 1.8-2.3 kept), and a stale id only widens or narrows the first
# span: a span has no upper end, so mail that arrived since is in it; the partitions newer than
# those known are the default partition's range, which is asked first (test_search_pg).
_TOP_SECONDS = 1.0


class _Known(NamedTuple):
    at: float
    top: int
    partitions: list[Partition]


_known: weakref.WeakKeyDictionary[Engine, _Known] = weakref.WeakKeyDictionary()


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
        """The statements of span_matches (and of its window's ranking, by relevance)."""
        where = self._where(text, negated, predicates, list_id)
        ids = sa.select(self.id).where(*where).limit(_NEEDED)
        if sort == "relevance":
            scores = sa.select(_RANKED.c.email_id.label("id"), _RANKED.c.date.label("date"), _score(text)).where(
                _RANKED.c.email_id == sa.any_(_IDS)
            )
            # The bound asked of the id (the partitions pruned by it) and of the GIN indexes' id
            # expression (0033: their range scan bounded by it).
            within = ids.where(self.id > _BOUND_ID, self.id + 0 > _BOUND_ID).order_by(self.id.desc())
            part = ids.where(self.id >= _FIRST, self.id < _AFTER).order_by(self.id.desc())
            return Spans(within, None, scores, part)
        # Ordered by an expression of the date, as statement() orders: not by walking its B-tree.
        date = self.date + _SAME_TIME
        # The span's bound on that expression too: migration 0031's GIN indexes hold it, not the
        # date (a d: range keeps the dates' B-tree).
        if sort == "date-asc":
            within = ids.where(date < _BOUND_DATE).order_by(date, self.id)
            return Spans(within, _EDGE.order_by(self.date), None, None)
        within = ids.where(date > _BOUND_DATE).order_by(date.desc(), self.id.desc())
        return Spans(within, _EDGE.order_by(self.date.desc()), None, None)


class Spans(NamedTuple):
    """The ids of the matches past `bound` in a search's order (`within`: above an id, newest
    arrival first; or past a date, by date), the first `needed`; by date the date of the email
    `span` away from the first in that order (`edge`); by relevance, the id, date and score of
    each of the emails `ids` (`scores`), and the matches of the partition from id `first` to
    `after` (`part`), newest first, the first `needed`."""

    within: sa.Select
    edge: sa.Select | None
    scores: sa.Select | None
    part: sa.Select | None


def span_matches(conn: Connection, spans: Spans, needed: int) -> list[int] | None:
    """The first `needed` matches in the search's order; None when reading every match
    (statement()) costs less. Asked of the last emails first, a span widened as far as the matches
    found in it say `needed` need (a quarter over): migration 0031's GIN indexes hold each email's
    id and date beside its words, so the span's matches alone are visited (`gpsd`, 871,230 matches
    at 1,000,000 messages: 24 ms against 308 ms sorted whole; docs/archive-search.md, "Counts").
    But a range in a GIN index costs its entries (100,000 ids about 10 ms), so a match that the
    span says is less than _WHOLE times `needed` is not asked by wider spans, nor is one whose
    span would hold more than half the mail: newest first by arrival, it is asked a partition
    at a time (by_partitions); by date, or in an archive of one partition, read whole in one
    statement. A span is a count of emails: the ids above the last id less it, or by date the
    dates past the date of its last email (the dates' B-tree walked that far: the mail's dates are
    not spread evenly, the newest 1 % of the generated million over two years of seventeen)."""
    known = _read(conn)
    span = _FIRST_SPAN * needed
    while _HALF * span < known.top:
        bound = conn.scalar(spans.edge, {"span": span}) if spans.edge is not None else known.top - span
        found = list(conn.scalars(spans.within, {"bound": bound, "needed": needed}))
        if len(found) >= needed:
            return found
        if len(found) * known.top < _WHOLE * needed * span:
            break
        span = max(2 * span, needed * span * 5 // (4 * max(len(found), 1)))
    return by_partitions(conn, spans, needed, known)


def by_partitions(conn: Connection, spans: Spans, needed: int, known: _Known) -> list[int] | None:
    """The first `needed` matches newest first, asked of the partitions that hold mail newest
    first (what reached the default partition first of all), each for the matches still needed;
    None by date, or when one partition holds all the mail (the statement that reads every match
    also counts them). Each partition's GIN index holds its own emails' entries alone: the
    matches of the partitions not reached are never read (`f:esr@thyrsus.com` at 1,000,000
    messages 219 ms read whole, 14 ms by partitions; docs/archive-search.md, "Counts")."""
    # The newest range has no end: mail that arrived since `known` was read is in it, whether in a
    # partition made since or in the default partition.
    firsts = [p.first for p in known.partitions if p.first <= known.top]
    last = max((p.after for p in known.partitions), default=0)
    if known.top >= last:
        firsts.append(last)
    if spans.part is None or len(firsts) < 2:
        return None
    found: list[int] = []
    for first, after in reversed(list(zip(firsts, [*firsts[1:], _LAST_ID], strict=True))):
        asked = {"first": first, "after": after, "needed": needed - len(found)}
        found.extend(conn.scalars(spans.part, asked))
        if len(found) >= needed:
            break
    return found


def _read(conn: Connection) -> _Known:
    """The largest id of the index and its partitions, as read at most _TOP_SECONDS ago by this
    process."""
    now = time.monotonic()
    known = _known.get(conn.engine)
    if known is None or now - known.at >= _TOP_SECONDS:
        top = conn.scalar(sa.select(sa.func.max(_INDEX.c.email_id))) or 0
        known = _known[conn.engine] = _Known(now, top, partitions(conn))
    return known


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
