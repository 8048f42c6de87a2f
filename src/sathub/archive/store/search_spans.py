"""PostgreSQL: a search's matches read in its order as far as they are needed (the count limit, the
page's end, the relevance window), not every match sorted (docs/archive-search.md, "Counts").

By relevance (newest arrival first) the index is asked a partition at a time, newest first
(migration 0033): each partition's GIN index holds its own 100,000 emails' entries alone, so the
matches of the partitions not reached are never read. Within a partition, a span of its last ids
at a time, widened while the matches found say it pays: migration 0031's GIN indexes hold each
email's id (0033: `email_id + 0`) beside its words, so only the span's matches are visited (a
dense word's: `gpsd` matches 87 % of the generated million). By date, a first span of the newest
dates over the whole index, then the partitions in the order of their dates (_by_dates). In an
archive of one partition, a match the spans say is sparse is read whole (search_pg.statement)."""

from __future__ import annotations

import time
import weakref
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import psycopg
from sqlalchemy.engine import Connection, Engine

from sathub.archive.store.search_partitions import Partition, partitions

# The first span, in ids per match needed: the densest common word, `gpsd`, matches 87 % of the
# mail.
_FIRST_SPAN = 2
# A match that a span says holds fewer than this many times the matches needed in its range (a
# partition, or by date the whole index) is read whole there: a range in a GIN index costs its
# entries (100,000 ids about 10 ms). Measured at 1,000,000 messages before the partitions,
# `ephemeris` (10,452), `"release candidate"` (12,851) and `satel*` (86,001, few of them recent)
# cost less whole (15 / 80 / 72 ms) than by spans (28 / 101 / 102 ms).
_WHOLE = 3
# Nor is a span of more than half its range asked: the whole costs less. The corpus (21,941
# messages; a span of 2 x 10,001 ids, then read whole), in process, median of 15: `gpsd` in a list
# by date 23.5 -> 6.5 ms, by relevance 19.6 -> 7.3 ms, `gps time` 11.3 -> 6.1 ms.
_HALF = 2
# The largest id and the partitions, read again after this many seconds: statements of their own
# (`ephemeris` by date on the corpus, in process, median of 60, three runs alternated: 2.2-3.0 ms
# with the id read every time, 1.8-2.3 kept). A stale id changes the spans, never what they find:
# the newest range is asked of the index with no upper end, so mail that arrived since is in it,
# whatever partition holds it (tests/archive/store/test_search_spans.py).
_TOP_SECONDS = 1.0
_INDEX_NAME = "email_search"
_FROM = f"\nFROM {_INDEX_NAME} \n"  # where a statement of the index names it (OnTable)
_DIALECT = psycopg.dialect()


class OnTable:
    """A statement of the index that gives ids as one array, compiled once, run on the index or on
    one of its partitions named in the index's place (`FROM email_search_800000 AS
    email_search`). PostgreSQL plans a statement of the partitioned index in 0.87 ms and runs it
    in 0.6 (opening and pruning every partition), one of a partition in 0.08 and 0.05 (`ephemeris`
    in a partition at 1,000,000 messages): a search that walks ten partitions paid 15 ms for it.

    Never prepared: psycopg prepares a statement run five times on a connection, and
    PostgreSQL's generic plan, made for any bound, walked every partition's primary key testing
    each row (`ephemeris` at 1,000,000 messages 2.2 s)."""

    def __init__(self, statement: sa.Select) -> None:
        compiled = statement.compile(dialect=_DIALECT)
        if compiled.string.count(_FROM) != 1:
            raise ValueError(f"not one statement of the index: {compiled.string}")
        self.sql = compiled.string
        self.params = dict(compiled.params)

    def ids(self, conn: Connection, table: str, **values: int) -> list[int]:
        return self.row(conn, table, **values)[0]

    def row(self, conn: Connection, table: str, **values: int) -> tuple:
        sql = self.sql if table == _INDEX_NAME else self.sql.replace(_FROM, f"\nFROM {table} AS {_INDEX_NAME} \n")
        driver: Any = conn.connection.driver_connection
        threshold, driver.prepare_threshold = driver.prepare_threshold, None
        try:
            return tuple(conn.exec_driver_sql(sql, self.params | values).one())
        finally:
            driver.prepare_threshold = threshold


