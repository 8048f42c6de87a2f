"""Migration 0029 (SQLite and PostgreSQL): email_references and its hidden mirror, and every email
stored before it marked not read (references_read NULL) for `archive reindex --sources`; the
downgrade takes it all away again."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from tests.archive.migration_fixtures import store_one_email
from tests.conftest import migrate, scratch_engine


def test_references_tables_and_the_mark_of_mail_not_read(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0028")
        store_one_email(engine)
        migrate(engine, "0029")
        with engine.begin() as conn:
            assert conn.execute(sa.text("SELECT id, references_read FROM emails")).all() == [(4, None)]
            conn.execute(
                sa.text(
                    "INSERT INTO email_references (email_id, position, list_id, message_id) VALUES (4, 0, 1, 'r@x')"
                )
            )
            names = set(sa.inspect(conn).get_table_names())
            assert {"email_references", "hidden_email_references"} <= names
            indexes = {
                index["name"]: index["column_names"] for index in sa.inspect(conn).get_indexes("email_references")
            }
            assert indexes["email_references_list_message_id"] == ["list_id", "message_id"]
            conn.execute(sa.text("DELETE FROM emails"))  # the references go with their email
            assert conn.scalar(sa.text("SELECT count(*) FROM email_references")) == 0
        migrate(engine, "0028", command.downgrade)
        with engine.connect() as conn:
            assert not {"email_references", "hidden_email_references"} & set(sa.inspect(conn).get_table_names())
            for table in ("emails", "hidden_emails"):
                assert "references_read" not in {c["name"] for c in sa.inspect(conn).get_columns(table)}
