"""An element set as SGP4 takes it, whatever it was read from.

A TLE and an OMM record both become sgp4's `Satrec`; what is kept of one is the epoch and the nine
mean elements `Satrec.sgp4init` takes, so a set propagates the same after a round trip through the
database (checked in tests/status/orbits/test_elements.py against the Satrec read from the TLE)."""

from __future__ import annotations

from dataclasses import dataclass

from sgp4.api import WGS72, Satrec

from sathub.status.tables import ELEMENT_FIELDS

# Julian dates: the Unix epoch, and SGP4's own epoch origin (1949-12-31 00:00 UT).
JD_UNIX_EPOCH = 2440587.5
JD_SGP4_EPOCH = 2433281.5
SECONDS_PER_DAY = 86400.0
# In the order Satrec.sgp4init takes them after the epoch, named as the table's columns.
MEAN_ELEMENTS = ELEMENT_FIELDS


def usable_over(epoch: float, start: float, end: float, max_age_days: float) -> bool:
    """Whether elements of this epoch may be used over [start, end] (Unix seconds): every moment of
    it within `max_age_days` of the epoch, before it as after it, since SGP4's error grows with the
    time from the epoch either way. One rule for the reports' check and the pass predictions, with
    one setting (SATHUB_ELEMENTS_MAX_AGE_DAYS, docs/orbits.md)."""
    return max(abs(start - epoch), abs(end - epoch)) <= max_age_days * SECONDS_PER_DAY


@dataclass(frozen=True)
class ElementSet:
    norad_id: int
    epoch: float  # Unix seconds, UTC
    bstar: float
    ndot: float
    nddot: float
    ecco: float
    argpo: float  # radians
    inclo: float  # radians
    mo: float  # radians
    no_kozai: float  # radians per minute
    nodeo: float  # radians
    object_name: str = ""

    @classmethod
    def from_satrec(cls, sat: Satrec, object_name: str = "") -> ElementSet:
        days = (sat.jdsatepoch - JD_UNIX_EPOCH) + sat.jdsatepochF
        return cls(
            norad_id=int(sat.satnum),
            epoch=days * SECONDS_PER_DAY,
            **{name: float(getattr(sat, name)) for name in MEAN_ELEMENTS},
            object_name=object_name,
        )

    def satrec(self) -> Satrec:
        sat = Satrec()
        epoch_days = self.epoch / SECONDS_PER_DAY + (JD_UNIX_EPOCH - JD_SGP4_EPOCH)
        sat.sgp4init(WGS72, "i", self.norad_id, epoch_days, *(getattr(self, name) for name in MEAN_ELEMENTS))
        return sat

    @property
    def revolutions_per_day(self) -> float:
        return self.no_kozai * 1440.0 / (2.0 * 3.141592653589793)
