"""Connections of db/engines.py on PostgreSQL: a read through db.connect ends with a commit,
which keeps the statements psycopg prepared on the pooled connection (a rollback would
deallocate them all, and every read would parse and plan its statements again); a snapshot read
sees one state of the database from its first statement to its last."""

import gc
import weakref

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from sathub import db
from sathub.db.engines import READ_COMMIT
from sathub.status.tables import rate_limits
from tests.conftest import BACKENDS

PREPARED = "SELECT count(*) FROM pg_prepared_statements"
pytestmark = pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)


@pytest.fixture
def one(engine, database_url):
    """An engine of one pooled connection: each read checks out the same one."""
    single = db.create_engine(database_url, pool_size=1, max_overflow=0)
    yield single
    single.dispose()


def test_a_read_keeps_the_statements_prepared_on_its_connection(one):
    query = sa.select(sa.func.count()).select_from(rate_limits)
    for _ in range(6):  # past psycopg's prepare threshold (5): then prepared on the server
        with db.connect(one) as conn:
            conn.execute(query)
    with db.connect(one) as conn:
        assert conn.exec_driver_sql(PREPARED).scalar_one() >= 1


def test_a_reads_commit_is_marked_as_a_reads(one):
    """The stream's wake-ups ignore it (db/listening.py): it wrote nothing."""
    marks: list = []
    event.listen(one, "commit", lambda conn: marks.append(conn.get_execution_options().get(READ_COMMIT)))
    with db.connect(one) as conn:
        conn.execute(sa.select(1))
    with db.connect(one, write=True) as conn:
        conn.execute(sa.select(1))
    assert marks == [True, None]


def test_a_read_that_fails_commits_nothing(one):
    with pytest.raises(ZeroDivisionError), db.connect(one) as conn:
        conn.execute(rate_limits.insert().values(client="c", window_start=0, hits=1))
        _ = 1 / 0
    with db.connect(one) as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(rate_limits)).scalar_one() == 0


def test_a_snapshot_read_sees_none_of_the_commits_made_during_it(one, engine):
    """connect(snapshot=True): a row another connection commits between two statements of the block
    is not seen by the second (a plain read sees it); afterwards the pooled connection reads in
    READ COMMITTED again."""
    count = sa.select(sa.func.count()).select_from(rate_limits)
    for snapshot, seen in ((True, 0), (False, 1)):
        with db.connect(engine, write=True) as conn:
            conn.execute(rate_limits.delete())
        with db.connect(one, snapshot=snapshot) as conn:
            assert conn.execute(count).scalar_one() == 0
            with db.connect(engine, write=True) as writer:
                writer.execute(rate_limits.insert().values(client="c", window_start=0, hits=1))
            assert conn.execute(count).scalar_one() == seen, snapshot
    with db.connect(one) as conn:
        assert conn.exec_driver_sql("SHOW transaction_isolation").scalar() == "read committed"


def test_an_engine_nobody_holds_is_collected_with_the_connections_of_its_pool(database_url):
    """Its deadlines once held it for good (a value of a WeakKeyDictionary that referred to its
    key): every engine a test made and dropped kept its connections open until the run ended."""
    engine = db.create_engine(database_url, timeout=10)
    with db.connect(engine) as conn:
        conn.exec_driver_sql("SELECT 1")
    collected = weakref.ref(engine)
    del engine, conn
    gc.collect()
    assert collected() is None
