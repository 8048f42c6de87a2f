"""Readers of orbital elements: TLE (two- and three-line) and CelesTrak's OMM (GP data) as JSON and
as CSV, each set read by sgp4 itself (`Satrec.twoline2rv`, `sgp4.omm.initialize`) into an
`ElementSet` (docs/orbits.md, "Elements").

The format is read from the content; a file name's suffix (.tle, .txt, .json, .csv) is a claim the
content must keep. A file that is not what it claims, or one set in it that does not parse, is an
`ElementsFormatError` naming the line or record (numbered from 1) and the reason: the caller stores
nothing of the file. A set that parses but that SGP4 cannot propagate at its own epoch is read as
refused (its `problem`), not as an error: one bad set in a catalog of thousands must not stop the
others."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath

from sgp4 import io as tle_io
from sgp4 import omm
from sgp4.api import SGP4_ERRORS, Satrec
from sgp4.earth_gravity import wgs72

from sathub.status.orbits.elements import MEAN_ELEMENTS, ElementSet

FORMATS = {"tle": "TLE", "json": "OMM JSON", "csv": "OMM CSV"}
SUFFIXES = {".tle": "tle", ".txt": "tle", ".2le": "tle", ".3le": "tle", ".json": "json", ".csv": "csv"}
# The largest satellite number SGP4 takes (Alpha-5's Z9999); a larger one is refused, not an error.
MAX_SATELLITE_NUMBER = 339999
TLE_LINE_LENGTH = 69
# The fields sgp4.omm.initialize reads; the numbers among them are checked first, so that a bad value
# is named by its field.
OMM_NUMBERS = (
    "NORAD_CAT_ID",
    "MEAN_MOTION",
    "ECCENTRICITY",
    "INCLINATION",
    "RA_OF_ASC_NODE",
    "ARG_OF_PERICENTER",
    "MEAN_ANOMALY",
    "BSTAR",
    "MEAN_MOTION_DOT",
    "MEAN_MOTION_DDOT",
    "EPHEMERIS_TYPE",
    "ELEMENT_SET_NO",
    "REV_AT_EPOCH",
)
OMM_WHOLE_NUMBERS = ("NORAD_CAT_ID", "EPHEMERIS_TYPE", "ELEMENT_SET_NO", "REV_AT_EPOCH")
OMM_FIELDS = ("OBJECT_ID", "EPOCH", "CLASSIFICATION_TYPE", *OMM_NUMBERS)
OMM_EPOCH = "%Y-%m-%dT%H:%M:%S.%f"  # sgp4.omm's reading of EPOCH
QUOTED = 40  # characters of an unreadable line shown back


class ElementsFormatError(ValueError):
    """The file is not orbital elements of the format it claims, or one set in it does not parse:
    one line naming where and why."""


@dataclass(frozen=True)
class ReadSet:
    """One set as read: where it was (`line 4`, `record 2`), its satellite number, and either its
    elements or, when SGP4 cannot propagate it at its epoch, the reason (`problem`)."""

    where: str
    norad_id: int
    element_set: ElementSet | None
    problem: str | None = None


@dataclass(frozen=True)
class ReadFile:
    format: str  # a key of FORMATS
    source: str  # what orbital_elements.source records: 'tle' or 'omm'
    sets: list[ReadSet]


def read_element_sets(data: bytes, name: str = "") -> ReadFile:
    """Every set of a file of elements (its bytes; `name`, a file name or URL path, when known)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ElementsFormatError(f"line {line}: not UTF-8 text: orbital elements are text") from None
    found = detect_format(text)
    claimed = SUFFIXES.get(PurePosixPath(name).suffix.lower())
    if claimed is not None and claimed != found:
        raise ElementsFormatError(
            f"{PurePosixPath(name).name} is named as {FORMATS[claimed]} but holds {FORMATS[found]}"
        )
    sets = {"tle": _tle_sets, "json": _json_sets, "csv": _csv_sets}[found](text)
    if not sets:
        raise ElementsFormatError(f"no element sets in this {FORMATS[found]}")
    return ReadFile(found, "tle" if found == "tle" else "omm", sets)


def detect_format(text: str) -> str:
    """'json', 'csv' or 'tle' by the first characters; HTML (a proxy's or a server's page) and XML
    are refused here, text that is none of them by the TLE reader, which names its line."""
    start = text.lstrip()
    if start[:1] in ("[", "{"):
        return "json"
    if start[:1] == "<":
        line = text[: len(text) - len(start)].count("\n") + 1
        raise ElementsFormatError(f"line {line}: HTML or XML, not orbital elements (a server's error page?)")
    first = start.split("\n", 1)[0]
    return "csv" if "NORAD_CAT_ID" in first.split(",") or '"NORAD_CAT_ID"' in first else "tle"


def _quoted(line: str) -> str:
    return repr(line[:QUOTED] + ("…" if len(line) > QUOTED else ""))


def _tle_sets(text: str) -> list[ReadSet]:
    """Two-line sets, each optionally after a name line (three-line; `0 NAME` as Space-Track writes
    it); blank lines and line ends of any kind (CRLF) are skipped."""
    lines = [(number, line.rstrip()) for number, line in enumerate(text.split("\n"), 1) if line.strip()]
    sets = []
    index = 0
    while index < len(lines):
        number, line = lines[index]
        name = ""
        if not line.startswith("1 "):
            followed = index + 1 < len(lines) and lines[index + 1][1].startswith("1 ")
            if not followed:
                raise ElementsFormatError(
                    f"line {number}: {_quoted(line)} is neither TLE line 1 nor a satellite name followed by one"
                )
            name = line[2:].strip() if line.startswith("0 ") else line.strip()
            index += 1
            number, line = lines[index]
        if index + 1 == len(lines) or not lines[index + 1][1].startswith("2 "):
            raise ElementsFormatError(f"line {number}: TLE line 1 is not followed by its line 2")
        second_number, second = lines[index + 1]
        sets.append(_tle_set((number, line), (second_number, second), name))
        index += 2
    return sets


