"""Re-importing a file corrects the rows it stored before: the SQL side of docs/archive-import.md,
"Archives imported under older rules".

An email already in the list keeps its row (its id, so its arrival order, and its URL), but every
value derived from its headers and body is replaced by what the current rules derive from the
same message: sender (and spelling), name, subject, dates, parent reference, content and
attachments. Mail that reached the list only live is in no file and is left as it is."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sathub.archive.mail.message import ParsedEmail
from sathub.archive.store.writes import attachment_rows, sender_ids
from sathub.archive.tables import attachments, emails

# The columns a re-import may correct, as ParsedEmail names them.
_DERIVED = ("sender_address", "sender_name", "subject", "content", "date", "archived_date", "in_reply_to")


class EarlierRows:
    """The list's emails stored before an import run began (ids up to `last_id`): only those can
    hold values of older rules. Each is settled by the first copy of its message the run meets
    (`met`, kept by the caller once committed), so a later duplicate never rewrites it; a fresh
    list has none, and its import keeps no state here."""

    def __init__(self, engine: Engine, list_id: int) -> None:
        self.list_id = list_id
        with engine.connect() as conn:
            self.last_id = conn.scalar(sa.select(sa.func.max(emails.c.id)).where(emails.c.list_id == list_id)) or 0
        self.met: set[int] = set()

    def correct(self, conn: Connection, batch: list[ParsedEmail]) -> tuple[int, list[int]]:
        """(corrected, ids met) for `batch`: see correct_stored."""
        if not self.last_id:
            return 0, []
        return correct_stored(conn, self.list_id, batch, self.last_id, self.met)


def correct_stored(
    conn: Connection, list_id: int, batch: list[ParsedEmail], last_id: int, settled: set[int]
) -> tuple[int, list[int]]:
    """Rewrite the emails stored up to `last_id` (and not `settled`) whose derived values differ
    from the first copy of their message in `batch`. Returns (how many were corrected, the ids
    met). The caller recomputes the list's threads (store.rethreading.rethread_list) when any was,
    since dates and parent references may have changed."""
    by_hash: dict[str, ParsedEmail] = {}
    for email in batch:
        by_hash.setdefault(email.message_id_hash, email)
    stored = [
        row
        for row in conn.execute(
            sa.select(emails.c.id, emails.c.message_id_hash, *(emails.c[name] for name in _DERIVED)).where(
                emails.c.list_id == list_id, emails.c.id <= last_id, emails.c.message_id_hash.in_(list(by_hash))
            )
        )
        if row.id not in settled
    ]
    if not stored:
        return 0, []
    described = _attachment_descriptions(conn, [row.id for row in stored])
    changed = []
    for row in stored:
        email = by_hash[row.message_id_hash]
        wanted = tuple(getattr(email, name) for name in _DERIVED)
        if tuple(row[2:]) != wanted or described.get(row.id, []) != _describe(email):
            changed.append((row.id, email))
    met = [row.id for row in stored]
    if not changed:
        return 0, met
    senders = sender_ids(conn, {email.sender_address.lower() for _, email in changed})
    conn.execute(
        emails.update()
        .where(emails.c.id == sa.bindparam("email_id"))
        .values({name: sa.bindparam(f"new_{name}") for name in ("sender_id", *_DERIVED)}),
        [
            {
                "email_id": email_id,
                "new_sender_id": senders[email.sender_address.lower()],
                **{f"new_{name}": getattr(email, name) for name in _DERIVED},
            }
            for email_id, email in changed
        ],
    )
    conn.execute(attachments.delete().where(attachments.c.email_id.in_([email_id for email_id, _ in changed])))
    rows = attachment_rows(changed)
    if rows:
        conn.execute(attachments.insert(), rows)
    return len(changed), met


def _attachment_descriptions(conn: Connection, email_ids: list[int]) -> dict[int, list[tuple]]:
    described: dict[int, list[tuple]] = {}
    for row in conn.execute(
        sa.select(
            attachments.c.email_id,
            attachments.c.counter,
            attachments.c.name,
            attachments.c.content_type,
            attachments.c.encoding,
            attachments.c.size,
        )
        .where(attachments.c.email_id.in_(email_ids))
        .order_by(attachments.c.counter)
    ):
        described.setdefault(row.email_id, []).append(tuple(row[1:]))
    return described


def _describe(email: ParsedEmail) -> list[tuple]:
    return [(a.counter, a.name, a.content_type, a.encoding, len(a.content)) for a in email.attachments]
