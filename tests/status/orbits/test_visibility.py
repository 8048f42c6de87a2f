"""The visibility rule against skyfield (an independent computation: its own frames and reduction),
for random satellites, grid squares and quarter-hours around the elements' epoch: the elevation over
a square's centre within 0.1°, and the verdict equal to a brute-force search (a grid of points over
the square, every 5 s of the slot) wherever that search's highest elevation is not within 0.5° of
the horizon."""

import random
from datetime import UTC, date, datetime, timedelta

import numpy as np
from sgp4.api import Satrec
from skyfield.api import wgs84

from sathub.status.locators import Box, box
from sathub.status.orbits.elements import ElementSet
from sathub.status.orbits.visibility import (
    HORIZON_DEGREES,
    Track,
    highest_elevations,
    sample_times,
    slot_bounds,
    visible_from,
)
from tests.status.orbits import samples
from tests.status.orbits.sky_reference import (
    TIMESCALE,
    brute_force_highest,
    locator,
    moments,
    reference,
    skyfield_elevations,
)

HOUR = datetime(2026, 11, 28, 13, tzinfo=UTC)


def test_a_slot_is_its_periods_minutes_as_the_spec_maps_them():
    # status-api.md 5.4: minutes 0-15 are period 0, 16-30 period 1, 31-45 period 2, 46-59 period 3.
    start = HOUR.timestamp()
    expected = {0: (0, 16), 1: (16, 31), 2: (31, 46), 3: (46, 60)}
    for period, (first, after) in expected.items():
        assert slot_bounds(HOUR.date(), 13, period) == (start + 60 * first, start + 60 * after)


def test_the_samples_cover_the_slot_at_most_twenty_seconds_apart():
    start, end = slot_bounds(HOUR.date(), 13, 0)
    times = sample_times(start, end)
    assert times[0] == start and times[-1] == end
    assert np.diff(times).max() <= 20.0


def random_case(rng: random.Random):
    """(tle, grid square, day, hour, period): half the squares anywhere, half within 25° of the
    satellite's ground track during the slot, where rising and setting happen."""
    tle = rng.choice(samples.ALL)
    moment = samples.EPOCH + timedelta(seconds=rng.uniform(-3, 3) * 86400)
    day, hour, period = moment.date(), moment.hour, rng.randrange(4)
    if rng.random() < 0.5:
        latitude, longitude = rng.uniform(-85, 85), rng.uniform(-180, 180)
    else:
        start, end = slot_bounds(day, hour, period)
        t = moments(np.array([rng.uniform(start, end)]))
        under = wgs84.latlon_of(reference(tle).at(t))
        latitude = min(89.0, max(-89.0, float(under[0].degrees[0]) + rng.uniform(-25, 25)))
        longitude = (float(under[1].degrees[0]) + rng.uniform(-25, 25) + 180) % 360 - 180
    return tle, locator(latitude, longitude, rng.choice((4, 6))), day, hour, period


def track_of(tle, day: date, hour: int, period: int) -> tuple[Track, np.ndarray]:
    _name, line1, line2 = tle
    sat = ElementSet.from_satrec(Satrec.twoline2rv(line1, line2)).satrec()
    times = sample_times(*slot_bounds(day, hour, period))
    return Track.of(sat, times), times


def test_the_elevation_over_a_squares_centre_agrees_with_skyfield_within_a_tenth_of_a_degree():
    rng = random.Random(3801)
    for _ in range(60):
        tle, grid, day, hour, period = random_case(rng)
        square = box(grid)
        track, times = track_of(tle, day, hour, period)
        latitude, longitude = (square.south + square.north) / 2, (square.west + square.east) / 2
        centre = Box(longitude, latitude, longitude, latitude)
        expected = skyfield_elevations(reference(tle), latitude, longitude, moments(times))
        assert np.abs(highest_elevations(track, centre) - expected).max() < 0.1, (tle[0], grid, day, hour)


def test_the_verdict_agrees_with_a_brute_force_search_by_skyfield_away_from_the_horizon():
    """And near the horizon, where the square's extent decides, the highest elevation over the
    square agrees with the search's within 0.1° (higher up, the search's finer steps in time see
    more of a culmination than the rule needs)."""
    rng = random.Random(3802)
    compared = {True: 0, False: 0, "highest": 0}
    for _ in range(60):
        tle, grid, day, hour, period = random_case(rng)
        square = box(grid)
        track, _times = track_of(tle, day, hour, period)
        highest = brute_force_highest(reference(tle), square, *slot_bounds(day, hour, period))
        if -20 < highest < 15:
            assert abs(highest_elevations(track, square).max() - highest) < 0.1, (tle[0], grid, day, hour, period)
            compared["highest"] += 1
        if abs(highest - HORIZON_DEGREES) < 0.5:
            continue
        expected = bool(highest >= HORIZON_DEGREES)
        assert visible_from(track, square) is expected, (tle[0], grid, day, hour, period, highest)
        compared[expected] += 1
    assert min(compared.values()) >= 10, compared  # every comparison was put to the test


