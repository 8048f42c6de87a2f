"""Keeping threads right while emails arrive in any order (the SQL side of mail/thread_order.py).

A batch of new emails touches the threads of their parents and of the replies that were waiting
for them; only those threads are reloaded, rearranged and written back (thread rows, and each
email's parent, thread, order and depth). A thread keeps its row while its root stays a root;
the row of a thread merged into its parent's thread is deleted."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.archive.mail.ids import message_id_hash
from sathub.archive.mail.message import ParsedEmail
from sathub.archive.mail.thread_order import ArrangedThread, ThreadNode, arrange_threads
from sathub.archive.tables import emails, threads
from sathub.db.dialect import allocate_ids


@dataclass(frozen=True, slots=True)
class Place:
    """Where an email sits: the values of its threading columns."""

    parent_id: int | None
    thread_id: int  # threads.id
    order: int
    depth: int


def rethread(conn: Connection, list_id: int, new: list[tuple[int, ParsedEmail]]) -> dict[int, Place]:
    """Link the new emails (ids allocated, rows not yet written) to their parents and to the replies
    waiting for them, rewrite the threads this touches, and return the new emails' places."""
    parent_of: dict[int, int] = {}
    touched: set[int] = set()  # threads.id of existing threads that change

    new_by_hash = {email.message_id_hash: email_id for email_id, email in new}
    reference_of = {email_id: message_id_hash(email.in_reply_to) for email_id, email in new if email.in_reply_to}
    outside = set(reference_of.values()) - new_by_hash.keys()
    archived = (
        {
            row.message_id_hash: row
            for row in conn.execute(
                sa.select(emails.c.id, emails.c.message_id_hash, emails.c.thread_id).where(
                    emails.c.list_id == list_id, emails.c.message_id_hash.in_(outside)
                )
            )
        }
        if outside
        else {}
    )
    for email_id, reference in reference_of.items():
        if reference in new_by_hash:
            if new_by_hash[reference] != email_id:
                parent_of[email_id] = new_by_hash[reference]
        elif reference in archived:
            parent_of[email_id] = archived[reference].id
            touched.add(archived[reference].thread_id)

    # Replies archived earlier, waiting for one of these emails.
    new_by_message_id = {email.message_id: email_id for email_id, email in new}
    for row in conn.execute(
        sa.select(emails.c.id, emails.c.in_reply_to, emails.c.thread_id).where(
            emails.c.list_id == list_id, emails.c.parent_id.is_(None), emails.c.in_reply_to.in_(list(new_by_message_id))
        )
    ):
        parent_of[row.id] = new_by_message_id[row.in_reply_to]
        touched.add(row.thread_id)
    return _place(conn, list_id, new, parent_of, touched, joined=False)


def rethread_one(
    conn: Connection,
    list_id: int,
    email_id: int,
    email: ParsedEmail,
    parent: tuple[int, int] | None,
    waiting: bool,
    thread_row_id: int | None,
) -> Place:
    """rethread for one new email whose look-ups were made with the list's (store/one_message.py): its
    archived parent (emails.id, thread id) if any, whether replies wait for it, and the id of its
    own thread row when it starts a thread alone (no parent, nothing waiting)."""
    if parent is None and not waiting:
        conn.execute(
            threads.insert(),
            {
                "id": thread_row_id,
                "list_id": list_id,
                "thread_id": email.message_id_hash,
                "starting_email_id": email_id,
                "subject": email.subject,
                "date_active": email.date,
                "emails_count": 1,
            },
        )
        assert thread_row_id is not None  # look_up takes one for an email that starts a thread alone
        return Place(None, thread_row_id, 0, 0)
    parent_of: dict[int, int] = {}
    touched: set[int] = set()
    if parent is not None:
        parent_of[email_id] = parent[0]
        touched.add(parent[1])
    if waiting:
        for row in conn.execute(_WAITING, {"list_id": list_id, "message_id": email.message_id}):
            parent_of[row.id] = email_id
            touched.add(row.thread_id)
    return _place(conn, list_id, [(email_id, email)], parent_of, touched, joined=True)[email_id]


_WAITING = sa.select(emails.c.id, emails.c.thread_id).where(
    emails.c.list_id == sa.bindparam("list_id"),
    emails.c.parent_id.is_(None),
    emails.c.in_reply_to == sa.bindparam("message_id"),
)


