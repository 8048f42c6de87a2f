"""Pure rules of interface A: report values, callsigns, grid squares, query values.

No I/O here: every function is tested without a server (tests/status/test_rules.py).
Section numbers refer to shared/spec/status-api.md."""

from __future__ import annotations

import math
import re
from urllib.parse import urlsplit

REPORT_VALUES = ("Heard", "Telemetry Only", "Not Heard", "Crew Active")

STATUS_LABELS = {
    "Heard": "Satellite active",
    "Telemetry Only": "Telemetry or beacon only",
    "Not Heard": "No signal",
    "Crew Active": "ISS crew voice active",
}

_REPORT_ALIASES = {
    "heard": "Heard",
    "active": "Heard",
    "satellite active": "Heard",
    "telemetry only": "Telemetry Only",
    "telemetry": "Telemetry Only",
    "telemetry/beacon only": "Telemetry Only",
    "beacon": "Telemetry Only",
    "not heard": "Not Heard",
    "no signal": "Not Heard",
    "crew active": "Crew Active",
    "iss crew active": "Crew Active",
    "iss crew (voice) active": "Crew Active",
}

# Space, tab, LF, CR, NUL and vertical tab: what PHP's trim() removes.
PHP_TRIM = " \t\n\r\0\x0b"


def php_trim(text: str) -> str:
    return text.strip(PHP_TRIM)


# The catalog's text columns hold 255 characters (status-api.md section 4). Upstream's MariaDB
# refuses longer values in strict mode and so does PostgreSQL, while SQLite would keep them: every
# door that writes the catalog refuses them first, with one answer on every backend.
CATALOG_TEXT_LIMIT = 255


