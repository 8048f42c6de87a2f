"""The readers of TLE and OMM (JSON, CSV): the same sets from each format, checked against skyfield
reading the TLE lines; every refusal names its line or record."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from sgp4.api import SGP4_ERRORS
from skyfield.api import EarthSatellite, load, wgs84

from sathub.status.orbits.formats import ElementsFormatError, read_element_sets
from sathub.status.orbits.sky import Place, elevations
from tests.status.orbits import samples
from tests.status.orbits.elements_server import DATA

TS = load.timescale()
FILES = {"amateur.tle": "tle", "amateur.json": "json", "amateur.csv": "csv"}
# The sets of data/amateur.*: the seven samples, MARIO (CelesTrak's real record of 55123, in
# sgp4's own tests) and 33334 of Vallado's verification set, which SGP4 cannot propagate.
SAMPLE_NUMBERS = [25544, 27607, 43017, 7530, 24278, 44909, 43700]


def _fixed(line: str) -> str:
    """68 characters of a TLE line with their checksum."""
    return line + str(samples.checksum(line))


def read(name: str):
    return read_element_sets((DATA / name).read_bytes(), name)


@pytest.mark.parametrize("name", FILES)
def test_each_format_reads_every_set_of_the_shipped_files(name):
    read_file = read(name)
    assert read_file.format == FILES[name]
    assert read_file.source == ("tle" if name.endswith(".tle") else "omm")
    assert [one.norad_id for one in read_file.sets] == [*SAMPLE_NUMBERS, 55123, 33334]
    assert [one.problem for one in read_file.sets[:-1]] == [None] * 8
    assert read_file.sets[-1].element_set is None and read_file.sets[-1].problem in SGP4_ERRORS.values()
    iss = read_file.sets[0].element_set
    # The sample's own figures (samples.py): epoch 2026-11-28 00:00 UTC, inclination 51.64°,
    # eccentricity 0.0004, 15.5 revolutions a day.
    assert datetime.fromtimestamp(iss.epoch, UTC) == samples.EPOCH
    assert math.isclose(iss.inclo, math.radians(51.64), rel_tol=1e-12)
    assert math.isclose(iss.ecco, 0.0004, rel_tol=1e-12)
    assert math.isclose(iss.revolutions_per_day, 15.5, rel_tol=1e-12)
    assert iss.object_name == "ISS (ZARYA)"


@pytest.mark.parametrize("name", FILES)
def test_the_sets_read_point_where_skyfield_points_reading_the_tle(name):
    """Elevations from a few places over two days, ours from each format's set, skyfield's from
    the TLE lines (its own reader and reduction): within 0.01°."""
    lines = (DATA / "amateur.tle").read_text().splitlines()
    skyfield_sets = {
        int(lines[i + 1][2:7]): EarthSatellite(lines[i + 1], lines[i + 2], lines[i], TS) for i in range(0, 21, 3)
    }
    places = [(40.0, -75.0), (-33.9, 151.2)]
    times = [samples.EPOCH + timedelta(minutes=minutes) for minutes in range(0, 2 * 1440, 97)]
    unix = np.array([moment.timestamp() for moment in times])
    for one in read(name).sets:
        if one.norad_id not in skyfield_sets:
            continue
        ours = elevations(one.element_set.satrec(), Place.of(*zip(*places, strict=True)), unix)
        for index, (latitude, longitude) in enumerate(places):
            topocentric = (skyfield_sets[one.norad_id] - wgs84.latlon(latitude, longitude)).at(TS.from_datetimes(times))
            theirs = topocentric.altaz()[0].degrees
            assert np.max(np.abs(ours[index] - theirs)) < 0.01


def test_celestraks_real_records_read_as_its_tle():
    """MARIO (55123) as CelesTrak serves it in each format: the same elements."""
    mario = [next(one for one in read(name).sets if one.norad_id == 55123).element_set for name in FILES]
    for other in mario[1:]:
        for field in ("epoch", "inclo", "ecco", "no_kozai", "bstar", "ndot", "nddot", "argpo", "mo", "nodeo"):
            assert math.isclose(getattr(other, field), getattr(mario[0], field), rel_tol=1e-9, abs_tol=1e-6), field


def test_two_line_sets_crlf_and_space_tracks_zero_lines_read_alike():
    three = samples.three_line_text()
    expected = [one.element_set for one in read_element_sets(three.encode()).sets]
    two = "".join(f"{line1}\n{line2}\n" for _name, line1, line2 in samples.ALL)
    zero = "".join(f"0 {name}\r\n{line1}\r\n{line2}\r\n\r\n" for name, line1, line2 in samples.ALL)
    assert [one.element_set for one in read_element_sets(zero.encode(), "gp.3le").sets] == expected
    unnamed = [one.element_set for one in read_element_sets(two.encode(), "x.txt").sets]
    assert [element_set.object_name for element_set in unnamed] == [""] * len(samples.ALL)
    assert [element_set.epoch for element_set in unnamed] == [element_set.epoch for element_set in expected]


def test_an_alpha_5_number_is_read():
    """Alpha-5 (the TLE format's numbers past 99999): A0001 is 100001."""
    _name, line1, line2 = samples.tle(
        1, "X", inclination=51.6, raan=1, eccentricity=0.001, perigee=1, anomaly=1, revolutions_per_day=15
    )
    line1, line2 = (_fixed(line[:2] + "A0001" + line[7:68]) for line in (line1, line2))
    assert read_element_sets(f"{line1}\n{line2}\n".encode()).sets[0].norad_id == 100001


def _json(records) -> bytes:
    return json.dumps(records).encode()


def _records(**changes) -> list[dict]:
    records = json.loads((DATA / "amateur.json").read_text())[:3]
    records[2].update(changes)
    return records


def _tle_lines(change=None) -> str:
    lines = samples.three_line_text().split("\n")
    if change:
        change(lines)
    return "\n".join(lines)


def _replace(lines: list[str], index: int, text: str) -> None:
    lines[index] = text


@pytest.mark.parametrize(
    "data, name, message",
    [
        ((DATA / "proxy-error.html").read_bytes(), "amateur.json", "line 1: HTML or XML, not orbital elements"),
        (b"\n\n  <?xml version='1.0'?><ndm/>", "", "line 3: HTML or XML"),
        (b"GP data has not updated since your last download\n", "", "line 1: 'GP data has not updated since your"),
        (b"", "", "no element sets in this TLE"),
        (b"[]", "", "no element sets in this OMM JSON"),
        (b"ISS\n1 25544\xff", "", "line 2: not UTF-8 text"),
        (samples.three_line_text().encode(), "gp.json", "gp.json is named as OMM JSON but holds TLE"),
        ((DATA / "amateur.json").read_bytes(), "gp.csv", "gp.csv is named as OMM CSV but holds OMM JSON"),
        (b'{"error": "not found"}', "", "OMM JSON is a list of GP records; this is a single JSON object"),
        (b'[\n{"NORAD_CAT_ID": 1},\n', "", "line 3: not JSON"),
        (b"[" * 100_000, "", "line 1: JSON nested too deeply"),
        (_json([*_records(), 5]), "", "record 4: a GP record is a JSON object, not int"),
        (_json(_records(MEAN_MOTION=None)), "", "record 3: no MEAN_MOTION"),
        (_json(_records(ECCENTRICITY="0.0x")), "", "record 3: ECCENTRICITY is '0.0x', not a number"),
        (_json(_records(INCLINATION=True)), "", "record 3: INCLINATION is 'True', not a number"),
        (_json(_records(NORAD_CAT_ID=43017.5)), "", "record 3: NORAD_CAT_ID is '43017.5', not a whole number"),
        (_json(_records(EPOCH="2026-11-28")), "", "record 3: EPOCH is '2026-11-28', not YYYY-MM-DDThh:mm:ss.ffffff"),
        (b"NORAD_CAT_ID,EPOCH\n1,2026-11-28T00:00:00.0\n", "", "line 1: the OMM CSV header lacks OBJECT_ID, "),
        (
            (DATA / "amateur.csv").read_bytes().replace(b",0.0001,0.0,0.0\r\nSAUDI", b",0.0001\r\nSAUDI"),
            "",
            "line 2: not as many fields as the header names",
        ),
        (_tle_lines(lambda lines: _replace(lines, 4, lines[4][:-1] + "0")), "", "line 5: checksum '0', but the line"),
        (_tle_lines(lambda lines: _replace(lines, 5, "")), "", "line 5: TLE line 1 is not followed by its line 2"),
        (
            _tle_lines(lambda lines: _replace(lines, 2, lines[2][:-1])),
            "",
            "line 3: a TLE line has 69 characters, this one 68",
        ),
        (
            _tle_lines(lambda lines: _replace(lines, 2, _fixed(lines[2][:2] + "25545" + lines[2][7:68]))),
            "",
            "line 3: satellite number 25545 differs from line 2's",
        ),
        (
            _tle_lines(lambda lines: _replace(lines, 2, _fixed(lines[2][:11] + "x" + lines[2][12:68]))),
            "",
            "line 3: a column is out of its place in the TLE format",
        ),
        (
            _tle_lines(lambda lines: _replace(lines, 1, lines[1].replace("U", "é", 1))),
            "",
            "line 2: a TLE line holds ASCII",
        ),
        (
            _tle_lines(lambda lines: lines.append("NO LINES AFTER")),
            "",
            "line 23: 'NO LINES AFTER' is neither TLE line 1",
        ),
    ],
)
def test_a_file_that_is_not_what_it_claims_is_refused_naming_where(data, name, message):
    with pytest.raises(ElementsFormatError) as refused:
        read_element_sets(data if isinstance(data, bytes) else data.encode(), name)
    assert str(refused.value).startswith(message), str(refused.value)
    assert "\n" not in str(refused.value)


def test_sets_sgp4_cannot_propagate_are_refused_not_errors():
    records = _records(ECCENTRICITY=1.5)
    records[0]["NORAD_CAT_ID"] = 400000  # beyond Alpha-5's Z9999
    sets = read_element_sets(_json(records)).sets
    assert sets[0].problem == "SGP4 takes satellite numbers 1 to 339999" and sets[0].element_set is None
    assert sets[1].problem is None
    assert sets[2].problem == SGP4_ERRORS[1] and sets[2].norad_id == 43017  # mean eccentricity out of range
    assert read_element_sets(_json(_records(MEAN_MOTION="nan"))).sets[2].problem == "an element is not a finite number"
