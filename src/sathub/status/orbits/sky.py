"""Where a satellite stands in the sky of a place: elevation and azimuth over arrays of times.

SGP4 (the `sgp4` library) gives positions in its TEME frame; turning TEME into the Earth-fixed
frame is a rotation by the Greenwich mean sidereal time (IAU 1982, as SGP4's own frame is defined),
with UT1 taken as UTC and polar motion left out: together under 0.01° of elevation for a satellite in
low orbit, against skyfield's full reduction (tests/status/orbits/test_sky.py). A place is a point on
the WGS-84 ellipsoid."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from sgp4.api import Satrec

from sathub.status.orbits.elements import JD_UNIX_EPOCH, SECONDS_PER_DAY

_WGS84_A = 6378.137  # km
_WGS84_F = 1 / 298.257223563
_E2 = _WGS84_F * (2 - _WGS84_F)


@dataclass(frozen=True)
class Place:
    """Points on the ground (latitudes and longitudes in degrees, arrays of the same shape)."""

    latitude: np.ndarray
    longitude: np.ndarray

    @classmethod
    def of(cls, latitudes, longitudes) -> Place:
        return cls(np.atleast_1d(np.asarray(latitudes, float)), np.atleast_1d(np.asarray(longitudes, float)))

    def frames(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each point's Earth-fixed position (km) and its east, north and up unit vectors, shape (m, 3)."""
        return self._frames

    @cached_property
    def _frames(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        # Computed once per place: a pass search asks for them in every round of its refinement.
        lat, lon = np.radians(self.latitude), np.radians(self.longitude)
        sin_lat, cos_lat, sin_lon, cos_lon = np.sin(lat), np.cos(lat), np.sin(lon), np.cos(lon)
        n = _WGS84_A / np.sqrt(1 - _E2 * sin_lat**2)
        position = np.stack([n * cos_lat * cos_lon, n * cos_lat * sin_lon, n * (1 - _E2) * sin_lat], axis=-1)
        east = np.stack([-sin_lon, cos_lon, np.zeros_like(lon)], axis=-1)
        north = np.stack([-sin_lat * cos_lon, -sin_lat * sin_lon, cos_lat], axis=-1)
        up = np.stack([cos_lat * cos_lon, cos_lat * sin_lon, sin_lat], axis=-1)
        return position, east, north, up


def julian_dates(unix_times) -> tuple[np.ndarray, np.ndarray]:
    """Unix seconds as sgp4's two-part Julian dates (whole days, fraction), precise to microseconds."""
    days = np.asarray(unix_times, float) / SECONDS_PER_DAY
    whole = np.floor(days)
    return whole + JD_UNIX_EPOCH, days - whole


def _gmst(jd: np.ndarray, fraction: np.ndarray) -> np.ndarray:
    """Greenwich mean sidereal time in radians (IAU 1982, Vallado's form)."""
    t = ((jd - 2451545.0) + fraction) / 36525.0
    seconds = 67310.54841 + (876600.0 * 3600.0 + 8640184.812866) * t + 0.093104 * t**2 - 6.2e-6 * t**3
    return np.remainder(np.radians(seconds / 240.0), 2 * np.pi)


def earth_fixed(sat: Satrec, unix_times) -> tuple[np.ndarray, np.ndarray]:
    """The satellite's Earth-fixed positions (km, shape (n, 3)) at the times, and where SGP4 failed
    (a decayed orbit, an eccentricity out of range): those positions are NaN."""
    jd, fraction = julian_dates(np.atleast_1d(unix_times))
    errors, teme, _velocity = sat.sgp4_array(jd, fraction)
    theta = _gmst(jd, fraction)
    cos_t, sin_t = np.cos(theta), np.sin(theta)
    x, y, z = teme[:, 0], teme[:, 1], teme[:, 2]
    fixed = np.stack([cos_t * x + sin_t * y, -sin_t * x + cos_t * y, z], axis=-1)
    failed = errors != 0
    fixed[failed] = np.nan
    return fixed, failed


def look_angles(fixed: np.ndarray, place: Place) -> tuple[np.ndarray, np.ndarray]:
    """Elevation and azimuth (degrees; azimuth from north through east) of each position seen from
    each point: arrays of shape (points, times)."""
    position, east, north, up = place.frames()
    offset = fixed[None, :, :] - position[:, None, :]
    e, n, u = np.moveaxis(offset @ np.stack([east, north, up], axis=-1), -1, 0)  # one product, three axes
    elevation = np.degrees(np.arctan2(u, np.hypot(e, n)))
    azimuth = np.remainder(np.degrees(np.arctan2(e, n)), 360.0)
    return elevation, azimuth


def elevations(sat: Satrec, place: Place, unix_times) -> np.ndarray:
    """Elevation in degrees of the satellite over each point at each time, shape (points, times)."""
    fixed, _failed = earth_fixed(sat, unix_times)
    return look_angles(fixed, place)[0]
