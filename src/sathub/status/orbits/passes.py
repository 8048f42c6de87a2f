"""Passes of a satellite over a place: when it rises above a minimum elevation, culminates and
sets, over a window of time (docs/orbits.md, "Passes"). Pure: numpy over sgp4, through sky.py.

Why the coarse step cannot miss a pass. Seen from one place, a satellite's elevation has one
maximum and one minimum per revolution: the elevation falls with the satellite's angular distance
from the place, which grows and shrinks once a revolution as the satellite runs along its orbit
(the Earth turns under it 15 times slower for a low orbit; for a geostationary one the turn is all
there is, once a day). A maximum and the minima beside it are about half a revolution apart. The
elevation is sampled every 1/20 revolution (at most every LONGEST_STEP), so between a maximum and
each neighbouring minimum lie about ten samples where it only rises, then only falls: every
maximum shows as a sample at least as high as both its neighbours. Every such maximum is refined
unless no moment within a step of its sample can see the satellite at min_elevation (`_may_rise`:
most of a day's maxima are on the far side of the Earth), and a pass is a refined maximum at or
above the minimum elevation, however briefly it gets there (a pass grazing min_elevation for a
second included). Its rise lies
between the last sample below before the maximum and the maximum, where the elevation only rises;
its set between the maximum and the first sample below after it. Refining divides a bracket into
REFINE_POINTS parts per step (the maxima: the part around the highest point; the crossings: the
part where the elevation crosses), so each refinement is one sgp4 call for all of a satellite's
brackets; three or four rounds reach PRECISION. Compared with skyfield's `find_events` in
tests/status/orbits/test_passes.py."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sgp4.api import Satrec

from sathub.status.locators import box
from sathub.status.orbits.sky import Place, earth_fixed, look_angles

# For `_may_rise`: the Earth's turn (rad/s, sidereal), its smallest radius (km, the polar one: the
# widest reach), sgp4's WGS-72 gravitational parameter (km^3/s^2), and a margin for the ellipsoid
# (the place's normal is within 0.2° of its geocentric direction).
EARTH_TURN = 2 * math.pi / 86164.0905
POLAR_RADIUS = 6356.752
MU = 398600.8
REACH_MARGIN = math.radians(1.0)

STEPS_PER_REVOLUTION = 20
LONGEST_STEP = 600.0  # seconds: a geostationary satellite is sampled every 10 minutes
REFINE_POINTS = 32
PRECISION = 1.0  # seconds: times are given to the second, each within half a second
# A pass that rises before the window's end is followed until it sets, up to this long after the
# end: a pass of a satellite in low orbit lasts under half an hour.
LOOKAHEAD = 7200.0

_FRACTIONS = np.linspace(0.0, 1.0, REFINE_POINTS + 1)


@dataclass(frozen=True)
class Pass:
    """One pass, times in Unix seconds (UTC), angles in degrees. A pass above min_elevation at the
    window's start is `in_progress`: its rise is the start and its culmination the highest point
    from then on. `set_clipped`: still up LOOKAHEAD after the window's end, its set is that time."""

    rise: float
    rise_azimuth: float
    culmination: float
    culmination_azimuth: float
    max_elevation: float
    set: float
    set_azimuth: float
    in_progress: bool
    set_clipped: bool


@dataclass(frozen=True)
class Sky:
    """What a satellite does over a place during a window: its passes, or `always` 'above' or
    'below' min_elevation all along it (a geostationary satellite; then no pass), with the
    elevation and azimuth at the start. `failed`: SGP4 could not propagate the elements there."""

    passes: tuple[Pass, ...] = ()
    always: str | None = None
    elevation: float = math.nan
    azimuth: float = math.nan
    failed: bool = False


def grid_place(grid_square: str) -> Place | None:
    """The centre of a 4- or 6-character Maidenhead locator (None when it is not one)."""
    found = box(grid_square)
    if found is None:
        return None
    return Place.of((found.south + found.north) / 2, (found.west + found.east) / 2)


