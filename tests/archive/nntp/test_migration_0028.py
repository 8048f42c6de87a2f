"""Migration 0028 numbers the mail already archived (SQLite and PostgreSQL): each list's shown and
hidden mail together, in arrival order (emails.id), its counter at the highest; the downgrade
takes it all away again."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from alembic import command

from tests.conftest import migrate, scratch_engine

NOW = datetime(2020, 1, 1)


def email(id_: int, list_id: int, key: str) -> dict:
    return {
        "id": id_,
        "list_id": list_id,
        "message_id": f"{key}@x",
        "message_id_hash": key.upper().ljust(32, "A"),
        "sender_id": 1,
        "sender_address": "a@x",
        "sender_name": "A",
        "subject": key,
        "content": "text",
        "date": NOW,
        "archived_date": NOW,
        "thread_order": 0,
        "thread_depth": 0,
    }


def test_the_archived_mail_is_numbered_in_arrival_order(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0027")
        meta = sa.MetaData()
        meta.reflect(engine, only=["mailing_lists", "senders", "emails", "archive_removals", "hidden_emails"])
        tables = meta.tables
        with engine.begin() as conn:
            conn.execute(
                tables["mailing_lists"].insert(),
                [
                    {"id": 1, "name": "one@x", "created_at": NOW},
                    {"id": 2, "name": "two@x", "created_at": NOW},
                    {"id": 3, "name": "none@x", "created_at": NOW},
                ],
            )
            conn.execute(tables["senders"].insert(), [{"id": 1, "address": "a@x", "mailman_id": "m"}])
            conn.execute(tables["emails"].insert(), [email(10, 1, "b"), email(4, 1, "a"), email(7, 2, "c")])
            conn.execute(
                tables["archive_removals"].insert(),
                [{"id": 1, "action": "hide", "scope": "s", "reason": "r", "actor": "t", "at": NOW, "messages": 1}],
            )
            conn.execute(tables["hidden_emails"].insert(), [email(6, 1, "hidden") | {"removal_id": 1}])
        migrate(engine, "0028")
        with engine.connect() as conn:
            numbered = conn.execute(
                sa.text(
                    "SELECT message_id, article_number FROM emails UNION ALL "
                    "SELECT message_id, article_number FROM hidden_emails ORDER BY 1"
                )
            ).all()
            counters = conn.execute(sa.text("SELECT list_id, last_article FROM article_counters ORDER BY 1")).all()
        assert [tuple(row) for row in numbered] == [("a@x", 1), ("b@x", 3), ("c@x", 1), ("hidden@x", 2)]
        assert [tuple(row) for row in counters] == [(1, 3), (2, 1), (3, 0)]
        migrate(engine, "0027", command.downgrade)
        with engine.connect() as conn:
            assert "article_counters" not in sa.inspect(conn).get_table_names()
            assert "article_number" not in {c["name"] for c in sa.inspect(conn).get_columns("emails")}
