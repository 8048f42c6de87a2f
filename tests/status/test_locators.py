"""Maidenhead locators as boxes (status/locators.py). The boxes expected here are worked out by
hand from the Maidenhead definition (fields of 20° x 10° from 180° W, 90° S; squares of 2° x 1°;
subsquares of 5' x 2.5')."""

from sathub.status.locators import Box, box


def test_boxes_of_known_locators():
    # FN42: F = 5 -> -80°, N = 13 -> 40°; 4 -> +8°, 2 -> +2°: 72° W to 70° W, 42° N to 43° N.
    assert box("FN42") == (-72.0, 42.0, -70.0, 43.0)
    # JO01ab: J = 9 -> 0°, O = 14 -> 50°; 0, 1 -> 0° E, 51° N; a = 0 -> +0', b = 1 -> +2.5'.
    assert box("jo01AB") == (0.0, 51.041667, 0.083333, 51.083333)
    # RR99xx: the north-east corner of the world.
    assert box("RR99xx") == (179.916667, 89.958333, 180.0, 90.0)
    assert box("AA00") == (-180.0, -90.0, -178.0, -89.0)
    assert box("ZZ99") is None and box("FN4") is None and box("") is None


def test_a_ring_runs_counter_clockwise_and_closes():
    # RFC 7946 3.1.6: the exterior ring counter-clockwise, its first position repeated last
    west_south, east_south, east_north, west_north = [-72.0, 42.0], [-70.0, 42.0], [-70.0, 43.0], [-72.0, 43.0]
    assert Box(-72.0, 42.0, -70.0, 43.0).ring() == [west_south, east_south, east_north, west_north, west_south]
