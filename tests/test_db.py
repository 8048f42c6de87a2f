"""RevisionProbe (src/sathub/db.py): the revision every cached read starts with, on both backends."""

import pytest
import sqlalchemy as sa

from sathub.db import DatabaseUnavailable, RevisionProbe


def bump(engine) -> None:
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE data_revision SET revision = revision + 1 WHERE id = 1"))


def test_the_probe_sees_every_committed_write_at_once(engine):
    probe = RevisionProbe(engine)
    first = probe.read()
    assert probe.read() == first  # the kept cursor (and prepared statement) answers again
    bump(engine)
    assert probe.read() == first + 1
    bump(engine)
    bump(engine)
    assert probe.read() == first + 3


def test_a_dead_probe_connection_is_replaced(engine):
    probe = RevisionProbe(engine)
    first = probe.read()
    probe.local.conn.dbapi_connection.close()  # the server dropped it
    bump(engine)
    assert probe.read() == first + 1


def test_an_unreachable_database_is_database_unavailable(engine):
    probe = RevisionProbe(engine)
    probe.read()

    def broken():
        raise sa.exc.OperationalError("SELECT", {}, Exception("gone"))

    probe.local.cursor = None
    probe.engine = type("Away", (), {"raw_connection": staticmethod(broken), "dialect": engine.dialect})()
    with pytest.raises(DatabaseUnavailable):
        probe.read()
