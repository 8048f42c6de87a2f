"""/api/v2's answers replayed before the framework (api/v2/replay.py): within its second and while
the data revision stands, a 200 is sent again and a matching If-None-Match gets its 304 without
reaching the app; never after a write. /api/v2/passes is never replayed: a load of elements is
seen at once."""

from datetime import timedelta

from sgp4.api import Satrec

from sathub import db
from sathub.status import times
from sathub.status.api.v2.replay import ReplayedV2
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import elements as elements_store
from tests.status.api.test_replay import Counted, clock  # noqa: F401 (clock: a fixture)
from tests.status.api.v2.test_answers import an_hour_ago
from tests.status.orbits import samples
from tests.status.seed import seed_catalog, store_report


def replaying(client) -> Counted:
    client.get("/api/v2/satellites")  # builds the middleware stack
    layer = client.app.middleware_stack
    while not isinstance(layer, ReplayedV2):
        layer = layer.app
    layer.app = inner = Counted(layer.app)
    return inner


def test_a_200_and_a_304_are_replayed_within_the_second(client, seeded, clock):  # noqa: F811
    store_report(seeded, "AO-91", an_hour_ago())
    inner = replaying(client)
    path = "/api/v2/reports?name=AO-91"
    first, again = client.get(path), client.get(path)
    unchanged = client.get(path, headers={"If-None-Match": f'"other", W/{first.headers["etag"]}'})
    assert inner.calls == 1
    assert again.content == first.content and again.headers == first.headers
    assert unchanged.status_code == 304 and unchanged.content == b""
    assert unchanged.headers["etag"] == first.headers["etag"] and "content-type" not in unchanged.headers
    assert client.get(path, headers={"If-None-Match": '"other"'}).status_code == 200
    assert inner.calls == 1


def test_replayed_answers_are_never_older_than_a_write(client, seeded):
    # Within one second the same request is replayed before the framework; a write moves the
    # revision, and the next request is answered anew, 200 or 304 alike.
    path = "/api/v2/reports?name=AO-91"
    store_report(seeded, "AO-91", an_hour_ago())
    first = client.get(path)
    etag = first.headers["etag"]
    assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
    assert client.get(path).content == first.content
    store_report(seeded, "AO-91", an_hour_ago(), callsign="K1ABC")
    changed = client.get(path, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.json()["meta"]["count"] == 2
    assert changed.headers["etag"] != etag
    assert client.get(path, headers={"If-None-Match": changed.headers["etag"]}).status_code == 304


def test_passes_see_a_load_of_elements_within_the_same_second(client, engine, monkeypatch):
    # A load moves the elements revision, not the data revision: a replay watching the data
    # revision alone would answer the old elements' 304 here, within the same (frozen) second.
    monkeypatch.setattr(times, "utc_now", lambda: samples.EPOCH + timedelta(hours=6))
    seed_catalog(engine, [{"name": "SO-50", "display_name": "SO-50", "website": "", "norad_id": "27607"}])
    newer = samples.tle(
        27607,
        "SO-50",
        inclination=64.55,
        raan=210.0,
        eccentricity=0.0069,
        perigee=150.0,
        anomaly=210.0,
        revolutions_per_day=14.80,
        epoch=samples.EPOCH + timedelta(hours=1),
    )
    sets = [(ElementSet.from_satrec(Satrec.twoline2rv(l1, l2), name), "tle") for name, l1, l2 in (samples.SO_50, newer)]
    with db.connect(engine, write=True) as conn:
        elements_store.save_element_sets(conn, sets[:1])
    inner = replaying(client)
    path = "/api/v2/passes?grid=FN31pr"
    first = client.get(path)
    etag = first.headers["etag"]
    assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
    with db.connect(engine, write=True) as conn:
        elements_store.save_element_sets(conn, sets[1:])
    moved = client.get(path, headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["etag"] != etag
    assert {p["elements_epoch"] for p in moved.json()["data"]} == {"2026-11-28T01:00:00Z"}
    assert inner.calls == 3
