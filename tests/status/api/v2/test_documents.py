"""/api/v2's documents from rows (api/v2/documents.py), without a server: the answers of
docs/api-v2.md's examples (AO-91 heard twice at 20:xx and not heard once at 18:xx on 2026-11-25)
built from the rows the store gives for them."""

from datetime import date, datetime

from sathub.status import grid
from sathub.status.api.v2.documents import grid_square_document, grid_square_key, status_document

DAY = date(2026, 11, 25)
HOURLY = [(DAY, 20, "AO-91", "Heard", 2), (DAY, 18, "AO-91", "Not Heard", 1)]
NO_REPORT = {"Heard": 0, "Telemetry Only": 0, "Not Heard": 0, "Crew Active": 0}


def hour_number(day: date, hour: int) -> int:
    """Hours since 2000-01-01 00:00, as the store counts a report's hour."""
    return int((datetime(day.year, day.month, day.day, hour) - datetime(2000, 1, 1)).total_seconds()) // 3600


def test_the_documented_status_grid_of_one_day():
    rows = grid.count_grid(DAY, HOURLY, 1)
    document = status_document(DAY, 1, rows, {"ao-91": "AO-91 Mode U/v FM"})
    assert document["meta"] == {
        "count": 1,
        "days": 1,
        "cells": 12,
        "start": "2026-11-25T00:00:00Z",
        "end": "2026-11-26T00:00:00Z",
    }
    (row,) = document["data"]
    assert (row["name"], row["display_name"], row["latest_report_time"]) == (
        "AO-91",
        "AO-91 Mode U/v FM",
        "2026-11-25T20:30:00Z",
    )
    assert row["cells"][:3] == [
        {
            "start": "2026-11-25T22:00:00Z",
            "end": "2026-11-26T00:00:00Z",
            "status": "none",
            "colour": "C0C0C0",
            "text": "",
            "counts": NO_REPORT,
            "report_count": 0,
            "latest_report_time": "",
        },
        {
            "start": "2026-11-25T20:00:00Z",
            "end": "2026-11-25T22:00:00Z",
            "status": "heard",
            "colour": "#648fff",
            "text": "2",
            "counts": {**NO_REPORT, "Heard": 2},
            "report_count": 2,
            "latest_report_time": "2026-11-25T20:30:00Z",
        },
        {
            "start": "2026-11-25T18:00:00Z",
            "end": "2026-11-25T20:00:00Z",
            "status": "not_heard",
            "colour": "#dc267f",
            "text": "1",
            "counts": {**NO_REPORT, "Not Heard": 1},
            "report_count": 1,
            "latest_report_time": "2026-11-25T18:30:00Z",
        },
    ]
    assert row["cells"][11]["start"] == "2026-11-25T00:00:00Z" and len(row["cells"]) == 12


def test_a_name_no_longer_in_the_catalog_has_an_empty_display_name():
    document = status_document(DAY, 1, grid.count_grid(DAY, HOURLY, 1), {})
    assert document["data"][0]["display_name"] == ""


def test_the_documented_grid_squares():
    located = [
        ("jo62", "Not Heard", hour_number(DAY, 18), 1),
        ("FN31", "Heard", hour_number(DAY, 20), 1),
        ("FN4", "Heard", hour_number(DAY, 20), 5),  # old data: neither 4 nor 6 characters
    ]
    meta = {"hours": 24, "since": "2026-11-24T21:30:00Z", "names": ["AO-91"]}
    document = grid_square_document(located, meta)
    assert document["meta"] == {**meta, "count": 2}
    assert document["features"] == [
        {
            "type": "Feature",
            "id": "FN31",
            "bbox": [-74.0, 41.0, -72.0, 42.0],
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[-74.0, 41.0], [-72.0, 41.0], [-72.0, 42.0], [-74.0, 42.0], [-74.0, 41.0]]],
            },
            "properties": {
                "grid_square": "FN31",
                "precision": 4,
                "counts": {**NO_REPORT, "Heard": 1},
                "report_count": 1,
                "status": "heard",
                "latest_report_time": "2026-11-25T20:30:00Z",
            },
        },
        {
            "type": "Feature",
            "id": "JO62",
            "bbox": [12.0, 52.0, 14.0, 53.0],
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[12.0, 52.0], [14.0, 52.0], [14.0, 53.0], [12.0, 53.0], [12.0, 52.0]]],
            },
            "properties": {
                "grid_square": "JO62",
                "precision": 4,
                "counts": {**NO_REPORT, "Not Heard": 1},
                "report_count": 1,
                "status": "not_heard",
                "latest_report_time": "2026-11-25T18:30:00Z",
            },
        },
    ]


def test_spellings_of_one_locator_are_one_feature():
    located = [("FN42ab", "Heard", hour_number(DAY, 3), 1), ("fn42AB", "Not Heard", hour_number(DAY, 5), 2)]
    (feature,) = grid_square_document(located, {})["features"]
    assert feature["id"] == "FN42ab" and feature["properties"]["precision"] == 6
    assert feature["properties"]["counts"] == {**NO_REPORT, "Heard": 1, "Not Heard": 2}
    assert feature["properties"]["latest_report_time"] == "2026-11-25T05:30:00Z"
    assert grid_square_key(" fn42AB ") == "FN42ab"
