"""Migration 0033 (PostgreSQL): the search index of a database that holds mail, moved into
partitions of 100,000 ids: every row is there after the upgrade, in the partition of its id, and
every kind of search finds what the fixtures say; the GIN indexes hold the id expression; a large
`index_emails` call merges every partition's pending lists; the downgrade gives 0031's table
back, found alike."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from sathub.archive.store.search_partitions import partitions
from tests.archive.api_fixtures import seed_archive
from tests.archive.search.test_search_migrations import assert_fixtures_found
from tests.conftest import BACKENDS, migrate, scratch_engine

ROWS = "SELECT email_id, list_id, date, heading::text, document::text FROM email_search ORDER BY email_id"


def gin_columns(conn) -> dict[str, str]:
    definitions = conn.scalars(
        sa.text("SELECT indexdef FROM pg_indexes WHERE tablename = 'email_search' AND indexdef LIKE '%USING gin%'")
    )
    return {d.split(" ")[2]: d.split(" USING gin ")[1] for d in definitions}


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
def test_the_index_moves_into_partitions_and_back(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0032")
        with engine.begin() as conn:  # the mail far on: its partition and the next are made
            conn.exec_driver_sql("SELECT setval('emails_id_seq', 250006)")
        seed_archive(engine)
        with engine.connect() as conn:
            before = conn.exec_driver_sql(ROWS).all()
        assert before[0][0] == 250007
        migrate(engine, "0033")
        with engine.connect() as conn:
            assert conn.exec_driver_sql(ROWS).all() == before
            assert [(p.name, p.first, p.after) for p in partitions(conn)] == [
                (f"email_search_{first}", first, first + 100_000) for first in range(0, 400_000, 100_000)
            ]
            placed = conn.exec_driver_sql("SELECT DISTINCT tableoid::regclass::text FROM email_search").all()
            assert placed == [("email_search_200000",)]
            assert gin_columns(conn) == {
                "email_search_document": "(document, ((email_id + 0)), ((date + '00:00:00'::interval)))",
                "email_search_heading": "(heading, ((email_id + 0)), ((date + '00:00:00'::interval)))",
            }
        assert_fixtures_found(engine)
        with engine.begin() as conn:  # a call as large as an import's merges the pending lists
            ids = [*conn.scalars(sa.text("SELECT id FROM emails")), *range(10**6, 10**6 + 100)]  # 100 not there
            conn.execute(sa.text("SELECT index_emails(:ids)"), {"ids": ids})
            assert conn.exec_driver_sql(ROWS).all() == before
        migrate(engine, "0032", command.downgrade)
        with engine.connect() as conn:
            assert conn.exec_driver_sql(ROWS).all() == before
            assert conn.scalar(sa.text("SELECT relkind FROM pg_class WHERE relname = 'email_search'")) == "r"
            assert gin_columns(conn) == {
                "email_search_document": "(document, email_id, ((date + '00:00:00'::interval)))",
                "email_search_heading": "(heading, email_id, ((date + '00:00:00'::interval)))",
            }
        assert_fixtures_found(engine)
