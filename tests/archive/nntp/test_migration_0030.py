"""Migration 0030 (SQLite and PostgreSQL): OVER's kept fields, NULL for every email stored before it
(`archive reindex --sources` makes them: tests/archive/ingest/test_searched_text.py), the SQLite
index that answers OVER alone; the downgrade takes them away again."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from tests.archive.migration_fixtures import store_one_email
from tests.conftest import migrate, scratch_engine


def test_the_kept_fields_and_their_index(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0029")
        store_one_email(engine, article_number=1)
        migrate(engine, "0030")
        with engine.begin() as conn:
            assert conn.execute(sa.text("SELECT id, overview FROM emails")).all() == [(4, None)]
            for table in ("emails", "hidden_emails"):
                assert "overview" in {column["name"] for column in sa.inspect(conn).get_columns(table)}
            indexes = {index["name"]: index["column_names"] for index in sa.inspect(conn).get_indexes("emails")}
            if engine.dialect.name == "sqlite":
                assert indexes["emails_list_article_overview"] == ["list_id", "article_number", "overview"]
                plan = conn.exec_driver_sql(
                    "EXPLAIN QUERY PLAN SELECT id, overview FROM emails WHERE list_id = 1 AND article_number"
                    " BETWEEN 1 AND 9 ORDER BY article_number"
                ).all()
                assert "COVERING INDEX emails_list_article_overview" in plan[0][-1]
            else:
                assert "emails_list_article_overview" not in indexes
        migrate(engine, "0029", command.downgrade)
        with engine.connect() as conn:
            for table in ("emails", "hidden_emails"):
                assert "overview" not in {column["name"] for column in sa.inspect(conn).get_columns(table)}
            assert "emails_list_article_overview" not in {
                index["name"] for index in sa.inspect(conn).get_indexes("emails")
            }
