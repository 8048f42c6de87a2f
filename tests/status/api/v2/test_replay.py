"""/api/v2's answers replayed before the framework (api/v2/replay.py): within its second and while
the data revision stands, a 200 is sent again and a matching If-None-Match gets its 304 without
reaching the app; never after a write."""

from sathub.status.api.v2.replay import ReplayedV2
from tests.status.api.test_replay import Counted, clock  # noqa: F401 (clock: a fixture)
from tests.status.api.v2.test_answers import an_hour_ago
from tests.status.seed import store_report


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
