"""Interface B, SQLite: the triggers an inserted attachment fires run only when its email is there.

An attachment indexes its email for search again (its name is searched with it) and moves its
list's revision. SQLite runs them for each row, and the writers store a new email's attachments
before the email (store/writes.py insert_emails), so that the email is indexed once, when it
arrives: for those rows the three triggers found no email and did nothing, at a cost. 998
attachments of one message took 6.7 ms to insert with them, 2.7 without, 4.7 with this condition,
all in the writers' lock that the report POSTs wait for (issue 40, bench/archive_many_parts.py).
The condition is what made each trigger do anything at all, so what they do is unchanged.
PostgreSQL runs its triggers once per statement: nothing to change there.

Revision ID: 0032
Revises: 0031
"""

from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None

_FORGET = (
    "INSERT INTO email_search(email_search, rowid, subject, body, sender, files, facets) "
    "SELECT 'delete', id, subject, body, sender, files, facets FROM email_search_source WHERE id = NEW.email_id"
)
_ADD = (
    "INSERT INTO email_search(rowid, subject, body, sender, files, facets) "
    "SELECT id, subject, body, sender, files, facets FROM email_search_source WHERE id = NEW.email_id"
)
_REVISION = (
    "UPDATE mailing_lists SET revision = revision + 1, "
    "revised_at = max(coalesce(revised_at, ''), strftime('%Y-%m-%d %H:%M:%S', 'now')) "
    "WHERE id IN ((SELECT list_id FROM emails WHERE id = NEW.email_id))"
)
TRIGGERS = (
    ("attachments_search_insert_forget", "BEFORE", _FORGET),
    ("attachments_search_insert_add", "AFTER", _ADD),
    ("attachments_revision_insert", "AFTER", _REVISION),
)
WHEN = " WHEN EXISTS (SELECT 1 FROM emails WHERE id = NEW.email_id)"


def _create(when: str) -> None:
    for name, timing, action in TRIGGERS:
        op.execute(f"DROP TRIGGER {name}")
        op.execute(f"CREATE TRIGGER {name} {timing} INSERT ON attachments{when} BEGIN {action}; END")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _create(WHEN)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _create("")
