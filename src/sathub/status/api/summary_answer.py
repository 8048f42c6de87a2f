"""summary.php's answer, kept so that a write updates it instead of making it again.

During a burst every transaction moves the data revision, and summing the window's hourly counts
again after each one costs more than the writes themselves (2-3 ms of SQL and 1 ms of rendering
per read, measured during a POST burst; brought up to date, 0.3 / 0.7 ms on SQLite / PostgreSQL).
An answer remembers the revision it was read at; the next one reads only the groups whose counts
changed since (store/reports.py `summary_changes`) and re-renders only those. Names keep the
order the database gave them, so a name the answer has not seen yet, or a catalog change (display
names), makes the answer read whole again."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sathub.status import times
from sathub.status.api.php_json import PrettyFragment, php_pretty_json
from sathub.status.rules import REPORT_VALUES
from sathub.status.store.reports import SummaryRead

_RANK = {value: i for i, value in enumerate(REPORT_VALUES)}
_ENTRY_INDENT = " " * 8  # an item of "data", itself a member of the top object


@dataclass(frozen=True)
class _Group:
    report: str
    count: int
    fragment: PrettyFragment  # the entry as it is printed in "data"


@dataclass(frozen=True)
class SummaryAnswer:
    hours: int
    revision: int
    catalog_revision: int
    names: tuple[str, ...]  # in the answer's order
    groups: dict[str, tuple[_Group, ...]]  # by name, in the answer's order
    display_names: dict[str, str | None]  # by name: a read `since` does not join the catalog
    body: bytes

    @classmethod
    def of(cls, read: SummaryRead, hours: int) -> SummaryAnswer:
        """The whole answer, from a read without `since`."""
        by_name: dict[str, dict[str, _Group]] = {}
        display_names = {row.name: row.satellite_display_name for row in read.groups}
        for row in read.groups:
            by_name.setdefault(row.name, {})[row.report] = _group(row, display_names[row.name])
        groups = {name: _ordered(reports.values()) for name, reports in by_name.items()}
        return cls._made(hours, read, tuple(by_name), groups, display_names)

    def updated(self, read: SummaryRead) -> SummaryAnswer | None:
        """This answer with the groups of a read `since` its revision applied, or None when it must
        be read whole (a new name, or the catalog changed)."""
        if read.catalog_revision != self.catalog_revision:
            return None
        changed: dict[str, dict[str, _Group | None]] = {}
        for row in read.groups:
            if row.name not in self.groups and row.report_count:
                return None
            changed.setdefault(row.name, {})[row.report] = (
                _group(row, self.display_names[row.name]) if row.report_count else None
            )
        groups = dict(self.groups)
        for name, reports in changed.items():
            kept: dict[str, _Group | None] = {group.report: group for group in groups.get(name, ())}
            kept.update(reports)
            groups[name] = _ordered(group for group in kept.values() if group is not None)
        names = tuple(name for name in self.names if groups[name])
        return self._made(self.hours, read, names, {name: groups[name] for name in names}, self.display_names)

    @classmethod
    def _made(
        cls,
        hours: int,
        read: SummaryRead,
        names: tuple[str, ...],
        groups: dict[str, tuple[_Group, ...]],
        display_names: dict[str, str | None],
    ) -> SummaryAnswer:
        data = [group.fragment for name in names for group in groups[name]]
        body = php_pretty_json({"data": data, "meta": {"hours": hours, "count": len(data)}}).encode()
        return cls(hours, read.revision, read.catalog_revision, names, groups, display_names, body)


def _group(row, display_name: str | None) -> _Group:
    entry = {
        "name": row.name,
        "satellite_display_name": display_name,
        "report": row.report,
        "report_count": row.report_count,
        "latest_reported_time": times.read_form_time_of_hour_number(row.latest),
    }
    return _Group(row.report, row.report_count, PrettyFragment(php_pretty_json(entry, _ENTRY_INDENT)))


def _ordered(groups: Iterable[_Group]) -> tuple[_Group, ...]:
    """A name's groups: most reports first, ties in the canonical order of report values."""
    return tuple(sorted(groups, key=lambda group: (-group.count, _RANK.get(group.report, len(_RANK)))))
