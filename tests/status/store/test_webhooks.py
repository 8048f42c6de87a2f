"""The webhooks' SQL (status/store/webhooks.py, migration 0020) on SQLite and PostgreSQL: the tables
as tables.py declares them, a hook starting at the watermark, one holder at a time (a lapsed lease
taken over, the old holder's writes refused), the position moving only by its holder, and the log
trimmed to its size when asked."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from sathub import db
from sathub.status.store import events as event_store
from sathub.status.store import webhooks as store
from tests.schema_drift import same_default
from tests.status.seed import hours_ago, seed_catalog, store_report

MINE = {"webhooks", "webhook_deliveries"}


def only_mine(obj, name, type_, reflected, compare_to) -> bool:
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return table is not None and table.name in MINE


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_the_migration_makes_the_tables_tables_py_declares(engine):
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": same_default, "include_object": only_mine}
        )
        assert compare_metadata(context, db.metadata) == []


def attempt(event_id: int, status: int | None = 200) -> store.Attempt:
    return store.Attempt(f"{event_id:036d}", event_id, 1000.0 + event_id, 5.0, status, None if status else "refused")


def add(conn, names=()) -> int:
    return store.add_webhook(conn, "https://example.org/hook", "s" * 16, {"report", "status"}, names)


def test_a_new_hook_starts_at_the_watermark_with_its_subscription(engine):
    seed_catalog(engine)
    store_report(engine, "AO-91", hours_ago(1))
    with db.connect(engine, write=True) as conn:
        assert store.unknown_names(conn, ["ao-91", "FO-29", "NOPE"]) == ["NOPE"]
        hook_id = add(conn, names=["AO-91", "fo-29"])
        hook = store.webhook(conn, hook_id)
        assert hook.position == event_store.watermark(conn) > 0
    assert (hook.events, hook.names, hook.enabled, hook.failures) == ({"report", "status"}, {"ao-91", "fo-29"}, True, 0)


def test_one_holder_at_a_time_and_a_lapsed_lease_is_taken_over(engine):
    with db.connect(engine, write=True) as conn:
        hook_id = add(conn)
        start = store.webhook(conn, hook_id).position  # the watermark: events are kept across tests
        assert [hook.id for hook in store.claim(conn, "a", now=100.0, until=160.0)] == [hook_id]
        assert store.claim(conn, "b", now=150.0, until=210.0) == []  # a still holds it
        assert [hook.lease_until for hook in store.claim(conn, "a", now=150.0, until=210.0)] == [210.0]  # renewed
        assert [hook.lease_owner for hook in store.claim(conn, "b", now=211.0, until=271.0)] == ["b"]  # lapsed
        # the old holder can no longer move the position nor record an outcome
        assert not store.advance(conn, hook_id, "a", 212.0, 272.0, position=start + 5)
        assert not store.record_attempt(conn, hook_id, "a", 212.0, 272.0, attempt(start + 5), delivered=True, trim_to=3)
        assert not store.renew(conn, hook_id, "a", 212.0, 272.0)
        assert store.webhook(conn, hook_id).position == start
        assert store.advance(conn, hook_id, "b", 212.0, 272.0, position=start + 5)
        assert not store.advance(conn, hook_id, "b", 212.0, 272.0, position=start + 4)  # never backwards
        store.release(conn, "b")
        assert store.webhook(conn, hook_id).lease_owner is None
        assert [hook.lease_owner for hook in store.claim(conn, "a", now=213.0, until=273.0)] == ["a"]


def test_failures_count_and_a_delivery_ends_the_run(engine):
    with db.connect(engine, write=True) as conn:
        hook_id = add(conn)
        start = store.webhook(conn, hook_id).position
        store.claim(conn, "a", now=100.0, until=1000.0)
        assert store.record_attempt(
            conn, hook_id, "a", 101.0, 1000.0, attempt(start + 1, 500), delivered=False, next_attempt=111.0, trim_to=3
        )
        assert store.record_attempt(
            conn, hook_id, "a", 112.0, 1000.0, attempt(start + 1, None), delivered=False, next_attempt=132.0, trim_to=3
        )
        failing = store.webhook(conn, hook_id)
        assert (failing.failures, failing.failing_since, failing.next_attempt, failing.position) == (
            2,
            1001.0 + start,
            132.0,
            start,
        )
        assert store.record_attempt(conn, hook_id, "a", 133.0, 1000.0, attempt(start + 1), delivered=True, trim_to=3)
        done = store.webhook(conn, hook_id)
        assert (done.failures, done.failing_since, done.next_attempt, done.position) == (0, None, 0.0, start + 1)
        assert store.record_attempt(
            conn,
            hook_id,
            "a",
            134.0,
            1000.0,
            attempt(start + 2, 404),
            delivered=False,
            disabled_reason="gone",
            trim_to=3,
        )
        disabled = store.webhook(conn, hook_id)
        assert (disabled.enabled, disabled.disabled_reason, disabled.lease_owner) == (False, "gone", None)
        assert store.claim(conn, "a", now=135.0, until=1000.0) == []  # nobody delivers a disabled hook
        assert store.set_enabled(conn, hook_id, True)
        enabled = store.webhook(conn, hook_id)
        assert (enabled.enabled, enabled.failures, enabled.failing_since, enabled.position) == (
            True,
            0,
            None,
            start + 1,
        )


def test_the_log_keeps_each_hooks_last_attempts(engine):
    with db.connect(engine, write=True) as conn:
        first, second = add(conn), add(conn)
        store.claim(conn, "a", now=100.0, until=1000.0)
        for event_id in range(1, 5):
            assert store.record_attempt(conn, first, "a", 101.0, 1000.0, attempt(event_id), delivered=True)
        assert len(store.recent_attempts(conn, [first], limit=10)[first]) == 4  # kept until a trim
        assert store.record_attempt(conn, first, "a", 101.0, 1000.0, attempt(5), delivered=True, trim_to=3)
        assert store.record_attempt(conn, second, "a", 101.0, 1000.0, attempt(9, 500), delivered=False, trim_to=3)
        log = store.recent_attempts(conn, [first, second], limit=2)
        assert [item.event_id for item in log[first]] == [5, 4]
        assert [(item.event_id, item.status_code, item.error) for item in log[second]] == [(9, 500, None)]
        assert [item.event_id for item in store.recent_attempts(conn, [first], limit=10)[first]] == [5, 4, 3]
        assert store.remove_webhook(conn, first)
        assert not store.remove_webhook(conn, first)
        assert store.recent_attempts(conn, [first], limit=10) == {first: []}
        assert store.webhook(conn, 2**40) is None and not store.set_enabled(conn, 2**40, True)  # beyond the column