def test_a_geostationary_satellite_is_visible_all_day_under_it_and_never_from_the_far_side():
    satellite = reference(samples.QO_100)
    t = TIMESCALE.from_datetime(samples.EPOCH)
    under = wgs84.latlon_of(satellite.at(t))
    near = locator(under[0].degrees + 30, under[1].degrees + 20, 4)
    far = locator(-under[0].degrees - 30, (under[1].degrees + 180 + 180) % 360 - 180, 4)
    for hour in range(0, 24, 3):
        track, _ = track_of(samples.QO_100, samples.EPOCH.date(), hour, hour % 4)
        assert visible_from(track, box(near)) is True
        assert visible_from(track, box(far)) is False


def test_the_horizon_is_one_degree_below_the_geometric_one():
    """docs/orbits.md: a satellite at -0.8° counts as seen, one at -1.2° does not. QO-100 stands
    still in the sky: small squares (6 characters) found where skyfield puts it at those heights."""
    satellite = reference(samples.QO_100)
    start, end = slot_bounds(samples.EPOCH.date(), 9, 0)
    t = moments(np.array([start]))
    under = wgs84.latlon_of(satellite.at(t))
    longitude = float(under[1].degrees[0])

    def latitude_at(elevation: float) -> float:
        south, north = 60.0, 89.0  # north of the sub-satellite point, the elevation falls
        for _ in range(40):
            middle = (south + north) / 2
            if skyfield_elevations(satellite, middle, longitude, t)[0] > elevation:
                south = middle
            else:
                north = middle
        return south

    for elevation, expected in ((-0.8, True), (-1.2, False)):
        square = box(locator(latitude_at(elevation), longitude, 6))
        assert abs(brute_force_highest(satellite, square, start, end) - elevation) < 0.1
        track, _ = track_of(samples.QO_100, samples.EPOCH.date(), 9, 0)
        assert visible_from(track, square) is expected


def test_the_box_counts_a_pass_its_centre_does_not_see():
    """Squares whose centre stays beyond the horizon all the slot while their near edge sees the
    satellite rise: the extent decides, as skyfield confirms for both."""
    day, hour, period = samples.EPOCH.date(), 6, 2
    start, end = slot_bounds(day, hour, period)
    track, _ = track_of(samples.AO_91, day, hour, period)
    satellite = reference(samples.AO_91)
    under = wgs84.latlon_of(satellite.at(moments(np.array([(start + end) / 2]))))
    latitude, longitude = float(under[0].degrees[0]), float(under[1].degrees[0])
    edge_only = []
    for dlat in range(-30, 31):
        for dlon in range(-40, 41, 2):
            grid = locator(min(89.0, max(-89.0, latitude + dlat)), (longitude + dlon + 180) % 360 - 180, 4)
            square = box(grid)
            middle = ((square.west + square.east) / 2, (square.south + square.north) / 2)
            if visible_from(track, square) and visible_from(track, Box(*middle, *middle)) is False:
                edge_only.append((grid, square, middle))
    assert len(edge_only) >= 3
    t = moments(np.arange(start, end + 1, 5.0))
    for grid, square, (centre_longitude, centre_latitude) in edge_only[:: len(edge_only) // 3][:3]:
        assert brute_force_highest(satellite, square, start, end) >= HORIZON_DEGREES - 0.05, grid
        assert skyfield_elevations(satellite, centre_latitude, centre_longitude, t).max() < HORIZON_DEGREES, grid


def test_across_the_pole_the_highest_point_is_the_squares_nearest_corner():
    """AO-7 at the north end of its track (78° N), squares on the far side of the pole, more than
    90° of longitude away: the highest point of each is one of its ends, as skyfield finds."""
    day, hour, period = samples.EPOCH.date(), 2, 1  # the slot of the day AO-7 goes farthest north
    start, end = slot_bounds(day, hour, period)
    track, _ = track_of(samples.AO_7, day, hour, period)
    farthest = int(np.argmax(track.latitude))
    assert np.degrees(track.latitude[farthest]) > 77
    satellite = reference(samples.AO_7)
    compared = 0
    for latitude in range(60, 89, 7):
        for offset in range(100, 181, 40):
            longitude = (np.degrees(track.longitude[farthest]) + offset + 180) % 360 - 180
            square = box(locator(latitude, longitude, 4))
            highest = brute_force_highest(satellite, square, start, end)
            if -20 < highest < 40:
                assert abs(highest_elevations(track, square).max() - highest) < 0.1, (latitude, offset)
                compared += 1
    assert compared >= 8


def test_no_verdict_where_sgp4_fails_on_the_elements():
    _name, line1, line2 = samples.ISS
    decaying = ElementSet.from_satrec(Satrec.twoline2rv(line1, line2))
    sat = ElementSet(**{**decaying.__dict__, "bstar": 5.0}).satrec()  # drag that brings it down in hours
    times = sample_times(*slot_bounds(samples.EPOCH.date() + timedelta(days=3), 12, 0))
    track = Track.of(sat, times)
    assert track.failed
    assert visible_from(track, box("FN31")) is None