def _tle_set(first: tuple[int, str], second: tuple[int, str], name: str) -> ReadSet:
    for number, line in (first, second):
        if not line.isascii():
            raise ElementsFormatError(f"line {number}: a TLE line holds ASCII characters only")
        if len(line) != TLE_LINE_LENGTH:
            raise ElementsFormatError(
                f"line {number}: a TLE line has {TLE_LINE_LENGTH} characters, this one {len(line)}"
            )
        computed = tle_io.compute_checksum(line)
        if line[-1] != str(computed):
            raise ElementsFormatError(f"line {number}: checksum {line[-1]!r}, but the line sums to {computed}")
    if first[1][2:7] != second[1][2:7]:
        raise ElementsFormatError(
            f"line {second[0]}: satellite number {second[1][2:7].strip()} differs from line {first[0]}'s"
        )
    try:
        # sgp4's pure-Python reader checks every column's place (its C++ reader takes anything);
        # 18 µs a set, against 2 for the reading kept.
        tle_io.twoline2rv(first[1], second[1], wgs72)
    except ValueError as exc:
        reason = str(exc).split("\n", 1)[0]
        if reason == "TLE format error":
            bad = second if "for line 2" in str(exc) else first
            raise ElementsFormatError(f"line {bad[0]}: a column is out of its place in the TLE format") from None
        raise ElementsFormatError(f"lines {first[0]}-{second[0]}: {reason}") from None
    satrec = Satrec.twoline2rv(first[1], second[1])
    return _checked(f"line {first[0]}", ElementSet.from_satrec(satrec, name))


def _json_sets(text: str) -> list[ReadSet]:
    try:
        records = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ElementsFormatError(f"line {exc.lineno}: not JSON ({exc.msg})") from None
    except RecursionError:
        raise ElementsFormatError("line 1: JSON nested too deeply to be GP records") from None
    if not isinstance(records, list):
        raise ElementsFormatError("OMM JSON is a list of GP records; this is a single JSON object")
    sets = []
    for index, record in enumerate(records, 1):
        if not isinstance(record, dict):
            raise ElementsFormatError(f"record {index}: a GP record is a JSON object, not {type(record).__name__}")
        sets.append(_omm_set(f"record {index}", record))
    return sets


def _csv_sets(text: str) -> list[ReadSet]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [name for name in OMM_FIELDS if name not in (reader.fieldnames or ())]
    if missing:
        raise ElementsFormatError(f"line 1: the OMM CSV header lacks {', '.join(missing)}")
    sets = []
    for record in reader:
        where = f"line {reader.line_num}"
        if None in record or None in record.values():
            raise ElementsFormatError(f"{where}: not as many fields as the header names")
        sets.append(_omm_set(where, record))
    return sets


def _omm_set(where: str, record: dict) -> ReadSet:
    """One GP record (JSON's numbers or CSV's text) read by sgp4.omm; its values checked first so
    that an error names the field."""
    for name in OMM_FIELDS:
        if record.get(name) in (None, ""):
            raise ElementsFormatError(f"{where}: no {name}")
    for name in OMM_NUMBERS:
        value = record[name]
        try:
            if isinstance(value, bool):
                raise ValueError
            float(value)
        except (TypeError, ValueError):
            raise ElementsFormatError(f"{where}: {name} is {_quoted(str(value))}, not a number") from None
    fields = dict(record)
    for name in OMM_WHOLE_NUMBERS:
        number = float(record[name])
        if not number.is_integer():
            raise ElementsFormatError(f"{where}: {name} is {_quoted(str(record[name]))}, not a whole number")
        fields[name] = int(number)
    fields.update((name, str(record[name])) for name in ("OBJECT_ID", "EPOCH", "CLASSIFICATION_TYPE"))
    try:
        datetime.strptime(fields["EPOCH"], OMM_EPOCH)
    except ValueError:
        raise ElementsFormatError(
            f"{where}: EPOCH is {_quoted(fields['EPOCH'])}, not YYYY-MM-DDThh:mm:ss.ffffff"
        ) from None
    norad_id = fields["NORAD_CAT_ID"]
    if not 0 < norad_id <= MAX_SATELLITE_NUMBER:
        return ReadSet(where, norad_id, None, f"SGP4 takes satellite numbers 1 to {MAX_SATELLITE_NUMBER}")
    satrec = Satrec()
    try:
        omm.initialize(satrec, fields)
    except (ValueError, TypeError) as exc:
        raise ElementsFormatError(f"{where}: {exc}") from None
    return _checked(where, ElementSet.from_satrec(satrec, str(record.get("OBJECT_NAME") or "").strip()))


def _checked(where: str, element_set: ElementSet) -> ReadSet:
    """The set, or why SGP4 cannot propagate it at its epoch (decayed, an eccentricity out of range):
    the set rebuilt as the database will rebuild it, so a set kept is one the checks can use."""
    values = (element_set.epoch, *(getattr(element_set, name) for name in MEAN_ELEMENTS))
    if not all(math.isfinite(value) for value in values):
        return ReadSet(where, element_set.norad_id, None, "an element is not a finite number")
    satrec = element_set.satrec()
    error = satrec.error or satrec.sgp4(satrec.jdsatepoch, satrec.jdsatepochF)[0]
    if error:
        return ReadSet(where, element_set.norad_id, None, SGP4_ERRORS.get(error, f"SGP4 error {error}"))
    return ReadSet(where, element_set.norad_id, element_set)
