"""An element set survives the trip through ElementSet (and so the database) unchanged: the Satrec
rebuilt from its fields propagates exactly as the one sgp4 read from the TLE."""

from datetime import UTC, datetime

from sgp4.api import Satrec

from sathub.status.orbits.elements import ElementSet, usable_over

# ISS (ZARYA), epoch 2024-01-01 12:00 UTC (day 001.5 of 2024), its checksums valid.
LINE1 = "1 25544U 98067A   24001.50000000  .00016717  00000-0  10270-3 0  9005"
LINE2 = "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537"


def test_the_epoch_is_the_tles_own():
    element_set = ElementSet.from_satrec(Satrec.twoline2rv(LINE1, LINE2), "ISS (ZARYA)")
    assert element_set.norad_id == 25544
    assert datetime.fromtimestamp(element_set.epoch, UTC) == datetime(2024, 1, 1, 12, tzinfo=UTC)
    assert abs(element_set.revolutions_per_day - 15.72125391) < 1e-8


def test_a_rebuilt_satrec_propagates_as_the_one_read_from_the_tle():
    original = Satrec.twoline2rv(LINE1, LINE2)
    rebuilt = ElementSet.from_satrec(original).satrec()
    for minutes in (0.0, 90.0, 1440.0, 4320.0):
        jd, fraction = original.jdsatepoch, original.jdsatepochF + minutes / 1440.0
        assert original.sgp4(jd, fraction) == rebuilt.sgp4(jd, fraction)


def test_elements_are_usable_while_every_moment_is_within_their_age_either_side_of_the_epoch():
    epoch, day = ElementSet.from_satrec(Satrec.twoline2rv(LINE1, LINE2)).epoch, 86400
    assert usable_over(epoch, epoch + 6 * day, epoch + 7 * day, 7)
    assert not usable_over(epoch, epoch + 6 * day, epoch + 7 * day + 1, 7)
    assert usable_over(epoch, epoch - 7 * day, epoch - 7 * day + 960, 7)
    assert not usable_over(epoch, epoch - 7 * day - 1, epoch - 7 * day + 959, 7)
    assert usable_over(epoch, epoch - day, epoch + day, 1)  # a window around the epoch