def step_of(sat: Satrec) -> float:
    """Seconds between coarse samples: 1/20 of a revolution, at most LONGEST_STEP."""
    period = 2 * math.pi / sat.no_kozai * 60.0 if sat.no_kozai > 0 else math.inf
    return min(period / STEPS_PER_REVOLUTION, LONGEST_STEP)


def sky_over(sat: Satrec, place: Place, start: float, end: float, min_elevation: float = 0.0) -> Sky:
    """The passes over one place (`place` holds one point) that rise before `end`, from `start`."""
    stop = end + LOOKAHEAD
    count = math.ceil((stop - start) / step_of(sat)) + 1
    times = np.linspace(start, stop, count)
    fixed, failures = earth_fixed(sat, times)
    if failures.any():
        return Sky(failed=True)
    elevation, azimuth = (angles[0] for angles in look_angles(fixed, place))
    may_rise = _may_rise(sat, fixed, place, times[1] - times[0], min_elevation)
    peaks = _refined_peaks(sat, place, times, elevation, may_rise)
    passes = _passes(sat, place, times, elevation, peaks, min_elevation, end)
    now = (float(elevation[0]), float(azimuth[0]))
    if len(passes) == 1 and passes[0].in_progress and passes[0].set > end:
        return Sky(always="above", elevation=now[0], azimuth=now[1])
    if not passes:
        return Sky(always="below", elevation=now[0], azimuth=now[1])
    return Sky(passes=tuple(passes), elevation=now[0], azimuth=now[1])


