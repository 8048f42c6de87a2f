"""GET /api/v2/satellites: the catalog with what the status page's select and v1's include_stats
give, in one call."""

from datetime import UTC, datetime

from tests.status.seed import store_report


def test_the_catalog_with_aliases_values_and_totals(client, seeded):
    store_report(seeded, "AO-91", datetime(2026, 5, 23, 8, 20, tzinfo=UTC))
    store_report(seeded, "ao-91", datetime(2026, 5, 22, 23, 50, tzinfo=UTC), callsign="K1ABC")
    response = client.get("/api/v2/satellites")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    body = response.json()
    assert body["meta"] == {"count": 3}
    # Ordered by display name, as the page's select: "AO-91 Mode U/v FM", "FO-29", "ISS Voice Repeater".
    assert body["data"] == [
        {
            "name": "AO-91",
            "display_name": "AO-91 Mode U/v FM",
            "website": "https://www.amsat.org/ao-91/",
            "aliases": [],
            "report_values": ["Heard", "Telemetry Only", "Not Heard", "Crew Active"],
            "report_count": 2,
            "latest_report_time": "2026-05-23T08:30:00Z",
        },
        {
            "name": "FO-29",
            "display_name": "FO-29",
            "website": "",
            "aliases": ["[B]_AO-7"],
            "report_values": ["Heard", "Telemetry Only", "Not Heard", "Crew Active"],
            "report_count": 0,
            "latest_report_time": "",
        },
        {
            "name": "ISS-FM",
            "display_name": "ISS Voice Repeater",
            "website": "https://www.ariss.org/",
            "aliases": [],
            "report_values": ["Heard", "Telemetry Only", "Not Heard", "Crew Active"],
            "report_count": 0,
            "latest_report_time": "",
        },
    ]
    assert "\\/" not in response.text  # '/' written as is (clients.md item 13)
