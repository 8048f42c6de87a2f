"""Pure rules of the legacy form handler /submit.php (status-api.md section 8): reading the
fields, the checks in upstream's order with its exact messages, the confirmation page's values
and its one-shot "Yes" link. The catalog check (8.3 row 8) needs the database and is the
handler's; everything else is tested without a server (tests/status/pages/test_submit_rules.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import quote_plus

from sathub.status import rules

FIELDS = (
    "SatName",
    "SatReport",
    "SatMonth",
    "SatDay",
    "SatYear",
    "SatHour",
    "SatPeriod",
    "SatCall",
    "SatGridSquare",
    "Confirm",
    "SatSubmit",
)

MISSING_NAME_OR_REPORT = "You appear to be missing either the Satellite Name or Status Report."
MISSING_CALLSIGN = "You must enter a callsign."
INVALID_CALLSIGN = "The callsign you entered does not appear to be valid"
INVALID_TIME = "The time heard you entered does not appear to be valid"
INVALID_GRID = "The grid square you entered does not appear to be valid"
FORBIDDEN_CHARACTER = "Only special characters - and / allowed in callsign."
UNKNOWN_SATELLITE = "Satellite Name does not match."
NO_GRID = "* None entered *"
# The form offers these three; Crew Active still arrives from older forms and apps.
FORM_REPORT_LABELS = {"Heard": "Sat/Mode Active", "Telemetry Only": "TLM/Beacon Only", "Not Heard": "Not Heard"}

_NUMBER = re.compile(r"[0-9]{1,4}")


def read_fields(post: Mapping[str, str], query: Mapping[str, str]) -> dict[str, str]:
    """Each field from the POST body when present there (even empty), else from the query string."""
    return {name: post[name] if name in post else query.get(name, "") for name in FIELDS}


def is_submitted(fields: Mapping[str, str]) -> bool:
    """PHP truthiness of SatSubmit: anything but '' and '0'."""
    return fields.get("SatSubmit", "") not in ("", "0")


@dataclass(frozen=True)
class Rejected:
    message: str
    go_back: bool


@dataclass(frozen=True)
class Checked:
    """A submission that passed every check but the catalog's, with the values to show and store."""

    name: str
    report: str
    year: str
    month: str
    day: str
    hour: str
    period: str
    callsign: str
    grid_square: str
    heard_on: date
    hour_number: int
    period_number: int

    @property
    def shown_grid(self) -> str:
        return self.grid_square or NO_GRID

    @property
    def shown_report(self) -> str:
        return "Transponder/Repeater active" if self.report == "Heard" else self.report

    @property
    def shown_date(self) -> str:
        return f"{self.heard_on:%A}, {self.month}-{self.day}-{self.year}"

    @property
    def shown_time(self) -> str:
        return f"{self.hour}{rules.PERIOD_LABELS[self.period_number]}"

    def yes_query(self) -> str:
        """The one-shot query of the "Yes" link, in upstream's parameter order; values are
        percent-encoded with space as '+' (upstream printed them raw: reflected XSS)."""
        pairs = [
            ("SatSubmit", "yes"),
            ("Confirm", "yes"),
            ("SatName", self.name),
            ("SatYear", self.year),
            ("SatMonth", self.month),
            ("SatDay", self.day),
            ("SatHour", self.hour),
            ("SatPeriod", self.period),
            ("SatCall", self.callsign.upper()),
            ("SatReport", self.report),
            ("SatGridSquare", self.grid_square),
        ]
        return "&".join(f"{key}={quote_plus(value, safe='')}" for key, value in pairs)


def check(fields: Mapping[str, str], now: datetime) -> Checked | Rejected:
    """Rows 1-7 of section 8.3, first failure wins. Beyond upstream: an unknown report value gets
    message 1 and an impossible date, hour or period message 4 (upstream stored them anyway)."""
    name, report = fields.get("SatName", ""), fields.get("SatReport", "")
    if name == "" or report == "" or report not in rules.REPORT_VALUES:
        return Rejected(MISSING_NAME_OR_REPORT, go_back=True)
    grid = rules.normalize_grid(fields.get("SatGridSquare", ""))
    callsign, grid = rules.split_form_callsign(fields.get("SatCall", ""), grid)
    if callsign == "":
        return Rejected(MISSING_CALLSIGN, go_back=False)
    if not any(rules.is_valid_component(piece) for piece in re.split(r"[-/]", callsign)):
        return Rejected(INVALID_CALLSIGN, go_back=True)
    parts = [rules.php_trim(fields.get(key, "")) for key in ("SatYear", "SatMonth", "SatDay", "SatHour", "SatPeriod")]
    when = _heard_at(*parts)
    if when is None or when > now.replace(minute=0, second=0, microsecond=0, tzinfo=None):
        return Rejected(INVALID_TIME, go_back=True)
    stored_grid = ""
    if grid:
        parsed_grid = rules.parse_grid(grid)
        if parsed_grid is None:
            return Rejected(INVALID_GRID, go_back=True)
        stored_grid = parsed_grid
    if rules.has_forbidden_char(callsign):
        return Rejected(FORBIDDEN_CHARACTER, go_back=False)
    year, month, day, hour, period = parts
    return Checked(
        name=name,
        report=report,
        year=year,
        month=month,
        day=day,
        hour=hour,
        period=period,
        callsign=callsign[: rules.MAX_CALLSIGN],
        grid_square=stored_grid,
        heard_on=when.date(),
        hour_number=when.hour,
        period_number=int(period),
    )


def _heard_at(year: str, month: str, day: str, hour: str, period: str) -> datetime | None:
    """The UTC hour heard (naive), or None unless every part is a number (padded or not) and the
    date, hour (0-23) and period (0-3) exist."""
    if not all(_NUMBER.fullmatch(part) for part in (year, month, day, hour, period)):
        return None
    if int(period) > 3:
        return None
    try:
        return datetime(int(year), int(month), int(day), int(hour))
    except ValueError:
        return None
