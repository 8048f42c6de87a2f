"""The budgets' counters (store/budgets.py) on SQLite and PostgreSQL: spent in one statement, so
that processes sharing a database share each client's bucket and never both spend its last token."""

from __future__ import annotations

import threading

import sqlalchemy as sa

from sathub import db
from sathub.archive.budgets.rule import Budget
from sathub.archive.store import budgets
from sathub.archive.tables import archive_budgets

NOW = 1_800_000_000_000  # Unix milliseconds


def spend(engine, client: str, budget: Budget, now: int = NOW) -> int | None:
    with db.connect(engine, write=True) as conn:
        return budgets.spend(conn, client, now, budget.interval_ms, budget.latest_start(now))


def test_a_bucket_gives_its_minutes_worth_then_one_token_an_interval(engine):
    budget = Budget("search", 3)  # a token every 20 s
    assert [spend(engine, "a", budget) for _ in range(3)] == [None, None, None]
    refused = spend(engine, "a", budget)
    assert refused == NOW + 60_000  # due: the bucket is full again a minute from now
    assert budget.retry_after(refused, NOW) == 20
    assert spend(engine, "a", budget, NOW + 19_999) is not None
    assert spend(engine, "a", budget, NOW + 20_000) is None  # one token back
    assert spend(engine, "a", budget, NOW + 20_000) is not None
    assert spend(engine, "b", budget) is None  # another client's bucket is full


def test_a_refusal_spends_nothing(engine):
    budget = Budget("search", 1)
    assert spend(engine, "a", budget) is None
    for _ in range(5):  # hammering while refused does not push the next token further away
        assert spend(engine, "a", budget, NOW + 1_000) == NOW + 60_000
    assert spend(engine, "a", budget, NOW + 60_000) is None


def test_rows_of_clients_quiet_for_an_hour_are_dropped(engine):
    budget = Budget("search", 60)
    spend(engine, "old", budget)
    spend(engine, "new", budget, NOW + budgets.QUIET_MS + 2_000)
    with engine.connect() as conn:
        assert set(conn.scalars(sa.select(archive_budgets.c.client))) == {"new"}


def test_two_engines_spend_from_one_bucket(engine, database_url):
    """Two processes' engines on one database, spending at once: exactly the budget is spent."""
    budget, other = Budget("search", 20), db.create_engine(database_url)
    outcomes: list[int | None] = []
    lock = threading.Lock()

    def burst(on) -> None:
        for _ in range(15):
            outcome = spend(on, "crawler", budget)
            with lock:
                outcomes.append(outcome)

    try:
        threads = [threading.Thread(target=burst, args=(on,)) for on in (engine, other, engine, other)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        other.dispose()
    assert outcomes.count(None) == 20 and len(outcomes) == 60
