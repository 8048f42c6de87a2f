"""The webhooks' deliverer (notify/webhook_delivery.py) against real local HTTP receivers, on
SQLite and PostgreSQL: signed bodies (checked with hmac here), in order, retried after a failure,
disabled after a run of failures, at least once across a restart, and a dead receiver that does
not hold up the others."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import threading
import time
from dataclasses import replace

import pytest

from sathub import db
from sathub.db.revision_probe import RevisionProbe
from sathub.status.notify.webhook_delivery import Deliveries
from sathub.status.store import events as event_store
from sathub.status.store import webhooks as store
from tests.status.notify.webhook_receivers import FAST, dead_receiver, delivering, receiving
from tests.status.seed import hours_ago, seed_catalog, store_report

SECRET = "s3cret-for-tests"


def add_hook(engine, url: str, events=("report",), names=()) -> int:
    with db.connect(engine, write=True) as conn:
        return store.add_webhook(conn, url, SECRET, events, names)


def hook_of(engine, hook_id: int) -> store.Webhook:
    with db.connect(engine) as conn:
        found = store.webhook(conn, hook_id)
    assert found is not None
    return found


def attempts_of(engine, hook_id: int) -> list[store.Attempt]:
    with db.connect(engine) as conn:
        return list(store.recent_attempts(conn, [hook_id], 50)[hook_id])


def wait_until(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def callsigns_of(receiver) -> set[str]:
    return {body["report"]["callsign"] for body in report_bodies(receiver.received)}


def report_bodies(received) -> list[dict]:
    return [json.loads(item.body) for item in received if item.headers["X-Sathub-Event"] == "report"]


def test_reports_are_posted_signed_in_order_with_their_ids(engine):
    seed_catalog(engine)
    with receiving() as receiver:
        hook = add_hook(engine, receiver.url)
        with delivering(engine):
            for number, callsign in enumerate(("W1AW", "K1ABC", "N0CALL")):
                store_report(engine, "AO-91", hours_ago(1, minute=number * 15), callsign=callsign)
            received = receiver.wait_for(3)
            with db.connect(engine) as conn:
                last = event_store.watermark(conn)
            # recorded once answered: the position is the last event delivered
            wait_until(lambda: hook_of(engine, hook).position == int(received[-1].headers["X-Sathub-Event-Id"]))
    for item in received:
        expected = "sha256=" + hmac.new(SECRET.encode(), item.body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(item.headers["X-Sathub-Signature-256"], expected)
        assert item.headers["Content-Type"] == "application/json"
        assert item.headers["X-Sathub-Event"] == "report"
        assert len(item.headers["X-Sathub-Delivery"]) == 36
        assert item.path == "/hook"
    bodies = report_bodies(received)
    assert [body["report"]["callsign"] for body in bodies] == ["W1AW", "K1ABC", "N0CALL"]
    assert [body["report"]["name"] for body in bodies] == ["AO-91"] * 3
    ids = [body["event_id"] for body in bodies]
    assert ids == sorted(ids) and ids[-1] <= last
    assert [int(item.headers["X-Sathub-Event-Id"]) for item in received] == ids


def test_a_hook_gets_only_the_events_and_satellites_it_subscribed_to(engine):
    seed_catalog(engine)
    with receiving() as everything, receiving() as fo29_only:
        add_hook(engine, everything.url, events=("report", "status"))
        add_hook(engine, fo29_only.url, names=("fo-29",))
        with delivering(engine):
            store_report(engine, "AO-91", hours_ago(1))
            store_report(engine, "FO-29", hours_ago(1), callsign="K1ABC")
            received = everything.wait_for(4)  # two reports, and each satellite's status now heard
            only = fo29_only.wait_for(1)
            time.sleep(0.3)
    assert sorted(item.headers["X-Sathub-Event"] for item in received) == ["report", "report", "status", "status"]
    status = [json.loads(item.body) for item in received if item.headers["X-Sathub-Event"] == "status"]
    assert {body["name"] for body in status} == {"AO-91", "FO-29"}
    assert [body["report"]["name"] for body in report_bodies(fo29_only.received)] == ["FO-29"]
    assert len(only) == len(fo29_only.received) == 1


def test_a_failed_delivery_is_tried_again_and_nothing_after_it_goes_first(engine):
    seed_catalog(engine)
    answers = iter([500, 503, 200])

    def flaky(received) -> int:
        return next(answers, 200)

    with receiving(flaky) as receiver:
        hook = add_hook(engine, receiver.url)
        with delivering(engine):
            store_report(engine, "AO-91", hours_ago(1), callsign="W1AW")
            store_report(engine, "AO-91", hours_ago(1, minute=40), callsign="K1ABC")
            received = receiver.wait_for(4)
            wait_until(lambda: len(attempts_of(engine, hook)) == 4)  # the last outcome recorded
    callsigns = [body["report"]["callsign"] for body in report_bodies(received)]
    assert callsigns == ["W1AW", "W1AW", "W1AW", "K1ABC"]
    assert len({item.headers["X-Sathub-Delivery"] for item in received}) == 4  # one id per attempt
    log = attempts_of(engine, hook)
    assert [attempt.status_code for attempt in log] == [200, 200, 503, 500]  # newest first
    assert hook_of(engine, hook).failures == 0


def test_a_hook_failing_longer_than_the_retry_period_is_disabled_and_can_be_enabled_again(engine):
    seed_catalog(engine)
    failing = True
    with receiving(lambda received: 500 if failing else 200) as receiver:
        hook = add_hook(engine, receiver.url)
        with delivering(engine, replace(FAST, retry_seconds=0.15)):
            store_report(engine, "AO-91", hours_ago(1))
            wait_until(lambda: not hook_of(engine, hook).enabled)
            disabled = hook_of(engine, hook)
            attempts = len(receiver.received)
            time.sleep(0.3)  # a retry would be due after at most 0.2 s (FAST)
            assert len(receiver.received) == attempts  # nobody tries a disabled hook
            assert disabled.disabled_reason.startswith(f"failed {disabled.failures} times in a row since ")
            assert disabled.disabled_reason.endswith("last: HTTP 500")
            failing = False
            with db.connect(engine, write=True) as conn:
                store.set_enabled(conn, hook, True)
            receiver.wait_for(attempts + 1)
    assert report_bodies(receiver.received[-1:])[0]["report"]["callsign"] == "W1AW"


def test_an_event_in_flight_when_the_deliverer_stops_is_delivered_again_after_the_restart(engine):
    seed_catalog(engine)
    release = threading.Event()

    def slow_second(received) -> int:
        if json.loads(received.body)["report"]["callsign"] == "K1ABC":
            release.wait(5)
        return 200

    with receiving(slow_second) as receiver:
        hook = add_hook(engine, receiver.url)
        with delivering(engine):
            for number, callsign in enumerate(("W1AW", "K1ABC", "N0CALL")):
                store_report(engine, "AO-91", hours_ago(1, minute=number * 15), callsign=callsign)
            wait_until(lambda: receiver.in_flight > 0)
        release.set()  # the stopped deliverer's attempt ends; its outcome is never recorded
        with delivering(engine):
            receiver.wait_for(4)
            time.sleep(0.2)
    callsigns = [body["report"]["callsign"] for body in report_bodies(receiver.received)]
    assert sorted(callsigns) == ["K1ABC", "K1ABC", "N0CALL", "W1AW"]
    assert callsigns.index("N0CALL") > callsigns.index("K1ABC")
    assert hook_of(engine, hook).lease_owner is None  # given back at the stop


def test_a_dead_receiver_does_not_hold_up_the_other_hooks(engine):
    seed_catalog(engine)
    with receiving() as alive, dead_receiver() as dead_url:
        dead = add_hook(engine, dead_url)
        start = hook_of(engine, dead).position
        add_hook(engine, alive.url)
        with delivering(engine, replace(FAST, timeout=5.0)):
            started = time.monotonic()
            store_report(engine, "AO-91", hours_ago(1))
            store_report(engine, "AO-91", hours_ago(1, minute=40), callsign="K1ABC")
            alive.wait_for(2)
            took = time.monotonic() - started
    assert took < 2.5  # the dead hook's attempt lasts its 5 s deadline
    assert hook_of(engine, dead).position == start  # never answered: nothing delivered, nothing skipped


def test_two_deliverers_on_two_engines_never_send_one_hooks_events_at_once(engine, database_url):
    """As two processes: A delivers, then stops halfway (its leases given back) and B takes over.
    Each receiver sees one request at a time, every event, in order (an event A had in flight may
    come again: at least once)."""
    seed_catalog(engine)
    other = db.create_engine(database_url)

    def slowly(received) -> int:
        time.sleep(0.02)  # widens the window in which two senders would overlap
        return 200

    try:
        with receiving(slowly) as one, receiving(slowly) as two, receiving(slowly) as three:
            receivers = (one, two, three)
            for receiver in receivers:
                add_hook(engine, receiver.url)
            first = delivering(engine)
            a = first.__enter__()
            try:
                wait_until(lambda: len(a.hooks) == 3)
                with delivering(other) as b:
                    for number in range(4):
                        store_report(engine, "AO-91", hours_ago(1 + number), callsign=f"W{number}AW")
                    one.wait_for(2)
                    assert not b.hooks  # A holds them all
                    first.__exit__(None, None, None)
                    for number in range(4, 8):
                        store_report(engine, "AO-91", hours_ago(1 + number), callsign=f"W{number}AW")
                    for receiver in receivers:
                        wait_until(lambda r=receiver: callsigns_of(r) >= {f"W{n}AW" for n in range(8)})
                    assert len(b.hooks) == 3
            except BaseException:
                first.__exit__(None, None, None)
                raise
    finally:
        other.dispose()
    for receiver in receivers:
        assert receiver.most_in_flight == 1
        ids = [int(item.headers["X-Sathub-Event-Id"]) for item in receiver.received]
        assert ids == sorted(ids) and len(ids) - len(set(ids)) <= 1


def test_the_serving_app_delivers_and_refuses_a_private_address_by_default(engine, settings):
    from starlette.testclient import TestClient

    from sathub.app import create_app

    seed_catalog(engine)
    with receiving() as allowed, receiving() as refused:
        add_hook(engine, allowed.url)
        with TestClient(create_app(replace(settings, webhooks_allow_private=1, webhook_delivery=1), engine=engine)):
            store_report(engine, "AO-91", hours_ago(1))
            assert report_bodies(allowed.wait_for(1))[0]["report"]["callsign"] == "W1AW"
        refused_id = add_hook(engine, refused.url.replace("127.0.0.1", "localhost"))
        with TestClient(create_app(replace(settings, webhook_delivery=1), engine=engine)):
            store_report(engine, "AO-91", hours_ago(2))
            wait_until(lambda: attempts_of(engine, refused_id) != [])
        # registered with a name: refused at connect time, once it resolved to 127.0.0.1
        assert attempts_of(engine, refused_id)[0].error.startswith("refused: localhost resolves to ")
        assert refused.received == [] and hook_of(engine, refused_id).failures == 1


def test_a_process_told_not_to_deliver_sends_nothing(engine, settings):
    """SATHUB_WEBHOOK_DELIVERY=0: the serving app takes no lease and posts nothing (the test above
    shows the same hook served within a fraction of a second when it does deliver)."""
    from starlette.testclient import TestClient

    from sathub.app import create_app

    seed_catalog(engine)
    with receiving() as receiver:
        add_hook(engine, receiver.url)
        quiet = replace(settings, webhooks_allow_private=1, webhook_delivery=0)
        with TestClient(create_app(quiet, engine=engine)):
            store_report(engine, "AO-91", hours_ago(1))
            time.sleep(1.5)
        assert receiver.received == []


def test_a_stop_that_comes_with_a_wake_up_ends_the_deliverer(engine):
    """Cancelled in the same turn of the event loop as its wake-up is set, the deliverer still ends.
    Python 3.11's wait_for returned normally then: the stop was lost, and the deliverer of a test
    kept delivering, its LISTEN connection open, into the tests after it."""

    async def scenario() -> None:
        deliveries = Deliveries(engine, probe, replace(FAST, claim_seconds=60))
        task = asyncio.create_task(deliveries.run())
        await asyncio.sleep(0.5)  # its first round done: waiting to be woken
        deliveries.woken.set()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            async with asyncio.timeout(5):
                await task

    probe = RevisionProbe(engine)
    try:
        asyncio.run(scenario())
    finally:
        probe.close()
