"""Maidenhead locators as places: the longitude/latitude box a 4- or 6-character locator names
(the grid squares of /api/v2/grid-squares and the satellite pages' map). Pure, no I/O.

A locator is a field (two letters A-R: 20 degrees of longitude by 10 of latitude, from 180 W
and 90 S), a square (two digits: 2 by 1 degrees) and optionally a subsquare (two letters A-X:
5 by 2.5 minutes). Reported locators are normalised and checked by rules.parse_grid first."""

from __future__ import annotations

from typing import NamedTuple

from sathub.status.rules import parse_grid


class Box(NamedTuple):
    west: float
    south: float
    east: float
    north: float

    def ring(self) -> list[list[float]]:
        """The box as a closed GeoJSON ring, counter-clockwise (RFC 7946 3.1.6)."""
        w, s, e, n = self
        return [[w, s], [e, s], [e, n], [w, n], [w, s]]


# Six decimals (about 0.1 m): subsquares are twelfths and twenty-fourths of a degree, which
# binary floats would otherwise print as 0.08333333333333333.
_DECIMALS = 6


def box(locator: str) -> Box | None:
    """The box a locator names, None unless it is a valid 4- or 6-character locator."""
    grid = parse_grid(locator)
    if grid is None:
        return None
    upper = grid.upper()
    west: float = (ord(upper[0]) - ord("A")) * 20 - 180 + int(upper[2]) * 2
    south: float = (ord(upper[1]) - ord("A")) * 10 - 90 + int(upper[3])
    width, height = 2.0, 1.0
    if len(upper) == 6:
        width, height = 2 / 24, 1 / 24
        west += (ord(upper[4]) - ord("A")) * width
        south += (ord(upper[5]) - ord("A")) * height
    return Box(*(round(float(value), _DECIMALS) for value in (west, south, west + width, south + height)))