class Spans(NamedTuple):
    """The statements of span_matches. By relevance: the matches of a range above an id `bound`
    (`newest`) and from an id `first` (`every`), newest first, the first `needed`, as one array
    (OnTable); the id and score of each of the emails `ids`, ranked, the `limit` from `offset` on
    (`scores`). By date: the matches past a date `bound`, in the search's order, the first
    `needed` (`within`), the date of the email `span` away from the first in that order (`edge`),
    and the first `needed` matches of a range from an id `first` in that order, their ids and their
    dates as two arrays (`dated`); `descending`, newest date first."""

    newest: OnTable | None = None
    every: OnTable | None = None
    scores: sa.Select | None = None
    within: sa.Select | None = None
    edge: sa.Select | None = None
    dated: OnTable | None = None
    descending: bool = True


class _Known(NamedTuple):
    at: float
    top: int
    partitions: list[Partition]


_known: weakref.WeakKeyDictionary[Engine, _Known] = weakref.WeakKeyDictionary()


def span_matches(conn: Connection, spans: Spans, needed: int) -> list[int] | None:
    """The first `needed` matches in the search's order; None when reading every match in one
    statement costs less: in an archive smaller than the first span, or by date in an archive of
    one partition where the spans say the match is sparse."""
    known = _read(conn)
    if _HALF * _FIRST_SPAN * needed >= known.top:
        return None
    if spans.newest is not None and spans.every is not None:
        found: list[int] = []
        density = None
        for range_ in _ranges(known):
            still = needed - len(found)
            matches, density = _newest_in(conn, (spans.newest, spans.every), range_, still, density)
            found.extend(matches)
            if len(found) >= needed:
                break
        return found
    if spans.within is None or spans.edge is None or spans.dated is None:
        raise ValueError(spans)
    span = _FIRST_SPAN * needed
    while _HALF * span < known.top:
        bound = conn.scalar(spans.edge, {"span": span})
        by_date: list[int] = conn.scalar(spans.within, {"bound": bound, "needed": needed})
        if len(by_date) >= needed:
            return by_date
        # Widened over one range only: over partitions, a wider span of dates is a walk of the
        # dates' B-tree and a range scan of every partition's GIN index (`gps time` at 1,000,000
        # messages: 20 + 55 ms for the second span), and the partitions are asked instead.
        if len(by_date) * known.top < _WHOLE * needed * span or len(_ranges(known)) > 1:
            break
        span = _widened(span, needed, len(by_date))
    return _by_dates(conn, spans.dated, spans.descending, needed, known)


def _by_dates(conn: Connection, dated: OnTable, descending: bool, needed: int, known: _Known) -> list[int] | None:
    """The first `needed` matches by date, newest date first when `descending`, asked of the
    ranges newest first, then of the partitions in the order of their newest (oldest) dates, each
    for its first `needed`, merged; a partition whose dates all come after the `needed`th found is
    not asked, nor are those after it. None when one range holds all the mail (the statement that
    reads every match also counts it). A partition's dates are read from its dates' B-tree (two
    probes each) by every search: an email's date may be corrected in any partition. The mail's
    dates follow its ids loosely (the generated million's partitions each cover one to five
    years, overlapping their neighbours a few months), so a match spread over all of them, whose
    spans of dates said it was sparse, is read from the newest partitions alone."""
    ranges = _ranges(known)
    if len(ranges) < 2:
        return None
    newest, older = ranges[0], ranges[1:]
    dates = " UNION ALL ".join(f"SELECT {i}, min(date), max(date) FROM {t}" for i, (t, _, _) in enumerate(older))
    edge = {i: (last if descending else first) for i, first, last in conn.execute(sa.text(dates)) if first is not None}
    asked = [(newest[0], newest[1], None)]  # its dates unknown: mail may have arrived since
    asked += [(older[i][0], older[i][1], edge[i]) for i in sorted(edge, key=lambda i: edge[i], reverse=descending)]
    found: list[tuple] = []
    for table, first, edge_date in asked:
        if len(found) >= needed and edge_date is not None and _before(found[needed - 1][0], edge_date, descending):
            break
        ids, their_dates = dated.row(conn, table, first=first, needed=needed)
        found = sorted([*found, *zip(their_dates, ids, strict=True)], reverse=descending)[:needed]
    return [email_id for _, email_id in found]


