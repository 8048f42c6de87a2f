"""GET /api/v2/reports: the whole history, filtered, in keyset pages. The expected order is the
one api-v2.md states (time, then satellite and callsign, case-folded), computed here from the
stored rows; the walk is checked while reports are written between its pages."""

import base64
import json
import random
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.status.seed import store_report

START = datetime(2019, 1, 1, tzinfo=UTC)


def history(engine, count=160, seed=11):
    """Reports over seven years, several per quarter-hour; returns their slots and values."""
    rng = random.Random(seed)
    stored = {}
    for _ in range(count):
        when = START + timedelta(minutes=15 * rng.randrange(4 * 24 * 365 * 7 // 200))
        name = rng.choice(["AO-91", "FO-29", "ISS-FM", "RETIRED-1"])
        callsign = rng.choice(["W1AW", "K1ABC", "DL1ABC", "G4XYZ", "JA1ABC"])
        value = rng.choice(["Heard", "Telemetry Only", "Not Heard"])
        grid = rng.choice(["FN42", "EM48ab", ""])
        store_report(engine, name, when, callsign=callsign, report=value, grid=grid)
        stored[slot_of(name, when, callsign)] = value
    return stored


def slot_of(name, when, callsign):
    period = min(3, max(0, (when.minute - 1) // 15)) if when.minute else 0
    return (when.date().isoformat(), when.hour, period, name.lower(), callsign.upper())


def slot_of_record(record):
    time = record["reported_time"]
    return (time[:10], int(time[11:13]), record["period"], record["name"].lower(), record["callsign"].upper())


def walk(client, params, between=None):
    """Every record of a walk that follows links.next, calling `between(page number)` before each
    page after the first."""
    records, url, pages = [], "/api/v2/reports", 0
    response = client.get(url, params=params)
    while True:
        assert response.status_code == 200, response.text
        body = response.json()
        records += body["data"]
        pages += 1
        if body["links"]["next"] is None:
            return records, pages
        assert body["meta"]["count"] == body["meta"]["limit"]
        if between:
            between(pages)
        response = client.get(body["links"]["next"])


def test_a_walk_returns_every_report_in_order_once(client, seeded):
    stored = history(seeded)
    records, pages = walk(client, {"limit": 7})
    slots = [slot_of_record(r) for r in records]
    assert slots == sorted(stored, reverse=True)
    assert pages == -(-len(stored) // 7)
    ascending, _ = walk(client, {"limit": 50, "order": "asc"})
    assert [slot_of_record(r) for r in ascending] == sorted(stored)


def test_a_walk_while_reports_are_written_and_replaced_returns_each_earlier_report_once(client, seeded):
    stored = history(seeded, count=200, seed=3)
    before = set(stored)
    rng = random.Random(7)
    old_slots = sorted(before)

    def write(page):
        for _ in range(4):  # replace slots already walked and slots still ahead, with new ids
            day, hour, period, name, callsign = rng.choice(old_slots)
            when = datetime.fromisoformat(day).replace(hour=hour, minute=period * 15 + 1, tzinfo=UTC)
            store_report(seeded, name.upper(), when, callsign=callsign, report="Crew Active")
        for _ in range(3):  # new slots everywhere in time, some before the walk's position, some after
            when = START + timedelta(minutes=15 * rng.randrange(4 * 24 * 365 * 7))
            store_report(seeded, "AO-91", when, callsign=f"N{page}X{rng.randrange(99)}", report="Heard")

    records, _ = walk(client, {"limit": 9}, between=write)
    slots = [slot_of_record(r) for r in records]
    assert len(slots) == len(set(slots)), "a slot came back twice"
    assert before <= set(slots), "a report stored before the walk was missed"
    assert slots == sorted(slots, reverse=True)


def test_filters_combine_and_names_repeat(client, seeded):
    store_report(seeded, "AO-91", START + timedelta(hours=1), callsign="W1AW", grid="FN42")
    store_report(seeded, "FO-29", START + timedelta(hours=2), callsign="w1aw", report="Not Heard", grid="EM48ab")
    store_report(seeded, "ISS-FM", START + timedelta(hours=3), callsign="K1ABC", report="Heard", grid="")
    store_report(seeded, "AO-91", START + timedelta(days=400), callsign="W1AW", report="Heard", grid="FN42")

    def names(**params):
        return [(r["name"], r["callsign"]) for r in client.get("/api/v2/reports", params=params).json()["data"]]

    # A display name and a retired name resolve to their API names.
    assert names(name=["AO-91 Mode U/v FM", "[b]_ao-7"]) == [("AO-91", "W1AW"), ("FO-29", "w1aw"), ("AO-91", "W1AW")]
    assert names(callsign="W1AW", order="asc") == [("AO-91", "W1AW"), ("FO-29", "w1aw"), ("AO-91", "W1AW")]
    assert names(grid_square="em48AB") == [("FO-29", "w1aw")]
    assert names(status="not heard") == [("FO-29", "w1aw")]
    assert names(since="2019-01-01T02:30:00Z", until="2019-01-01T03:30:00Z") == [("ISS-FM", "K1ABC"), ("FO-29", "w1aw")]
    # until at 02:29:59 leaves out hour 02 (read as 02:30:00), since at 01:30:01 leaves out hour 01.
    assert names(since="2019-01-01T01:30:01Z", until="2019-01-01T02:29:59Z") == []
    record = client.get("/api/v2/reports", params={"name": "ISS-FM"}).json()["data"][0]
    assert record == {
        "id": record["id"],
        "name": "ISS-FM",
        "display_name": "ISS Voice Repeater",
        "reported_time": "2019-01-01T03:30:00Z",
        "period": 0,
        "callsign": "K1ABC",
        "report": "Heard",
        "grid_square": "",
        "visible": None,  # never checked against the sky: no grid square
    }


def test_links_are_absolute_and_keep_the_filters(client, seeded):
    for hour in range(5):
        store_report(seeded, "AO-91", START + timedelta(hours=hour))
    body = client.get("/api/v2/reports", params={"name": "AO-91", "limit": 2, "order": "asc"}).json()
    assert body["links"]["self"] == "http://sathub.test/api/v2/reports?name=AO-91&limit=2&order=asc"
    following = urlsplit(body["links"]["next"])
    assert following.netloc == "sathub.test" and following.path == "/api/v2/reports"
    query = parse_qs(following.query)
    assert query["name"] == ["AO-91"] and query["limit"] == ["2"] and query["order"] == ["asc"]
    assert body["meta"] == {"count": 2, "limit": 2, "order": "asc"}
    last = client.get("/api/v2/reports", params={"limit": 1000}).json()
    assert last["links"]["next"] is None and last["meta"]["count"] == 5


def test_a_name_that_matches_nothing_is_404(client, seeded):
    response = client.get("/api/v2/reports", params=[("name", "AO-91"), ("name", "NO-SUCH-SAT")])
    assert response.status_code == 404
    assert response.json()["error"] == {
        "code": "satellite_not_found",
        "message": "No satellite matched the requested name 'NO-SUCH-SAT'.",
        "status": 404,
        "details": {"name": "NO-SUCH-SAT"},
    }
    store_report(seeded, "RETIRED-1", START)  # reports under a name no longer in the catalog still count
    assert client.get("/api/v2/reports", params={"name": "retired-1"}).json()["meta"]["count"] == 1


@pytest.mark.parametrize(
    "params, code",
    [
        ({"limit": "0"}, "invalid_parameter"),
        ({"limit": "1001"}, "invalid_parameter"),
        ({"limit": "ten"}, "invalid_parameter"),
        ({"order": "newest"}, "invalid_parameter"),
        ({"since": "yesterday-ish"}, "invalid_since"),
        ({"until": "2026-02-30"}, "invalid_until"),
        ({"grid_square": "ZZ99"}, "invalid_grid_square"),
        ({"status": "Loud"}, "invalid_status"),
        ({"cursor": "not-a-cursor"}, "invalid_cursor"),
        ({"cursor": "WzEsICJ4IiwgIjIwMjYtMDEtMDEiLCA5OTk5OTksIDAsICJhIiwgImIiXQ"}, "invalid_cursor"),
    ],
)
def test_bad_parameters_get_400_and_the_envelope(client, seeded, params, code):
    response = client.get("/api/v2/reports", params=params)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["status"] == 400


def test_a_cursor_only_continues_its_own_search(client, seeded):
    for hour in range(3):
        store_report(seeded, "AO-91", START + timedelta(hours=hour))
    following = client.get("/api/v2/reports", params={"limit": 1}).json()["links"]["next"]
    cursor = parse_qs(urlsplit(following).query)["cursor"][0]
    assert client.get("/api/v2/reports", params={"limit": 1, "cursor": cursor}).status_code == 200
    assert client.get("/api/v2/reports", params={"limit": 5, "cursor": cursor}).status_code == 200  # size may change
    for other in ({"order": "asc"}, {"name": "AO-91"}, {"callsign": "W1AW"}):
        response = client.get("/api/v2/reports", params={"cursor": cursor, **other})
        assert response.json()["error"]["code"] == "invalid_cursor"


def test_at_most_100_names(client, seeded):
    names = [("name", f"SAT-{n}") for n in range(101)]
    response = client.get("/api/v2/reports", params=names)
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"name": 101}
    assert client.get("/api/v2/grid-squares", params=names).status_code == 400
    # 99 spellings of one satellite (two distinct) and another: three branches, merged without repeats.
    store_report(seeded, "AO-91", START)
    spellings = [("name", "AO-91" if n % 2 else "ao-91 ") for n in range(99)] + [("name", "FO-29")]
    assert client.get("/api/v2/reports", params=spellings).json()["meta"]["count"] == 1


def test_a_forged_cursor_whose_text_no_driver_can_encode_is_a_400(client, seeded):
    """Issue 40, hole 10: a cursor of this very search whose satellite is a lone surrogate (JSON
    escapes it as \\ud800) was a 500, UnicodeEncodeError in the driver."""
    for hour in range(2):
        store_report(seeded, "AO-91", START + timedelta(hours=hour))
    following = client.get("/api/v2/reports", params={"limit": 1}).json()["links"]["next"]
    cursor = parse_qs(urlsplit(following).query)["cursor"][0]
    version, search, day, hour, period, _, callsign = json.loads(base64.urlsafe_b64decode(cursor + "=="))
    for name_key in ("\ud800", "ao-91\x00"):
        document = json.dumps([version, search, day, hour, period, name_key, callsign]).encode()
        forged = base64.urlsafe_b64encode(document).decode().rstrip("=")
        response = client.get("/api/v2/reports", params={"limit": 1, "cursor": forged})
        assert response.status_code == 400
        assert response.json() == {
            "error": {
                "code": "invalid_cursor",
                "message": "Parameter 'cursor' is not a cursor of this search.",
                "status": 400,
            }
        }


@pytest.mark.parametrize("path", ["/api/v2/reports", "/api/v2/grid-squares"])
@pytest.mark.parametrize(
    "query, details",
    [
        ("name=%00", {"name": "\x00"}),
        ("name=", {"name": ""}),
        ("name=AO-91&name=+", {"name": " "}),
        ("name=AO%0091", {"name": "AO\x0091"}),
    ],
)
def test_a_blank_name_or_one_with_a_nul_is_a_400_not_every_report(client, seeded, path, query, details):
    """Issue 40: `name=%00` and `name=` answered every satellite's reports, unfiltered."""
    store_report(seeded, "AO-91", START)
    response = client.get(f"{path}?{query}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("invalid_parameter", details)
    assert "'name'" in error["message"]


@pytest.mark.parametrize(
    "query, name",
    [
        ("callsign=", "callsign"),
        ("callsign=%00", "callsign"),
        ("callsign=W1AW%00", "callsign"),
        ("grid_square=%00", "grid_square"),
        ("status=", "status"),
        ("since=%00", "since"),
        ("until=", "until"),
        ("cursor=", "cursor"),
    ],
)
def test_every_blank_text_filter_is_a_400_naming_it(client, seeded, query, name):
    store_report(seeded, "AO-91", START, callsign="W1AW")
    response = client.get(f"/api/v2/reports?{query}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_parameter" and list(error["details"]) == [name]