_THREAD_EMAILS = sa.select(
    emails.c.id,
    emails.c.parent_id,
    emails.c.date,
    emails.c.message_id_hash,
    emails.c.thread_id,
    emails.c.thread_order,
    emails.c.thread_depth,
).where(emails.c.thread_id.in_(sa.bindparam("touched", expanding=True)))
_THREAD_EMAILS_JOINED = _THREAD_EMAILS.add_columns(
    threads.c.thread_id.label("thread_key"),
    sa.case((emails.c.parent_id.is_(None), emails.c.subject)).label("root_subject"),
).join_from(emails, threads, threads.c.id == emails.c.thread_id)


def _place(
    conn: Connection,
    list_id: int,
    new: list[tuple[int, ParsedEmail]],
    parent_of: dict[int, int],
    touched: set[int],
    joined: bool,
) -> dict[int, Place]:
    """Rearrange the touched threads with the new emails and their links; the new emails' places.
    `joined` (one live message): load each email with its thread row's key and, for a stored root,
    its subject, what _write_thread_rows would otherwise look up in two more statements (the
    import keeps those two: on its batches of thousands the join measured no faster)."""
    nodes: dict[int, ThreadNode] = {}
    stored: dict[int, Place] = {}
    root_subjects: dict[int, str] = {}
    rows_by_thread_id: dict[str, int] = {}
    if touched:
        for row in conn.execute(_THREAD_EMAILS_JOINED if joined else _THREAD_EMAILS, {"touched": list(touched)}):
            nodes[row.id] = ThreadNode(row.id, parent_of.get(row.id, row.parent_id), row.date, row.message_id_hash)
            stored[row.id] = Place(row.parent_id, row.thread_id, row.thread_order, row.thread_depth)
            if joined:
                rows_by_thread_id[row.thread_key] = row.thread_id
                if row.parent_id is None:
                    root_subjects[row.id] = row.root_subject
    subjects = {}
    for email_id, email in new:
        nodes[email_id] = ThreadNode(email_id, parent_of.get(email_id), email.date, email.message_id_hash)
        subjects[email_id] = email.subject

    if not joined:  # the rows and subjects are looked up where they are needed
        return rearrange(conn, list_id, nodes, stored, subjects, touched)
    return rearrange(conn, list_id, nodes, stored, subjects, touched, root_subjects, rows_by_thread_id)


def rethread_list(conn: Connection, list_id: int) -> None:
    """Every thread of the list recomputed from the stored reply links (`in_reply_to` against the
    list's Message-IDs) and dates: after a re-import corrected rows derived under older rules."""
    rows = conn.execute(
        sa.select(
            emails.c.id,
            emails.c.message_id,
            emails.c.in_reply_to,
            emails.c.date,
            emails.c.message_id_hash,
            emails.c.parent_id,
            emails.c.thread_id,
            emails.c.thread_order,
            emails.c.thread_depth,
        ).where(emails.c.list_id == list_id)
    ).all()
    by_message_id = {row.message_id: row.id for row in rows}
    nodes = {
        row.id: ThreadNode(row.id, by_message_id.get(row.in_reply_to), row.date, row.message_id_hash) for row in rows
    }
    stored = {row.id: Place(row.parent_id, row.thread_id, row.thread_order, row.thread_depth) for row in rows}
    touched = set(conn.scalars(sa.select(threads.c.id).where(threads.c.list_id == list_id)))
    rearrange(conn, list_id, nodes, stored, {}, touched)


def rearrange(
    conn: Connection,
    list_id: int,
    nodes: dict[int, ThreadNode],
    stored: dict[int, Place],
    subjects: dict[int, str],
    touched: set[int],
    root_subjects: dict[int, str] | None = None,
    rows_by_thread_id: dict[str, int] | None = None,
) -> dict[int, Place]:
    """Arrange `nodes` into threads and write what changed: thread rows (inserted, updated, or
    deleted when merged away) and the threading columns of stored emails. `subjects` holds the
    new emails (not yet written), whose places are returned instead."""
    arranged = arrange_threads(nodes.values())
    row_of = _write_thread_rows(
        conn, list_id, arranged, nodes, stored, subjects, touched, root_subjects, rows_by_thread_id
    )
    places: dict[int, Place] = {}
    moved = []
    for thread in arranged:
        for placement in thread.emails:
            place = Place(placement.parent_id, row_of[thread.root.id], placement.order, placement.depth)
            if placement.id in subjects:
                places[placement.id] = place
            elif stored[placement.id] != place:
                moved.append(
                    {
                        "email_id": placement.id,
                        "new_parent_id": place.parent_id,
                        "new_thread_id": place.thread_id,
                        "new_order": place.order,
                        "new_depth": place.depth,
                    }
                )
    if moved:
        conn.execute(
            emails.update()
            .where(emails.c.id == sa.bindparam("email_id"))
            .values(
                parent_id=sa.bindparam("new_parent_id"),
                thread_id=sa.bindparam("new_thread_id"),
                thread_order=sa.bindparam("new_order"),
                thread_depth=sa.bindparam("new_depth"),
            ),
            moved,
        )
    for chunk in chunks(touched - set(row_of.values())):  # merged away
        conn.execute(threads.delete().where(threads.c.id.in_(chunk)))
    return places