def _before(date: Any, edge: Any, descending: bool) -> bool:
    """Whether every date of a partition whose newest (oldest) date is `edge` comes after `date`
    in the search's order."""
    return edge < date if descending else edge > date


def _ranges(known: _Known) -> list[tuple[str, int, int]]:
    """(table, first id, last id) of each range of ids that holds mail, newest first: the
    partitions, the newest of them asked of the index itself from its first id on, so that it
    holds what is newer (mail in the default partition, or in a partition made since `known`)."""
    holding = [p for p in known.partitions if p.first <= known.top]
    if not holding:
        return [(_INDEX_NAME, 0, known.top)]
    newest = holding[-1]
    older = [(p.name, p.first, p.after - 1) for p in reversed(holding[:-1])]
    return [(_INDEX_NAME, newest.first, max(known.top, newest.first)), *older]


def _newest_in(
    conn: Connection, asked: tuple[OnTable, OnTable], range_: tuple[str, int, int], needed: int, density: float | None
) -> tuple[list[int], float | None]:
    """The newest `needed` matches of one range, and its matches per id as far as it tells (None:
    it does not). Spans of its last ids, widened as far as the matches found say (a quarter over),
    while they hold few enough of its ids; else, and when a span or the newer range (`density`)
    says the match holds fewer than _WHOLE times `needed` in this range, its matches read whole.
    The partitions of the generated million hold alike many of a rare word's matches: `ephemeris`
    paid 1.7 ms a partition for a first span that found a few, and 0.4 ms to read it whole."""
    newest, every = asked  # Spans.newest and Spans.every
    table, first, top = range_
    size = top - first + 1
    span = _FIRST_SPAN * needed
    sparse = density is not None and density * size < _WHOLE * needed
    while not sparse and _HALF * span < size:
        found = newest.ids(conn, table, bound=top - span, needed=needed)
        if len(found) >= needed:
            return found, len(found) / span
        sparse = len(found) * size < _WHOLE * needed * span
        span = _widened(span, needed, len(found))
    found = every.ids(conn, table, first=first, needed=needed)
    # A range too small for a span (the newest, a few emails into its partition) tells nothing, nor
    # does one without a match: a date range's matches are all in older partitions, the spans of
    # whose ids then find them (`d:2010-01-01..2010-12-31 gps` at 1,000,000 messages: 49,005 `gps`
    # in the partition that holds 2010, 46 ms to read whole).
    if _HALF * _FIRST_SPAN * needed >= size or not found:
        return found, density
    return found, len(found) / size


def _widened(span: int, needed: int, found: int) -> int:
    """The next span: twice this one at least, else as far as the matches found say, a quarter over."""
    return max(2 * span, needed * span * 5 // (4 * max(found, 1)))


def _read(conn: Connection) -> _Known:
    """The largest id of the index and its partitions, as read at most _TOP_SECONDS ago by this
    process."""
    now = time.monotonic()
    known = _known.get(conn.engine)
    if known is None or now - known.at >= _TOP_SECONDS:
        top = conn.scalar(sa.text(f"SELECT max(email_id) FROM {_INDEX_NAME}")) or 0
        known = _known[conn.engine] = _Known(now, top, partitions(conn))
    return known
