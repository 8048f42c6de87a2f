"""Mail stored by an older migration's schema, for the tests of the migrations after it."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

NOW = datetime(2020, 1, 1)


def store_one_email(engine, **columns) -> None:
    """One list (id 1), one sender and one email (id 4, `a@x`, and `columns`), written through
    the tables as the database has them now (reflected, not tables.py's)."""
    meta = sa.MetaData()
    meta.reflect(engine, only=["mailing_lists", "senders", "emails"])
    email = {"list_id": 1, "sender_id": 1, "sender_address": "a@x", "sender_name": "A", "subject": "s"}
    email |= {"content": "t", "date": NOW, "archived_date": NOW, "thread_order": 0, "thread_depth": 0}
    with engine.begin() as conn:
        conn.execute(meta.tables["mailing_lists"].insert(), [{"id": 1, "name": "one@x", "created_at": NOW}])
        conn.execute(meta.tables["senders"].insert(), [{"id": 1, "address": "a@x", "mailman_id": "m"}])
        conn.execute(
            meta.tables["emails"].insert(), [email | {"id": 4, "message_id": "a@x", "message_id_hash": "A"} | columns]
        )
