"""Threads when messages leave them and come back (store/removals.py).

Leaving, HyperKitty's rule (its Email.on_pre_delete, docs/archive-removal.md): the replies of a
removed message answer its parent instead; when it was the thread's first email, its earliest
reply becomes the first and the other replies answer that one; a thread left empty goes. The
thread keeps its row and its address (rethreading's `orphaned` rows).
Coming back, the import's rule: each email answers the one its In-Reply-To names when that one is
there, else keeps the parent it has, so the threads are again what they were before the hide."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.mail.thread_order import ThreadNode
from sathub.archive.store.rethreading import Place, chunks, rearrange
from sathub.archive.tables import emails, hidden_emails, threads

_THREAD_EMAILS = sa.select(
    emails.c.id,
    emails.c.list_id,
    emails.c.parent_id,
    emails.c.date,
    emails.c.message_id,
    emails.c.message_id_hash,
    emails.c.in_reply_to,
    emails.c.thread_id,
    emails.c.thread_order,
    emails.c.thread_depth,
)


@dataclass
class Gaps:
    """The threads of one list to rewrite, with what their emails will be."""

    nodes: dict[int, dict[int, ThreadNode]] = field(default_factory=lambda: defaultdict(dict))
    stored: dict[int, dict[int, Place]] = field(default_factory=lambda: defaultdict(dict))
    touched: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))

    def add(self, row: Row, parent_id: int | None) -> None:
        self.nodes[row.list_id][row.id] = ThreadNode(row.id, parent_id, row.date, row.message_id_hash)
        self.stored[row.list_id][row.id] = Place(row.parent_id, row.thread_id, row.thread_order, row.thread_depth)
        self.touched[row.list_id].add(row.thread_id)

    def write(self, conn: Connection) -> None:
        """Rewrite the planned threads (after the leaving emails' rows are gone, or the coming ones' are back)."""
        for list_id, touched in self.touched.items():
            rearrange(conn, list_id, self.nodes[list_id], self.stored[list_id], {}, touched)


def open_gaps(conn: Connection, chosen: list[Row]) -> Gaps:
    """What the threads of the chosen emails (still stored) become without them."""
    gone = {row.id for row in chosen}
    gaps = Gaps()
    rows = _emails_of(conn, {row.thread_id for row in chosen})
    by_thread: dict[int, list[Row]] = defaultdict(list)
    for row in rows:
        by_thread[row.thread_id].append(row)
    for thread_rows in by_thread.values():
        if all(row.id in gone for row in thread_rows):
            gaps.touched[thread_rows[0].list_id].add(thread_rows[0].thread_id)  # emptied: its row goes
            continue
        parent = _without({row.id: row.parent_id for row in thread_rows}, {row.id: row for row in thread_rows}, gone)
        for row in thread_rows:
            if row.id not in gone:
                gaps.add(row, parent[row.id])
    return gaps


def reopen(conn: Connection, hidden_ids: list[int]) -> Gaps:
    """What the threads become with these hidden emails back: the threads they were in, those of
    their parents, and those of replies that arrived meanwhile. Call before the rows move back,
    write after."""
    coming: list[Row] = []
    for chunk in chunks(hidden_ids):
        coming += conn.execute(
            sa.select(
                hidden_emails.c.id,
                hidden_emails.c.list_id,
                hidden_emails.c.date,
                hidden_emails.c.message_id,
                hidden_emails.c.message_id_hash,
                hidden_emails.c.in_reply_to,
                hidden_emails.c.thread_id,
                hidden_emails.c.thread_key,
            ).where(hidden_emails.c.id.in_(chunk))
        ).all()
    by_list: dict[int, list[Row]] = defaultdict(list)
    for row in coming:
        by_list[row.list_id].append(row)
    gaps = Gaps()
    for list_id, rows in by_list.items():
        related = _related(conn, list_id, rows)
        by_message_id = {row.message_id: row.id for row in related + rows}
        for row in related:
            gaps.add(row, by_message_id.get(row.in_reply_to, row.parent_id))
        existing = {row.thread_id for row in related} | _make_room(conn, list_id, rows)
        gaps.touched[list_id] |= existing
        for row in rows:
            # Its old thread row, when still there, is where it sits: a thread whose first email comes
            # back keeps its row.
            thread_row = row.thread_id if row.thread_id in existing else None
            gaps.nodes[list_id][row.id] = ThreadNode(
                row.id, by_message_id.get(row.in_reply_to), row.date, row.message_id_hash
            )
            gaps.stored[list_id][row.id] = Place(None, thread_row, -1, -1)  # type: ignore[arg-type]
    return gaps


def _make_room(conn: Connection, list_id: int, coming: list[Row]) -> set[int]:
    """Put back, empty, the rows of threads hidden whole, with their ids where still free (the
    rearranging fills or drops them); their ids."""
    wanted = {row.thread_id: row for row in coming if row.thread_id is not None and row.thread_key}
    taken: set[int] = set()
    for chunk in chunks(wanted):
        taken.update(conn.scalars(sa.select(threads.c.id).where(threads.c.id.in_(chunk))))
    keys: set[str] = set()
    for chunk in chunks({row.thread_key for row in wanted.values()}):
        same_key = sa.select(threads.c.thread_id).where(threads.c.list_id == list_id, threads.c.thread_id.in_(chunk))
        keys.update(conn.scalars(same_key))
    free = [row for thread_id, row in wanted.items() if thread_id not in taken and row.thread_key not in keys]
    placeholders = {row.thread_key: row for row in free}.values()  # one row per key
    if placeholders:
        conn.execute(
            threads.insert(),
            [
                {"id": row.thread_id, "list_id": list_id, "thread_id": row.thread_key, "date_active": row.date}
                for row in placeholders
            ],
        )
    return {row.thread_id for row in placeholders}


def _related(conn: Connection, list_id: int, coming: list[Row]) -> list[Row]:
    """The stored emails of the threads the coming emails touch."""
    message_ids = [row.message_id for row in coming]
    parents = [row.in_reply_to for row in coming if row.in_reply_to]
    own_threads = [row.thread_id for row in coming if row.thread_id is not None]
    thread_ids: set[int] = set()
    for chunk in chunks(message_ids):
        thread_ids.update(
            conn.scalars(
                sa.select(emails.c.thread_id).where(emails.c.list_id == list_id, emails.c.in_reply_to.in_(chunk))
            )
        )
    for chunk in chunks(parents):
        thread_ids.update(
            conn.scalars(
                sa.select(emails.c.thread_id).where(emails.c.list_id == list_id, emails.c.message_id.in_(chunk))
            )
        )
    for chunk in chunks(own_threads):
        thread_ids.update(
            conn.scalars(sa.select(threads.c.id).where(threads.c.list_id == list_id, threads.c.id.in_(chunk)))
        )
    return _emails_of(conn, thread_ids)


def _emails_of(conn: Connection, thread_ids: set[int]) -> list[Row]:
    rows: list[Row] = []
    for chunk in chunks(thread_ids):
        rows += conn.execute(_THREAD_EMAILS.where(emails.c.thread_id.in_(chunk))).all()
    return rows


def _without(parent: dict[int, int | None], rows: dict[int, Row], gone: set[int]) -> dict[int, int | None]:
    """Each remaining email's parent once the `gone` ones leave, one after the other, newest
    first, as HyperKitty's delete view deletes several."""
    parent = dict(parent)
    children: dict[int | None, list[int]] = defaultdict(list)
    for email_id, parent_id in parent.items():
        children[parent_id].append(email_id)
    for email_id in sorted(gone & parent.keys(), key=lambda i: (rows[i].date, i), reverse=True):
        replies = sorted(children.pop(email_id, []), key=lambda i: (rows[i].date, i))
        above = parent.pop(email_id)
        children[above].remove(email_id)
        if above is None and replies:
            first, *others = replies
            parent[first] = None
            children[None].append(first)
            for reply in others:
                parent[reply] = first
            children[first].extend(others)
        else:
            for reply in replies:
                parent[reply] = above
            children[above].extend(replies)
    return parent
