"""`reports.visible` (docs/orbits.md, "Visibility"): the verdict of status/orbits/visibility.py for
each report a writer stores, in its transaction, and the recheck of stored reports.

What a verdict needs is kept per process and database (`Sky`): the catalog's NORAD numbers by
name, each number's current element set as SGP4's Satrec, each satellite's track over a slot (the
same for every report of that slot) and the verdicts given (a burst of reports repeats satellite,
slot and grid square). It is checked once per writing transaction against data_revision's
catalog and elements revisions, read in that transaction: a load or a catalog change in any
process is seen by the next write. An orbital_elements table emptied by hand moves no revision, so
whether it holds a set at all is read with them."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import sqlalchemy as sa
from sgp4.api import Satrec
from sqlalchemy.engine import Connection, Engine

from sathub.config import setting
from sathub.db.group_commit import transaction_memo
from sathub.status.locators import box
from sathub.status.orbits.elements import ElementSet, usable_over
from sathub.status.orbits.visibility import Track, sample_times, slot_bounds, visible_from
from sathub.status.store.elements import current_element_sets, norad_ids_by_name
from sathub.status.tables import data_revision, orbital_elements, reports

_STATE = sa.select(
    data_revision.c.catalog_revision,
    data_revision.c.elements_revision,
    sa.exists(sa.select(orbital_elements.c.norad_id)).label("any_elements"),
).where(data_revision.c.id == 1)

# Tracks are ~50 samples of 7 floats (~3 KB); a quarter-hour with every catalog satellite reported
# is ~80 of them. Verdicts are a key and a flag. Both are keyed by the element set itself, so they
# outlive a change of the revisions (a load adds sets of some satellites, the others' stay).
TRACKS_KEPT = 1024
VERDICTS_KEPT = 16384


@dataclass
class Sky:
    """What the verdicts of one database need, as of `state` (its revisions)."""

    state: tuple
    max_age_days: float
    numbers: dict[str, int] = field(default_factory=dict)  # lower-cased API name -> NORAD number
    sets: dict[int, tuple[ElementSet, Satrec]] = field(default_factory=dict)
    tracks: OrderedDict[Hashable, Track] = field(default_factory=OrderedDict)
    verdicts: OrderedDict[Hashable, bool | None] = field(default_factory=OrderedDict)

    def verdict(self, name: str, grid_square: str | None, day: date, hour: int, period: int) -> bool | None:
        if not grid_square or not self.sets:
            return None
        norad_id = self.numbers.get(name.lower())
        kept = None if norad_id is None else self.sets.get(norad_id)
        if kept is None:
            return None
        element_set, sat = kept
        slot = (element_set, day, hour, period)
        key = (*slot, grid_square, self.max_age_days)
        if key in self.verdicts:
            return self.verdicts[key]
        found = self._judged(slot, sat, grid_square)
        _keep(self.verdicts, key, found, VERDICTS_KEPT)
        return found

    def _judged(self, slot: tuple, sat: Satrec, grid_square: str) -> bool | None:
        element_set, day, hour, period = slot
        square = box(grid_square)
        start, end = slot_bounds(day, hour, period)
        if square is None or not usable_over(element_set.epoch, start, end, self.max_age_days):
            return None
        track = self.tracks.get(slot)
        if track is None:
            track = Track.of(sat, sample_times(start, end))
            _keep(self.tracks, slot, track, TRACKS_KEPT)
        return visible_from(track, square)


def _keep(kept: OrderedDict, key: Hashable, value, limit: int) -> None:
    kept[key] = value
    if len(kept) > limit:
        kept.popitem(last=False)


_skies: weakref.WeakKeyDictionary[Engine, Sky] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def sky_of(conn: Connection) -> Sky:
    """This database's Sky, made again when its revisions moved: one statement per transaction
    (a shared write transaction's writes ask once), more only then."""
    memo = transaction_memo()
    if memo is not None and "sky" in memo:
        return memo["sky"]
    state = tuple(conn.execute(_STATE).one())
    with _lock:
        kept = _skies.get(conn.engine)
    if kept is None or kept.state != state:
        kept = _made(conn, state, kept)
        with _lock:
            _skies[conn.engine] = kept
    if memo is not None:
        memo["sky"] = kept
    return kept


def catalog_revision(conn: Connection) -> int:
    """The catalog's revision as this transaction reads it (with the Sky's state: one statement a
    shared transaction, which its writes' verdicts read again from the memo)."""
    return sky_of(conn).state[0]


def _made(conn: Connection, state: tuple, previous: Sky | None) -> Sky:
    made = Sky(state, float(setting("elements_max_age_days")))
    if previous is not None:
        made.tracks, made.verdicts = previous.tracks, previous.verdicts
    if state[2]:
        made.numbers = {name.lower(): number for name, number in norad_ids_by_name(conn).items()}
        current = current_element_sets(conn, sorted(set(made.numbers.values())))
        made.sets = {number: (element_set, element_set.satrec()) for number, element_set in current.items()}
    return made


def visible_flags(conn: Connection, rows: Sequence[Mapping]) -> list[bool | None]:
    """`visible` for reports about to be stored (dicts of name, grid_square, day, hour, period)."""
    judge = sky_of(conn).verdict
    return [judge(row["name"], row["grid_square"], row["day"], row["hour"], row["period"]) for row in rows]


# -- the recheck of stored reports ----------------------------------------------------------------------

_RECHECKED = (
    reports.c.id,
    reports.c.name,
    reports.c.grid_square,
    reports.c.day,
    reports.c.hour,
    reports.c.period,
    reports.c.visible,
)


@dataclass(frozen=True)
class Rechecked:
    last_id: int | None  # the batch's last report, None when there was none
    checked: int
    changes: dict[bool | None, list[int]]  # the ids of the reports whose `visible` differs, by the new value


def recheck_batch(conn: Connection, after_id: int, since: date | None, limit: int) -> Rechecked:
    """The next `limit` reports after `after_id` (of `since` or later) judged again against the
    elements now loaded: those whose verdict differs from what they hold."""
    query = sa.select(*_RECHECKED).where(reports.c.id > after_id).order_by(reports.c.id).limit(limit)
    if since is not None:
        query = query.where(reports.c.day >= since)
    rows = conn.execute(query).all()
    if not rows:
        return Rechecked(None, 0, {})
    changes: dict[bool | None, list[int]] = {}
    for row, flag in zip(rows, visible_flags(conn, [row._mapping for row in rows]), strict=True):
        if row.visible != flag:
            changes.setdefault(flag, []).append(row.id)
    return Rechecked(rows[-1].id, len(rows), changes)


def set_visible(conn: Connection, changes: dict[bool | None, list[int]]) -> None:
    """Give reports their new `visible`, by id (a report replaced meanwhile has a new id, and its
    own verdict). No report takes a new id, so the stream's triggers record no event (migration
    0021): the reports were not stored again."""
    for flag, ids in changes.items():
        conn.execute(reports.update().where(reports.c.id.in_(ids)).values(visible=flag))
