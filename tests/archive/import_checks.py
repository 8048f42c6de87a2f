"""Checks of imported archives shared by the importer tests: the thread invariants, recomputed
here from the stored reply links without the importer's code, and order-free snapshots."""

from __future__ import annotations

from collections import defaultdict

import sqlalchemy as sa

from sathub.archive.tables import emails, mailing_lists, threads


def list_id(conn, name: str) -> int:
    return conn.execute(sa.select(mailing_lists.c.id).where(mailing_lists.c.name == name)).scalar_one()


def check_threads(conn, name: str) -> int:
    """Assert every thread rule on list `name`; returns the number of emails checked."""
    lid = list_id(conn, name)
    rows = conn.execute(
        sa.select(
            emails.c.id,
            emails.c.message_id,
            emails.c.message_id_hash,
            emails.c.in_reply_to,
            emails.c.parent_id,
            emails.c.thread_id,
            emails.c.thread_order,
            emails.c.thread_depth,
            emails.c.date,
            emails.c.subject,
        ).where(emails.c.list_id == lid)
    ).all()
    by_id = {row.id: row for row in rows}
    by_message_id = {row.message_id: row for row in rows}
    members = defaultdict(list)
    for row in rows:
        assert row.thread_id is not None, row
        members[row.thread_id].append(row)
        if row.parent_id is not None:
            parent = by_id[row.parent_id]
            assert parent.message_id == row.in_reply_to and parent.thread_id == row.thread_id
        elif row.in_reply_to in by_message_id:
            # A root whose parent is archived: only a cut reply loop allows that.
            assert by_message_id[row.in_reply_to].thread_id == row.thread_id, row
    thread_rows = conn.execute(sa.select(threads).where(threads.c.list_id == lid)).all()
    assert sorted(t.id for t in thread_rows) == sorted(members)
    for thread in thread_rows:
        ordered = sorted(members[thread.id], key=lambda r: r.thread_order)
        root = ordered[0]
        assert root.parent_id is None and root.thread_depth == 0
        assert [r.parent_id for r in ordered].count(None) == 1
        assert (thread.thread_id, thread.starting_email_id, thread.subject, thread.emails_count) == (
            root.message_id_hash,
            root.id,
            root.subject,
            len(ordered),
        )
        assert thread.date_active == max(ordered, key=lambda r: r.id).date
        assert [(r.id, r.thread_depth) for r in ordered] == _pre_order(root, ordered)
    return len(rows)


def _pre_order(root, rows) -> list[tuple[int, int]]:
    children = defaultdict(list)
    for row in rows:
        children[row.parent_id].append(row)
    result = []

    def visit(row, depth):
        result.append((row.id, depth))
        for child in sorted(children[row.id], key=lambda r: (r.date, r.id)):
            visit(child, depth + 1)

    visit(root, 0)
    return result


def snapshot(conn, name: str) -> dict[str, tuple]:
    """Per email (by message_id_hash): its thread id, parent's hash and depth; plus per thread
    its starting email and size. Independent of arrival order (ids)."""
    lid = list_id(conn, name)
    parent = emails.alias("parent")
    query = (
        sa.select(
            emails.c.message_id_hash,
            threads.c.thread_id,
            parent.c.message_id_hash.label("parent"),
            emails.c.thread_depth,
            threads.c.emails_count,
        )
        .join(threads, threads.c.id == emails.c.thread_id)
        .outerjoin(parent, parent.c.id == emails.c.parent_id)
        .where(emails.c.list_id == lid)
    )
    return {row.message_id_hash: tuple(row[1:]) for row in conn.execute(query)}
