"""Passes against skyfield's `find_events` (an independent computation: its own frames, its own
search) for the same elements and places: rise, culmination and set within 10 s, maximum
elevation within 0.2°, over windows of 24 to 72 hours."""

import random
from datetime import UTC, datetime

import pytest
from sgp4.api import Satrec
from skyfield.api import EarthSatellite, load, wgs84

from sathub.status.orbits.elements import ElementSet
from sathub.status.orbits.passes import LOOKAHEAD, grid_place, sky_over
from sathub.status.orbits.sky import Place
from tests.status.orbits import samples

TIMESCALE = load.timescale()
START = samples.EPOCH.timestamp() + 3 * 3600
PLACES = {"FN31pr": (41.7, -72.7), "JO62": (52.5, 13.0), "QF22": (-37.5, 145.0), "KP20": (60.5, 25.0)}
MOVING = [s for s in samples.ALL if s is not samples.QO_100]


def satrec(sample) -> Satrec:
    name, line1, line2 = sample
    return ElementSet.from_satrec(Satrec.twoline2rv(line1, line2), name).satrec()


def skyfield_passes(sample, latitude, longitude, start, end, min_elevation):
    """(rise, culmination or None, set, max elevation) of skyfield's events, as sky_over cuts
    them: a pass up at the start rises at it; followed LOOKAHEAD past the end."""
    name, line1, line2 = sample
    satellite = EarthSatellite(line1, line2, name, TIMESCALE)
    place = wgs84.latlon(latitude, longitude)
    t0, t1 = (TIMESCALE.from_datetime(datetime.fromtimestamp(t, UTC)) for t in (start, end + LOOKAHEAD))
    times, events = satellite.find_events(place, t0, t1, altitude_degrees=min_elevation)
    found, current = [], None
    for t, event in zip(times, events, strict=True):
        seconds = t.utc_datetime().timestamp()
        if event == 0:
            current = {"rise": seconds, "culmination": None}
        else:
            current = current or {"rise": start, "culmination": None}
            if event == 1:
                current["culmination"] = seconds
            else:
                current["set"] = seconds
                found.append(current)
                current = None
    for found_pass in found:
        peak = found_pass["culmination"] or found_pass["rise"]
        at = TIMESCALE.from_datetime(datetime.fromtimestamp(peak, UTC))
        found_pass["max_elevation"] = (satellite - place).at(at).altaz()[0].degrees
    return [p for p in found if p["rise"] < end]


def test_passes_agree_with_skyfield_find_events():
    rng = random.Random(38)
    cases = [
        (sample, grid, rng.choice((0, 10, 30)), rng.choice((24, 48, 72)))
        for sample in MOVING
        for grid in rng.sample(sorted(PLACES), 2)
    ]
    compared = 0
    for sample, grid, min_elevation, hours in cases:
        latitude, longitude = PLACES[grid]
        end = START + hours * 3600
        ours = sky_over(satrec(sample), Place.of(latitude, longitude), START, end, min_elevation).passes
        theirs = skyfield_passes(sample, latitude, longitude, START, end, min_elevation)
        # A pass whose peak is within 0.2° of min_elevation may be counted by one and not the other.
        clear = [p for p in theirs if p["max_elevation"] > min_elevation + 0.2]
        assert len(ours) >= len(clear), (sample[0], grid, min_elevation, hours)
        for expected in clear:
            found = min(ours, key=lambda p: abs(p.rise - expected["rise"]))
            assert abs(found.rise - expected["rise"]) < 10
            assert abs(found.set - expected["set"]) < 10
            if expected["culmination"] is not None:
                assert abs(found.culmination - expected["culmination"]) < 10
            assert abs(found.max_elevation - expected["max_elevation"]) < 0.2
            compared += 1
        # and every clear pass of ours is one of skyfield's
        for found in (p for p in ours if p.max_elevation > min_elevation + 0.2):
            assert any(abs(found.rise - p["rise"]) < 10 for p in theirs)
    assert compared > 100


def test_a_pass_grazing_min_elevation_is_not_missed():
    """The coarse step is a twentieth of a revolution; a pass that just reaches min_elevation
    lasts a few seconds above it and is found all the same."""
    latitude, longitude = PLACES["FN31pr"]
    end = START + 24 * 3600
    for sample in (samples.ISS, samples.AO_91, samples.RS_44):
        for expected in skyfield_passes(sample, latitude, longitude, START, end, 0)[:3]:
            just_below_peak = expected["max_elevation"] - 0.02
            ours = sky_over(satrec(sample), Place.of(latitude, longitude), START, end, just_below_peak).passes
            assert any(abs(p.culmination - expected["culmination"]) < 10 for p in ours), sample[0]
            grazing = min(ours, key=lambda p: abs(p.culmination - expected["culmination"]))
            assert grazing.set - grazing.rise < 60


def test_a_pass_in_progress_at_the_start_rises_at_the_start():
    latitude, longitude = PLACES["JO62"]
    place = Place.of(latitude, longitude)
    first = sky_over(satrec(samples.ISS), place, START, START + 86400).passes[0]
    middle = (first.rise + first.set) / 2
    cut = sky_over(satrec(samples.ISS), place, middle, middle + 86400).passes[0]
    assert cut.in_progress and not first.in_progress
    assert cut.rise == middle
    assert abs(cut.set - first.set) < 1
    assert cut.max_elevation <= first.max_elevation + 0.01


@pytest.mark.parametrize(("grid", "always"), [("FN31pr", "below"), ("JO62", "above")])
def test_a_geostationary_satellite_has_no_passes_but_is_always_above_or_below(grid, always):
    latitude, longitude = PLACES[grid]
    sky = sky_over(satrec(samples.QO_100), Place.of(latitude, longitude), START, START + 72 * 3600)
    assert sky.passes == () and sky.always == always
    name, line1, line2 = samples.QO_100
    at = TIMESCALE.from_datetime(datetime.fromtimestamp(START, UTC))
    reference = (EarthSatellite(line1, line2, name, TIMESCALE) - wgs84.latlon(latitude, longitude)).at(at).altaz()
    assert abs(sky.elevation - reference[0].degrees) < 0.01
    assert (reference[0].degrees > 0) == (always == "above")


def test_a_grid_square_is_its_centre():
    # FN31: field F (from 40° W of 180° W... -180 + 5 × 20 = -80), N (-90 + 13 × 10 = 40); square 3, 1:
    # -80 + 6 = -74 to -72, 40 + 1 = 41 to 42. Subsquare pr: p = 15 × 5' = 1.25° east, r = 17 × 2.5'.
    square = grid_place("FN31")
    assert (square.latitude[0], square.longitude[0]) == (41.5, -73.0)
    subsquare = grid_place("FN31pr")
    assert subsquare.longitude[0] == pytest.approx(-74 + 15 / 12 + 1 / 24)
    assert subsquare.latitude[0] == pytest.approx(41 + 17 / 24 + 1 / 48)
    assert grid_place("ZZ99") is None
