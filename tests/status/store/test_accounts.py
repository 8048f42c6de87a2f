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
