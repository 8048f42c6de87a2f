"""Could this report have happened: was the satellite above the horizon of the report's grid square
at some moment of the report's quarter-hour (docs/orbits.md, "Visibility")? Pure, no I/O.

A report keeps only its day, hour and period (status-api.md 5.4), so its time is a slot of 15 or
16 minutes, and its place a Maidenhead box (a 4-character square is 2° by 1°, ~160 × 110 km at
45° N). The verdict is True when the satellite stands at HORIZON_DEGREES or higher over some point
of the box at some moment of the slot, False when it stays below over every point all the slot,
and None when it cannot be told (no grid square, elements too far from the report's time, SGP4
failing on them).

Over a box, the highest elevation at one moment is over the box's point nearest the sub-satellite
point: on a sphere the elevation falls with the great-circle distance from that point, whatever the
direction. So one point per moment is enough, and the slot is sampled every STEP_SECONDS."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date

import numpy as np
from sgp4.api import Satrec

from sathub.status.locators import Box
from sathub.status.orbits.sky import Place, earth_fixed
from sathub.status.rules import period_of_minute

# The horizon a report is checked against, one degree below the geometric one: radio refraction
# lifts a satellite at the horizon by ~0.6° (the standard 4/3-Earth atmosphere), and elements a
# week old are ~20 km off along the track in low orbit (SGP4's 1-3 km a day), ~0.5° at the 2,300 km
# a station sees the ISS at the horizon. A false verdict marks a report implausible: the margin
# keeps it for reports that could not have happened, not for those at the edge of the sky.
HORIZON_DEGREES = -1.0
# Samples of the slot: within 10 s of any moment. The briefest rise of a low orbit, a pass that
# only grazes the horizon, stays within 0.5° of its highest for ±71 s at least (measured every
# second over a day at 300 random places for the test samples' ISS, AO-91 and AO-7, peaks between
# -0.2° and 1°: AO-91 ±71 s, the ISS ±72 s, AO-7 ±112 s), so a sample 10 s away from that moment
# misses at most 0.5 × (10 / 71)² ≈ 0.01° of it; the tests compare with samples every 5 s.
STEP_SECONDS = 20.0

# Minute → period is rules.period_of_minute (minute 15 is period 0): each period's first second
# and the second after its last, from the start of its hour.
_PERIOD_SECONDS = {
    period: (60 * min(minutes), 60 * (max(minutes) + 1))
    for period in range(4)
    if (minutes := [minute for minute in range(60) if period_of_minute(minute) == period])
}
_E2 = 6.69437999014e-3  # WGS-84's first eccentricity squared


def slot_bounds(day: date, hour: int, period: int) -> tuple[float, float]:
    """The report's slot in Unix seconds (UTC): from its first second to the end of its last."""
    hour_start = calendar.timegm(day.timetuple()) + 3600 * hour
    first, after = _PERIOD_SECONDS[period]
    return float(hour_start + first), float(hour_start + after)


def sample_times(start: float, end: float) -> np.ndarray:
    """Moments from start to end, both included, at most STEP_SECONDS apart."""
    return np.linspace(start, end, int(np.ceil((end - start) / STEP_SECONDS)) + 1)


@dataclass(frozen=True)
class Track:
    """A satellite over one slot: its Earth-fixed positions (km) at the sample times, and its
    sub-satellite points (radians; the latitude geodetic, as a box's). The same for every report of
    the slot, so kept per satellite and slot by the writer."""

    fixed: np.ndarray
    latitude: np.ndarray
    longitude: np.ndarray
    failed: bool  # SGP4 failed at some sample (a decayed orbit): no verdict but True

    @classmethod
    def of(cls, sat: Satrec, times: np.ndarray) -> Track:
        fixed, failed = earth_fixed(sat, times)
        x, y, z = fixed[:, 0], fixed[:, 1], fixed[:, 2]
        # The geodetic latitude of the ground point under the satellite's direction: within 0.2°
        # of the foot of its normal, which moves the point chosen in the box by ~20 km at most,
        # and the elevation there by far less (it is a maximum along the box's edge).
        latitude = np.arctan2(z, (1 - _E2) * np.hypot(x, y))
        return cls(fixed, latitude, np.arctan2(y, x), bool(failed.any()))


def nearest_points(track: Track, box: Box) -> tuple[np.ndarray, np.ndarray]:
    """For each sample, the box's point nearest the sub-satellite point on a sphere (degrees)."""
    west, south, east, north = (np.radians(value) for value in box)
    # The longitude of the box nearest the satellite's: its own inside, else the nearer edge.
    centre, half_width = (west + east) / 2, (east - west) / 2
    off = np.remainder(track.longitude - centre + np.pi, 2 * np.pi) - np.pi
    longitude = centre + np.clip(off, -half_width, half_width)
    # Along that meridian, cos(distance) = A sin(lat) + B cos(lat), highest at atan2(A, B): in the
    # box's latitudes when B > 0, else at the end of the box that gives the larger value.
    a = np.sin(track.latitude)
    b = np.cos(track.latitude) * np.cos(off - (longitude - centre))
    ends = np.where(a * np.sin(north) + b * np.cos(north) >= a * np.sin(south) + b * np.cos(south), north, south)
    latitude = np.where(b > 0, np.clip(np.arctan2(a, b), south, north), ends)
    return np.degrees(latitude), np.degrees(longitude)


def highest_elevations(track: Track, box: Box) -> np.ndarray:
    """The satellite's elevation (degrees) over the box's nearest point at each sample: the highest
    over the box at that moment (NaN where SGP4 failed)."""
    latitude, longitude = nearest_points(track, box)
    position, _east, _north, up = Place.of(latitude, longitude).frames()
    offset = track.fixed - position
    rise = np.einsum("nk,nk->n", offset, up)
    across = np.sqrt(np.maximum(np.einsum("nk,nk->n", offset, offset) - rise**2, 0.0))
    return np.degrees(np.arctan2(rise, across))


def visible_from(track: Track, box: Box) -> bool | None:
    """True when the satellite is at the horizon or above over some point of the box at some
    sample, False when below over all of it at every sample, None when SGP4 failed at a sample."""
    elevations = highest_elevations(track, box)
    if (elevations >= HORIZON_DEGREES).any():
        return True
    return None if track.failed else False
