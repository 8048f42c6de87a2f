"""Elevation and azimuth against skyfield's full reduction (an independent computation: its own
frames, UT1 from its shipped tables), at random places and times around the elements' epoch."""

import random
from datetime import UTC, datetime

import numpy as np
from sgp4.api import Satrec
from skyfield.api import EarthSatellite, load, wgs84

from sathub.status.orbits.elements import ElementSet
from sathub.status.orbits.sky import Place, earth_fixed, elevations, look_angles

LINE1 = "1 25544U 98067A   24001.50000000  .00016717  00000-0  10270-3 0  9005"
LINE2 = "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537"


def test_look_angles_agree_with_skyfield_within_a_hundredth_of_a_degree():
    timescale = load.timescale()
    reference = EarthSatellite(LINE1, LINE2, "ISS", timescale)
    element_set = ElementSet.from_satrec(Satrec.twoline2rv(LINE1, LINE2))
    sat = element_set.satrec()
    rng = random.Random(38)
    for _ in range(200):
        latitude, longitude = rng.uniform(-85, 85), rng.uniform(-180, 180)
        when = element_set.epoch + rng.uniform(-3, 3) * 86400
        fixed, failed = earth_fixed(sat, [when])
        assert not failed.any()
        elevation, azimuth = look_angles(fixed, Place.of(latitude, longitude))
        t = timescale.from_datetime(datetime.fromtimestamp(when, UTC))
        altitude, expected_azimuth, _ = (reference - wgs84.latlon(latitude, longitude)).at(t).altaz()
        assert abs(elevation[0, 0] - altitude.degrees) < 0.01
        if altitude.degrees > -80:  # the azimuth is undefined straight down
            turn = (azimuth[0, 0] - expected_azimuth.degrees + 180) % 360 - 180
            assert abs(turn) * np.cos(np.radians(altitude.degrees)) < 0.01


def test_many_places_and_times_at_once_have_the_shape_points_by_times():
    sat = Satrec.twoline2rv(LINE1, LINE2)
    element_set = ElementSet.from_satrec(sat)
    times = element_set.epoch + np.arange(5) * 60.0
    found = elevations(sat, Place.of([0.0, 10.0, 50.0], [0.0, 20.0, -70.0]), times)
    assert found.shape == (3, 5)
    one = elevations(sat, Place.of(10.0, 20.0), times[2:3])
    assert found[1, 2] == one[0, 0]