def chunks(ids, size: int = 10_000):
    """`ids` in lists of at most `size`: rethread_list touches every thread of a list, more than
    SQLite takes as parameters of one statement (32,766)."""
    ids = list(ids)
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _write_thread_rows(
    conn: Connection,
    list_id: int,
    arranged: list[ArrangedThread],
    nodes: dict[int, ThreadNode],
    stored: dict[int, Place],
    subjects: dict[int, str],
    touched: set[int],
    root_subjects: dict[int, str] | None,
    rows_by_thread_id: dict[str, int] | None,
) -> dict[int, int]:
    """Insert or update the row of each arranged thread; returns root email id -> threads.id.
    `root_subjects` (stored roots' subjects) and `rows_by_thread_id` (the touched threads' rows by
    key), when the caller loaded them with the threads' emails, spare their look-ups.

    A thread's row is the one keyed by its root's hash; a thread whose first email was taken out
    of the archive (archive/removal/) keeps the row its new root sits in, keyed by the hash of
    an email no longer among them, as HyperKitty keeps a thread's id when its starting email is
    deleted: its address does not change, then or when a reply arrives later."""
    # The caller's dict tells new emails apart: add stored roots to a copy.
    subjects = {**(root_subjects or {}), **subjects}
    old_roots = [t.root.id for t in arranged if t.root.id not in subjects]  # a loop member made the root
    for chunk in chunks(old_roots):
        subjects.update(iter(conn.execute(sa.select(emails.c.id, emails.c.subject).where(emails.c.id.in_(chunk)))))
    if rows_by_thread_id is None:
        rows_by_thread_id = {}
        for chunk in chunks(touched):
            rows_by_thread_id.update(
                iter(conn.execute(sa.select(threads.c.thread_id, threads.c.id).where(threads.c.id.in_(chunk))))
            )

    def values(thread: ArrangedThread) -> dict:
        return {
            "starting_email_id": thread.root.id,
            "subject": subjects[thread.root.id],
            "date_active": nodes[thread.last_arrived_id].date,
            "emails_count": len(thread.emails),
        }

    present = {node.message_id_hash for node in nodes.values()}
    orphaned = {row_id for key, row_id in rows_by_thread_id.items() if key not in present}
    row_of, created, updated = {}, [], []
    for thread in arranged:
        row_id = rows_by_thread_id.get(thread.root.message_id_hash)
        if row_id is None and thread.root.id in stored and stored[thread.root.id].thread_id in orphaned:
            row_id = stored[thread.root.id].thread_id
            orphaned.discard(row_id)
        if row_id is None:
            created.append(thread)
        else:
            row_of[thread.root.id] = row_id
            updated.append({f"new_{key}": value for key, value in values(thread).items()} | {"row_id": row_id})
    for thread, row_id in zip(created, allocate_ids(conn, threads, len(created)), strict=True):
        row_of[thread.root.id] = row_id
    if created:
        conn.execute(
            threads.insert(),
            [
                {
                    "id": row_of[thread.root.id],
                    "list_id": list_id,
                    "thread_id": thread.root.message_id_hash,
                    **values(thread),
                }
                for thread in created
            ],
        )
    if updated:
        conn.execute(
            threads.update()
            .where(threads.c.id == sa.bindparam("row_id"))
            .values(
                starting_email_id=sa.bindparam("new_starting_email_id"),
                subject=sa.bindparam("new_subject"),
                date_active=sa.bindparam("new_date_active"),
                emails_count=sa.bindparam("new_emails_count"),
            ),
            updated,
        )
    return row_of
