"""Element sets the tests share: TLEs of catalog satellites with epoch 2026-11-28 00:00 UTC.

Their elements are close to the real ones of late 2026 (inclination, eccentricity, mean motion) but
are test data, not real observations: what the tests check is the computation with them, against
skyfield on the same elements. The lines are laid out as the TLE format fixes them, each with its
modulo-10 checksum, so that any TLE reader (sgp4's, skyfield's) takes them."""

from __future__ import annotations

from datetime import UTC, datetime

EPOCH = datetime(2026, 11, 28, tzinfo=UTC)


def checksum(line: str) -> int:
    return sum(int(c) if c.isdigit() else c == "-" for c in line) % 10


def tle(
    norad_id: int,
    name: str,
    *,
    inclination: float,
    raan: float,
    eccentricity: float,
    perigee: float,
    anomaly: float,
    revolutions_per_day: float,
    bstar: str = " 10000-3",
    epoch: datetime = EPOCH,
) -> tuple[str, str, str]:
    """(name, line 1, line 2) of a TLE; bstar in the format's own exponent notation."""
    day = (epoch - datetime(epoch.year, 1, 1, tzinfo=UTC)).total_seconds() / 86400 + 1
    line1 = f"1 {norad_id:05d}U 00000A   {epoch.year % 100:02d}{day:012.8f}  .00000000  00000-0 {bstar} 0  999"
    line2 = (
        f"2 {norad_id:05d} {inclination:8.4f} {raan:8.4f} {round(eccentricity * 1e7):07d} "
        f"{perigee:8.4f} {anomaly:8.4f} {revolutions_per_day:11.8f}    1"
    )
    return name, line1 + str(checksum(line1)), line2 + str(checksum(line2))


# NORAD number: the catalog's (src/sathub/data/catalog.csv).
ISS = tle(
    25544,
    "ISS (ZARYA)",
    inclination=51.6400,
    raan=120.0,
    eccentricity=0.0004,
    perigee=60.0,
    anomaly=300.0,
    revolutions_per_day=15.50,
)
SO_50 = tle(
    27607,
    "SAUDISAT 1C (SO-50)",
    inclination=64.5500,
    raan=200.0,
    eccentricity=0.0069,
    perigee=150.0,
    anomaly=210.0,
    revolutions_per_day=14.80,
)
AO_91 = tle(
    43017,
    "RADFXSAT (FOX-1B)",
    inclination=97.5000,
    raan=300.0,
    eccentricity=0.0225,
    perigee=90.0,
    anomaly=270.0,
    revolutions_per_day=14.79,
)
AO_7 = tle(
    7530,
    "OSCAR 7 (AO-7)",
    inclination=101.9800,
    raan=10.0,
    eccentricity=0.0012,
    perigee=200.0,
    anomaly=160.0,
    revolutions_per_day=12.536,
    bstar=" 20000-4",
)
FO_29 = tle(
    24278,
    "JAS-2 (FO-29)",
    inclination=98.5000,
    raan=250.0,
    eccentricity=0.0350,
    perigee=30.0,
    anomaly=330.0,
    revolutions_per_day=13.53,
    bstar=" 30000-4",
)
RS_44 = tle(
    44909,
    "RS-44 & BREEZE-KM R/B",
    inclination=82.5000,
    raan=45.0,
    eccentricity=0.0215,
    perigee=120.0,
    anomaly=240.0,
    revolutions_per_day=12.80,
    bstar=" 10000-4",
)
QO_100 = tle(
    43700,
    "ES'HAIL 2",
    inclination=0.0200,
    raan=90.0,
    eccentricity=0.0002,
    perigee=180.0,
    anomaly=200.0,
    revolutions_per_day=1.0027,
    bstar=" 00000-0",
)

ALL = (ISS, SO_50, AO_91, AO_7, FO_29, RS_44, QO_100)


def three_line_text(sets=ALL) -> str:
    return "".join(f"{name}\n{line1}\n{line2}\n" for name, line1, line2 in sets)
