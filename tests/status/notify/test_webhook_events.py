"""What a webhook is sent (notify/webhook_events.py): each event's body is the `data:` of the frame
GET /api/v2/stream sends for it (the stream's builder, status/stream/messages.py), with its id,
name and kind; the subscription's filter."""

from __future__ import annotations

import json

from sathub import db
from sathub.status.notify.webhook_events import Payload, payloads
from sathub.status.store import events as event_store
from sathub.status.stream.messages import messages
from tests.status.seed import hours_ago, seed_catalog, store_report


def test_each_event_is_sent_as_the_stream_sends_it(engine):
    seed_catalog(engine)
    with db.connect(engine) as conn:
        before = event_store.watermark(conn)
    store_report(engine, "AO-91", hours_ago(1), callsign="W1AW", grid="FN31")
    store_report(engine, "AO-91", hours_ago(1, minute=40), callsign="K1ABC", report="Not Heard")
    with db.connect(engine) as conn:
        rows = event_store.events_between(conn, before, event_store.watermark(conn))
    sent = payloads(rows)
    frames = [message.data for message in messages(rows)]
    kinds = [payload.kind for payload in sent]
    assert kinds[:2] == ["report", "status"] and kinds.count("report") == 2  # then the first status change
    for payload, frame in zip(sent, frames, strict=True):
        assert frame == b"id: %d\nevent: %s\ndata: %s\n\n" % (payload.event_id, payload.kind.encode(), payload.body)
    first = json.loads(sent[0].body)
    assert first["report"]["callsign"] == "W1AW" and first["report"]["grid_square"] == "FN31"
    assert {payload.name_key for payload in sent} == {"ao-91"}


def test_a_subscription_wants_its_events_and_satellites():
    report = Payload(1, "report", "ao-91", b"{}")
    assert report.wanted_by(frozenset({"report"}), frozenset())
    assert report.wanted_by(frozenset({"report", "status"}), frozenset({"ao-91", "fo-29"}))
    assert not report.wanted_by(frozenset({"status"}), frozenset())
    assert not report.wanted_by(frozenset({"report"}), frozenset({"fo-29"}))
