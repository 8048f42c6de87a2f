"""Hearing that the database was written (db/listening.py), on SQLite and PostgreSQL: a write's
commit of the engine is heard and a read's is not, nothing once it stops; on PostgreSQL a NOTIFY
of another connection reaches a connection that LISTENs, and none after it UNLISTENs."""

import pytest
import sqlalchemy as sa

from sathub import db
from sathub.db.listening import Listener
from tests.conftest import POSTGRES_URL

CHANNEL = "sathub_test_listening"


def write(engine) -> None:
    with db.connect(engine, write=True) as conn:
        conn.execute(sa.select(1))


def test_a_writes_commit_is_heard_a_reads_is_not(engine):
    listener = Listener(engine, CHANNEL)
    heard: list[int] = []
    listener.hear_commits(lambda: heard.append(1))
    try:
        assert listener.hears_commits
        with db.connect(engine) as conn:  # a read ends with a commit too
            conn.execute(sa.select(1))
        assert heard == []
        write(engine)
        assert heard == [1]
    finally:
        listener.stop_hearing_commits()
    assert not listener.hears_commits
    write(engine)
    assert heard == [1]


def test_only_postgresql_tells_of_other_processes_commits(engine):
    assert Listener(engine, CHANNEL).notified_by_others == (engine.dialect.name == "postgresql")


@pytest.mark.skipif(not POSTGRES_URL, reason="LISTEN/NOTIFY is PostgreSQL's: needs SATHUB_TEST_POSTGRES_URL")
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_notification_reaches_the_connection_only_while_it_listens(engine):
    def notify() -> None:
        with db.connect(engine, write=True) as conn:
            conn.execute(sa.text(f"SELECT pg_notify('{CHANNEL}', '')"))

    with Listener(engine, CHANNEL).connection() as channel:
        notify()
        assert not channel.listening and not channel.notified(timeout=0.2)
        channel.listen()
        notify()
        assert channel.listening and channel.notified(timeout=5)
        assert not channel.notified(timeout=0.2)  # taken
        channel.unlisten()
        notify()
        assert not channel.listening and not channel.notified(timeout=0.2)