def is_web_url(text: str) -> bool:
    """A catalog website that may become a link: an http(s) URL with a host (a `javascript:` or
    `data:` URL would run in the visitor's browser)."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return (
        parts.scheme.lower() in ("http", "https")
        and bool(parts.hostname)
        and not any(c.isspace() or ord(c) < 32 for c in text)
    )


def normalize_report(text: str) -> str | None:
    """The canonical report value of an input (5.1), or None when it is not one."""
    trimmed = php_trim(text)
    canonical = _REPORT_ALIASES.get(trimmed.lower(), trimmed) if trimmed.isascii() else trimmed
    return canonical if canonical in REPORT_VALUES else None


# --- grid squares (5.3, and difference 15: extended locators keep their first 6 characters) ---

_GRID = re.compile(r"[A-Ra-r]{2}[0-9]{2}(?:[A-Xa-x]{2}(?:[0-9]{2}(?:[A-Xa-x]{2})?)?)?")


def normalize_grid(text: str) -> str:
    """Characters 1-2 upper case, 3-4 unchanged, 5 and later lower case (after trimming)."""
    text = php_trim(text)
    return text[:2].upper() + text[2:4] + text[4:].lower()


def parse_grid(text: str) -> str | None:
    """The grid square to store for an input, or None when it is not a Maidenhead locator.

    4 and 6 characters are kept; 8 and 10 (logging programs' station settings) keep their
    first 6, the precision the service stores."""
    if not text.isascii():  # upper() turns some non-ASCII lookalikes (such as 'ﬀ') into letters
        return None
    grid = normalize_grid(text)
    return grid[:6] if _GRID.fullmatch(grid) else None


# --- callsigns (5.2) ---

FORBIDDEN_CALLSIGN_CHARS = frozenset("\\\"~`=<>|'_+.,!@#$%^&*(){}[]")
MAX_CALLSIGN = 14

_LONG_FORMS = (
    re.compile(r"i[0-9]{5}[A-Za-z]{2}"),  # Italian SWL numbers: lower-case i only
    re.compile(r"NL[0-9]{5}", re.I),
    re.compile(r"PA[0-9]{5}", re.I),
    re.compile(r"ONL[0-9]{4,5}", re.I),
    re.compile(r"OE[0-9]{4,8}", re.I),
    re.compile(r"VK[0-9]F[A-Z]{3}", re.I),
)
_US_TOO_MANY_DIGITS = (
    re.compile(r"[KW].*[0-9].*[0-9]", re.I),
    re.compile(r"N[0-9].*[0-9]", re.I),
    re.compile(r"N[A-KM-Z].*[0-9].*[0-9]", re.I),
)
_PM_DIGITS = re.compile(r"PM[0-9]{2}", re.I)


def is_valid_component(piece: str) -> bool:
    if not (4 <= len(piece) <= 10 and piece.isascii() and piece.isalnum()):
        return False
    if not any(c.isalpha() for c in piece) or not any(c.isdigit() for c in piece):
        return False
    if not piece[:3].upper().startswith("ONL") and not any(c.isdigit() for c in piece[:3]):
        return False
    if any(rule.match(piece) for rule in _US_TOO_MANY_DIGITS) or _PM_DIGITS.match(piece):
        return False
    return len(piece) <= 6 or any(form.fullmatch(piece) for form in _LONG_FORMS)


def has_forbidden_char(callsign: str) -> bool:
    return any(c in FORBIDDEN_CALLSIGN_CHARS for c in callsign)


def is_valid_callsign(callsign: str) -> bool:
    """Non-empty, no forbidden character, and at least one valid '-' or '/' separated piece."""
    if not callsign or has_forbidden_char(callsign):
        return False
    return any(is_valid_component(piece) for piece in re.split(r"[-/]", callsign))


_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def ascii_upper(text: str) -> str:
    """PHP's strtoupper(): ASCII letters only (Python's upper() turns ß into SS and ﬁ into FI)."""
    return text.translate(_ASCII_UPPER)


def split_api_callsign(callsign: str, grid: str) -> tuple[str, str]:
    """API normalization (5.2): upper-case, move a trailing grid into an empty grid field, truncate.

    Returns (callsign, grid); validation is separate."""
    callsign = ascii_upper(php_trim(callsign))
    if not grid:
        last = re.split(r"[-/]", callsign)[-1]
        found = parse_grid(last)
        if found:
            grid = found
            callsign = callsign[: len(callsign) - len(last)]
            if callsign[-1:] in ("-", "/"):
                callsign = callsign[:-1]
    return callsign[:MAX_CALLSIGN], grid


def split_form_callsign(callsign: str, grid: str) -> tuple[str, str]:
    """Legacy form normalization (8.2): case kept; a grid after the callsign moves to an empty
    grid field only when the callsign without it (and its delimiters) is itself valid."""
    callsign = php_trim(callsign)
    if not grid:
        pieces = re.split(r"[-/]", callsign)
        found = parse_grid(pieces[-1]) if len(pieces) >= 2 else None
        rest = callsign[: len(callsign) - len(pieces[-1])].rstrip("-/")
        if found and is_valid_callsign(rest):
            return rest, found
    return callsign, grid


# --- query values (2.5) ---

_PHP_NUMERIC = re.compile(r"[ \t\n\r\v\f]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r\v\f]*")


def php_int(raw: str) -> int | None:
    """A PHP numeric string truncated toward zero (saturating), or None when not numeric."""
    if not _PHP_NUMERIC.fullmatch(raw):
        return None
    value = float(raw.strip())
    if math.isinf(value):
        return 2**63 - 1 if value > 0 else -(2**63)
    return int(value)


def clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def query_bool(raw: str | None) -> bool:
    return raw is not None and php_trim(raw).lower() in ("1", "true", "yes", "on")


_LEADING_NUMBER = re.compile(r"[ \t\n\r\v\f]*([+-]?[0-9]+)(?:\.[0-9]*)?([eE][+-]?[0-9]+)?")


def php_intval(text: str) -> int:
    """PHP (7.1+) intval() of a string: its leading integer part, 0 when there is none; a leading
    number with an exponent counts whole ("1e20" is 10**20, not 1), so absurd values stay absurd.
    Beyond 19 digits (or infinite) it is ±2**63, which no date or time part is."""
    match = _LEADING_NUMBER.match(text)
    if not match:
        return 0
    if match.group(2) is None:
        sign, digits = match.group(1)[:1], match.group(1).lstrip("+-").lstrip("0")
        whole = int(digits or "0") if len(digits) <= 19 else 2**63  # int() refuses 4,301 digits and more
        return -whole if sign == "-" else whole
    number = float(match.group(0))
    return int(number) if math.isfinite(number) else int(math.copysign(2**63, number))


def period_of_minute(minute: int) -> int:
    """Quarter of the hour; boundaries belong to the earlier quarter (15 -> 0, 30 -> 1, 45 -> 2)."""
    if minute <= 15:
        return 0
    if minute <= 30:
        return 1
    if minute <= 45:
        return 2
    return 3


PERIOD_LABELS = {0: ":00-:15", 1: ":16-:30", 2: ":31-:45", 3: ":46-:59"}


def period_label(period: int) -> str:
    """A quarter as the pages and feeds print it after the hour; old imported rows may hold another."""
    return PERIOD_LABELS.get(period, ":??")
