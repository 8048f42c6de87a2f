"""The schema's upgrade (db/schema.py): a fresh database gets every table the interfaces define,
at the newest revision; upgrading again, or from two processes at once, changes nothing."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from sathub import db
from tests.conftest import BACKENDS, scratch_engine


def newest_revision() -> str:
    """The head of the migrations shipped, read from the files (not from the code under test)."""
    names = sorted(path.name for path in (db.MIGRATIONS / "versions").glob("0*.py"))
    return names[-1].split("_")[0]


def state(engine) -> tuple[set[str], list]:
    with engine.connect() as conn:
        return set(sa.inspect(conn).get_table_names()), list(conn.execute(sa.text("SELECT * FROM alembic_version")))


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_a_fresh_database_gets_every_table_at_the_newest_revision(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        db.upgrade(engine)
        tables, revision = state(engine)
        assert set(db.metadata.tables) <= tables
        assert [row[0] for row in revision] == [newest_revision()]
        db.upgrade(engine)
        assert state(engine) == (tables, revision)


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_two_upgrades_at_once_take_turns(database_url, tmp_path):
    """The second upgrade waits for the first (one_at_a_time) and finds the schema made, rather
    than creating the same tables again beside it."""
    with scratch_engine(database_url, tmp_path) as engine:
        failures: list[BaseException] = []

        def upgrade() -> None:
            try:
                db.upgrade(engine)
            except BaseException as exc:  # reported below, with the thread's exception
                failures.append(exc)

        threads = [threading.Thread(target=upgrade) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        assert [row[0] for row in state(engine)[1]] == [newest_revision()]