def _angles(sat: Satrec, place: Place, times: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    fixed, failed = earth_fixed(sat, times.ravel())
    elevation, azimuth = look_angles(fixed, place)
    return elevation[0].reshape(times.shape), azimuth[0].reshape(times.shape), bool(failed.any())


def _elevations(sat: Satrec, place: Place, times: np.ndarray) -> np.ndarray:
    return _angles(sat, place, times)[0]


def _may_rise(sat: Satrec, fixed: np.ndarray, place: Place, step: float, min_elevation: float) -> np.ndarray:
    """For each sample, whether the satellite may stand at min_elevation or higher at some moment
    within one step of it. Elevation falls with the angle at the Earth's centre between the place
    and the satellite: at radius r it reaches min_elevation e only within acos(R cos e / r) - e of
    the place (R the polar radius and r the apogee's: the widest). In one step that angle changes by
    at most what the satellite sweeps at perigee plus the Earth's turn; a sample farther than that
    from the reach cannot have a pass within a step of it."""
    mean_motion = sat.no_kozai / 60.0  # rad/s
    eccentricity = sat.ecco
    apogee = (MU / mean_motion**2) ** (1 / 3) * (1 + eccentricity)
    radius = max(apogee, float(np.linalg.norm(fixed, axis=1).max()))
    e = math.radians(min_elevation)
    reach = math.acos(min(1.0, POLAR_RADIUS / radius * math.cos(e))) - e
    fastest = mean_motion * (1 + eccentricity) ** 2 / (1 - eccentricity**2) ** 1.5
    sweep = (fastest + EARTH_TURN) * step
    position = place.frames()[0][0]
    cosines = fixed @ position / (np.linalg.norm(fixed, axis=1) * np.linalg.norm(position))
    return np.arccos(np.clip(cosines, -1.0, 1.0)) <= reach + sweep + REACH_MARGIN


def _refined_peaks(
    sat: Satrec, place: Place, times: np.ndarray, elevation: np.ndarray, may_rise: np.ndarray
) -> np.ndarray:
    """The times of every maximum of the elevation that may reach min_elevation: each sample at
    least as high as its neighbours (the first and last against their one neighbour), refined
    within the two steps around it."""
    last = len(times) - 1
    higher_than_before = np.r_[True, elevation[1:] > elevation[:-1]]
    not_lower_after = np.r_[elevation[:-1] >= elevation[1:], True]
    index = np.flatnonzero(higher_than_before & not_lower_after & may_rise)
    lo, hi = times[np.maximum(index - 1, 0)], times[np.minimum(index + 1, last)]
    while len(lo) and (hi - lo).max() > PRECISION:
        grid = lo[:, None] + (hi - lo)[:, None] * _FRACTIONS
        best = _elevations(sat, place, grid).argmax(axis=1)
        rows = np.arange(len(lo))
        lo = grid[rows, np.maximum(best - 1, 0)]
        hi = grid[rows, np.minimum(best + 1, REFINE_POINTS)]
    return (lo + hi) / 2


def _crossings(
    sat: Satrec, place: Place, lo: np.ndarray, hi: np.ndarray, level: float, rising: np.ndarray
) -> np.ndarray:
    """Where the elevation crosses `level` between each lo and hi: where `rising`, below at lo and at
    or above at hi (the crossing nearest hi); elsewhere at or above at lo, below at hi (nearest lo)."""
    rows = np.arange(len(lo))
    while len(lo) and (hi - lo).max() > PRECISION:
        grid = lo[:, None] + (hi - lo)[:, None] * _FRACTIONS
        below = _elevations(sat, place, grid) < level
        # rising: the last part that starts below (hi is not below); setting: the first point below
        part = np.where(rising, REFINE_POINTS - below[:, ::-1].argmax(axis=1), below.argmax(axis=1) - 1)
        lo, hi = grid[rows, part], grid[rows, part + 1]
    return (lo + hi) / 2


def _passes(
    sat: Satrec,
    place: Place,
    times: np.ndarray,
    elevation: np.ndarray,
    peaks: np.ndarray,
    min_elevation: float,
    end: float,
) -> list[Pass]:
    peak_elevation = _elevations(sat, place, peaks)
    peaks, peak_elevation = peaks[peak_elevation >= min_elevation], peak_elevation[peak_elevation >= min_elevation]
    if not len(peaks):
        return []
    last = len(times) - 1
    indices = np.arange(len(times))
    below = elevation < min_elevation
    # For each sample, the last sample at or before it that is below, and the first at or after it.
    last_below = np.maximum.accumulate(np.where(below, indices, -1))
    next_below = np.minimum.accumulate(np.where(below, indices, last + 1)[::-1])[::-1]
    at_or_before = np.clip(np.searchsorted(times, peaks, side="right") - 1, 0, last)
    before = last_below[at_or_before]
    after = np.where(at_or_before < last, next_below[np.minimum(at_or_before + 1, last)], last + 1)
    # Two maxima with no sample below between them are one pass (the higher one is its culmination).
    kept: dict[tuple[int, int], int] = {}
    for n, key in enumerate(zip(before.tolist(), after.tolist(), strict=True)):
        if key not in kept or peak_elevation[n] > peak_elevation[kept[key]]:
            kept[key] = n
    chosen = np.array(sorted(kept.values()))
    peaks, peak_elevation = peaks[chosen], peak_elevation[chosen]
    before, after = before[chosen], after[chosen]
    in_progress, set_clipped = before < 0, after > last
    # The rises and sets to find, refined together: one sgp4 call a round for all of them.
    rising, setting = ~in_progress, ~set_clipped
    found = _crossings(
        sat,
        place,
        np.concatenate([times[before[rising]], peaks[setting]]),
        np.concatenate([peaks[rising], times[after[setting]]]),
        min_elevation,
        np.r_[np.ones(rising.sum(), bool), np.zeros(setting.sum(), bool)],
    )
    rises, sets = np.full(len(peaks), times[0]), np.full(len(peaks), times[-1])
    rises[rising], sets[setting] = found[: rising.sum()], found[rising.sum() :]
    _, azimuths, _ = _angles(sat, place, np.concatenate([rises, peaks, sets]))
    rise_azimuth, peak_azimuth, set_azimuth = np.split(azimuths, 3)
    return [
        Pass(
            rise=float(rises[n]),
            rise_azimuth=float(rise_azimuth[n]),
            culmination=float(peaks[n]),
            culmination_azimuth=float(peak_azimuth[n]),
            max_elevation=float(peak_elevation[n]),
            set=float(sets[n]),
            set_azimuth=float(set_azimuth[n]),
            in_progress=bool(in_progress[n]),
            set_clipped=bool(set_clipped[n]),
        )
        for n in range(len(peaks))
        if rises[n] < end
    ]
