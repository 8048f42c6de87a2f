"""GET /api/v2/grid-squares: GeoJSON (RFC 7946) of the reported locators. The boxes expected here
are worked out by hand from the Maidenhead definition (fields of 20° x 10° from 180° W, 90° S;
squares of 2° x 1°; subsquares of 5' x 2.5'), as in tests/status/test_locators.py."""

from datetime import UTC, datetime, timedelta

from tests.status.seed import store_report


def test_one_feature_per_locator_as_reported_with_counts(client, seeded):
    recent = datetime.now(UTC) - timedelta(hours=2)
    store_report(seeded, "AO-91", recent, callsign="W1AW", report="Heard", grid="FN42")
    store_report(seeded, "AO-91", recent, callsign="K1ABC", report="Not Heard", grid="fn42")
    store_report(seeded, "AO-91", recent, callsign="N1ABC", report="Heard", grid="FN42")
    store_report(seeded, "AO-91", recent, callsign="KB1XYZ", report="Telemetry Only", grid="FN42ab")
    store_report(seeded, "AO-91", recent, callsign="G4ABC", report="Heard", grid="")
    store_report(seeded, "FO-29", recent, callsign="JA1ABC", report="Heard", grid="PM95")
    store_report(seeded, "AO-91", recent - timedelta(hours=100), callsign="VK3ABC", grid="QF22")
    response = client.get("/api/v2/grid-squares", params={"name": "AO-91"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/geo+json; charset=utf-8"
    collection = response.json()
    assert collection["type"] == "FeatureCollection"
    assert [f["id"] for f in collection["features"]] == ["FN42", "FN42ab"]
    square, subsquare = collection["features"]
    assert square["geometry"] == {
        "type": "Polygon",
        "coordinates": [[[-72.0, 42.0], [-70.0, 42.0], [-70.0, 43.0], [-72.0, 43.0], [-72.0, 42.0]]],
    }
    assert square["bbox"] == [-72.0, 42.0, -70.0, 43.0]
    assert square["properties"]["counts"] == {"Heard": 2, "Telemetry Only": 0, "Not Heard": 1, "Crew Active": 0}
    assert square["properties"]["report_count"] == 3 and square["properties"]["status"] == "heard"
    assert square["properties"]["precision"] == 4 and subsquare["properties"]["precision"] == 6
    # FN42ab: a -> +0', b -> +2.5'.
    assert subsquare["bbox"] == [-72.0, 42.041667, -71.916667, 42.083333]
    assert subsquare["properties"]["status"] == "telemetry"
    assert collection["meta"]["names"] == ["AO-91"] and collection["meta"]["hours"] == 72
    assert collection["meta"]["count"] == 2
    every = client.get("/api/v2/grid-squares", params={"hours": 200}).json()
    assert [f["id"] for f in every["features"]] == ["FN42", "FN42ab", "PM95", "QF22"]


def test_bad_hours_and_unknown_names(client, seeded):
    for bad in ("0", "721", "x"):
        response = client.get("/api/v2/grid-squares", params={"hours": bad})
        assert response.status_code == 400 and response.json()["error"]["details"] == {"hours": bad}
    assert client.get("/api/v2/grid-squares", params={"name": "nope"}).status_code == 404
