"""The rate-limit counter: one atomic row per client and window, shared by every process."""

import sqlalchemy as sa

from sathub.status.tables import rate_limits


def test_the_counter_is_one_shared_row_per_client_and_window(engine):
    from sathub import db
    from sathub.status.store import accounts as account_store

    with db.connect(engine, write=True) as conn:
        hits = [account_store.count_hit(conn, "submit:1.2.3.4", 6000) for _ in range(3)]
        assert account_store.count_hit(conn, "submit:1.2.3.4", 6060) == 1
        account_store.count_hit(conn, "submit:5.6.7.8", 6060)
    assert hits == [1, 2, 3]
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(rate_limits)).scalar() == 2


def test_a_window_starting_after_2038_is_stored_and_read_back(engine):
    """Issue 40: window_start was a 32-bit INTEGER; PostgreSQL refused a window after 2^31 s
    (2038-01-19T03:14:08Z). Migration 0018 makes it a BIGINT."""
    from sathub import db
    from sathub.status import rate_limit
    from sathub.status.store import accounts as account_store

    def stored():
        with engine.connect() as conn:
            return dict(conn.execute(sa.select(rate_limits.c.client, rate_limits.c.window_start)).all())

    start = rate_limit.window_start(2**31 + 60.5)  # the first whole window after 2^31 - 1
    assert start > 2**31 - 1
    with db.connect(engine, write=True) as conn:
        assert [account_store.count_hit(conn, "submit:192.0.2.1", start) for _ in range(2)] == [1, 2]
    assert stored() == {"submit:192.0.2.1": start}
    with db.connect(engine, write=True) as conn:  # its first hit also drops the 2038 row, long gone quiet
        verdict = account_store.count_and_judge(conn, "login:192.0.2.2", 1, 2**40 + 1.0)
    assert verdict.allowed
    assert stored() == {"login:192.0.2.2": rate_limit.window_start(2**40)}


def test_migration_0018_keeps_the_counts_and_its_downgrade_drops_windows_past_2038(database_url, tmp_path):
    from alembic import command

    from sathub import db
    from sathub.status.store import accounts as account_store
    from tests.conftest import migrate, scratch_engine

    def stored(engine):
        with engine.connect() as conn:
            return dict(conn.execute(sa.select(rate_limits.c.client, rate_limits.c.window_start)).all())

    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0016")
        with engine.begin() as conn:
            conn.execute(rate_limits.insert().values(client="submit:192.0.2.1", window_start=1_699_999_980, hits=3))
        migrate(engine, "head")
        with db.connect(engine, write=True) as conn:
            assert account_store.count_hit(conn, "submit:192.0.2.1", 1_699_999_980) == 4  # the count carried over
            conn.execute(rate_limits.insert().values(client="login:192.0.2.2", window_start=2**32, hits=1))
        assert stored(engine) == {"submit:192.0.2.1": 1_699_999_980, "login:192.0.2.2": 2**32}
        migrate(engine, "0016", step=command.downgrade)
        assert stored(engine) == {"submit:192.0.2.1": 1_699_999_980}


def test_requests_counted_together_are_counted_in_one_statement_each_numbered_in_arrival_order(engine):
    """count_in_order: every request gets the number it would have had counting alone."""
    from sqlalchemy import event

    from sathub.status import rate_limit
    from sathub.status.store import accounts as account_store

    now = 1_800_000_030.0
    start = rate_limit.window_start(now)
    counts = []

    def count(conn, cursor, sql, *_):
        if "CONFLICT" in sql:
            counts.append(sql)

    with engine.begin() as conn:
        conn.execute(rate_limits.insert().values(client="api:a", window_start=start, hits=5))
        event.listen(engine, "before_cursor_execute", count)
        try:
            numbered = account_store.count_in_order(conn, ["api:a", "api:b", "api:a", "api:b", "api:a"], now)
        finally:
            event.remove(engine, "before_cursor_execute", count)
    assert numbered == (start, [6, 1, 7, 2, 8])
    assert len(counts) == 1
    with engine.connect() as conn:
        assert dict(
            conn.execute(
                sa.select(rate_limits.c.client, rate_limits.c.hits).where(rate_limits.c.client.like("api:%"))
            ).all()
        ) == {"api:a": 8, "api:b": 2}
