"""skyfield as the independent reference of the visibility tests: its own frames, reduction and
time scale on the same TLE lines."""

from datetime import UTC, date, datetime

import numpy as np
from skyfield.api import EarthSatellite, load, wgs84

from sathub.status.locators import Box, box
from sathub.status.orbits.visibility import HORIZON_DEGREES, slot_bounds

TIMESCALE = load.timescale()


def locator(latitude: float, longitude: float, length: int) -> str:
    """The Maidenhead locator of a point (the textbook encoding, written here for the test)."""
    lon, lat = longitude + 180, latitude + 90
    text = chr(65 + int(lon // 20)) + chr(65 + int(lat // 10)) + str(int(lon % 20 // 2)) + str(int(lat % 10))
    if length == 6:
        text += chr(97 + int(lon % 2 * 12)) + chr(97 + int(lat % 1 * 24))
    return text


def reference(tle) -> EarthSatellite:
    name, line1, line2 = tle
    return EarthSatellite(line1, line2, name, TIMESCALE)


def moments(times: np.ndarray):
    """Unix seconds as skyfield's times: seconds past the first one's UTC midnight, which skyfield
    counts as UTC (no leap second falls in these slots); seconds past 1970 would count 27 more."""
    midnight = datetime.fromtimestamp(times[0], UTC).replace(hour=0, minute=0, second=0)
    return TIMESCALE.utc(midnight.year, midnight.month, midnight.day, 0, 0, times - midnight.timestamp())


def skyfield_elevations(satellite: EarthSatellite, latitude: float, longitude: float, t) -> np.ndarray:
    return (satellite - wgs84.latlon(latitude, longitude)).at(t).altaz()[0].degrees


def brute_force_highest(satellite: EarthSatellite, square: Box, start: float, end: float) -> float:
    """The highest elevation skyfield finds over a grid of points over the square (edges and
    corners included, 9 by 5), every 5 s of the slot."""
    t = moments(np.arange(start, end + 1, 5.0))  # one Time: skyfield keeps its Earth rotation
    return max(
        skyfield_elevations(satellite, latitude, longitude, t).max()
        for latitude in np.linspace(square.south, square.north, 5)
        for longitude in np.linspace(square.west, square.east, 9)
    )


def square_from(tle, day: date, hour: int, period: int, north: float, east: float, length: int = 4) -> str:
    """The grid square `north` and `east` degrees from the satellite's ground point at mid-slot."""
    start, end = slot_bounds(day, hour, period)
    under = wgs84.latlon_of(reference(tle).at(moments(np.array([(start + end) / 2]))))
    latitude = float(np.clip(under[0].degrees[0] + north, -89, 89))
    longitude = (float(under[1].degrees[0]) + east + 180) % 360 - 180
    return locator(latitude, longitude, length)


def skyfield_verdict(tle, grid: str, day: date, hour: int, period: int) -> bool:
    highest = brute_force_highest(reference(tle), box(grid), *slot_bounds(day, hour, period))
    assert abs(highest - HORIZON_DEGREES) > 0.5, "a case too near the horizon to decide"
    return bool(highest >= HORIZON_DEGREES)
