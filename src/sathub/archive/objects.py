"""The JSON objects of the archive API, built from store rows, keys in the contract's order."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.engine import Row

from sathub.archive.links import Links

# Votes are a web-UI feature; an imported archive has none.
NO_VOTES = {"likes": 0, "dislikes": 0, "status": "neutral"}


def api_date(value: datetime) -> str:
    """`YYYY-MM-DDTHH:MM:SSZ`: stored dates are naive UTC; never microseconds."""
    return value.isoformat(timespec="seconds") + "Z"


def obfuscate(address: str) -> str:
    return address.replace("@", " (a) ")


def mailing_list(row: Row, links: Links) -> dict:
    name = row.name
    return {
        "url": links.mailing_list(name),
        "name": name,
        "display_name": row.display_name,
        "description": row.description,
        "subject_prefix": row.subject_prefix,
        "archive_policy": row.archive_policy,
        "created_at": api_date(row.created_at),
        "threads": links.threads(name),
        "emails": links.list_emails(name),
    }


def email(row: Row, list_name: str, sender_address: str, mailman_id: str,
          children: list[str], links: Links) -> dict:
    """The short Email object (11 keys)."""
    message_id_hash = row.message_id_hash
    parent_hash = row.parent_hash
    return {
        "url": links.email(list_name, message_id_hash),
        "mailinglist": links.mailing_list(list_name),
        "message_id": row.message_id,
        "message_id_hash": message_id_hash,
        "thread": links.thread(list_name, row.thread_hash),
        "sender": {
            "address": obfuscate(sender_address),
            "mailman_id": mailman_id,
            "emails": links.sender_emails(mailman_id),
        },
        "sender_name": row.sender_name,
        "subject": row.subject,
        "date": api_date(row.date),
        "parent": links.email(list_name, parent_hash) if parent_hash else None,
        "children": [links.email(list_name, child) for child in children],
    }


def emails_of_list(rows: list[Row], list_name: str, children: dict[int, list[str]], links: Links) -> list[dict]:
    """Email objects of rows that carry their sender (thread and list emails)."""
    return [email(row, list_name, row.sender_address, row.mailman_id, children.get(row.id, []), links)
            for row in rows]


def emails_of_sender(rows: list[Row], sender: Row, children: dict[int, list[str]], links: Links) -> list[dict]:
    """Email objects of one sender's rows, which carry their list's name."""
    return [email(row, row.list_name, sender.address, sender.mailman_id, children.get(row.id, []), links)
            for row in rows]


def email_detail(row: Row, list_name: str, children: list[str], attachment_rows: list[Row],
                 links: Links) -> dict:
    body = email(row, list_name, row.sender_address, row.mailman_id, children, links)
    body["votes"] = NO_VOTES
    body["content"] = row.content
    own_link = body["url"]
    body["attachments"] = [
        {
            "email": own_link,
            "counter": a.counter,
            "name": a.name,
            "content_type": a.content_type,
            "encoding": a.encoding,
            "size": a.size,
            "download": links.download(list_name, row.message_id_hash, a.counter, a.name),
        }
        for a in attachment_rows
    ]
    return body


def thread(row: Row, list_name: str, neighbours: tuple[str | None, str | None], links: Links) -> dict:
    """The short Thread object (11 keys); `neighbours` are the next (newer) and previous thread ids."""
    thread_id = row.thread_id
    newer, older = neighbours
    return {
        "url": links.thread(list_name, thread_id),
        "mailinglist": links.mailing_list(list_name),
        "thread_id": thread_id,
        "subject": row.subject,
        "date_active": api_date(row.date_active),
        # The root's hash is the thread id (sathub re-threads orphans under their root).
        "starting_email": links.email(list_name, thread_id),
        "emails": links.thread_emails(list_name, thread_id),
        "votes_total": 0,
        "replies_count": row.emails_count - 1,
        "next_thread": links.thread(list_name, newer) if newer else None,
        "prev_thread": links.thread(list_name, older) if older else None,
    }


def thread_detail(row: Row, list_name: str, neighbours: tuple[str | None, str | None],
                  participant_rows: list[Row], links: Links) -> dict:
    body = thread(row, list_name, neighbours, links)
    body["votes"] = NO_VOTES
    body["participants"] = [{"name": obfuscate(p.sender_name), "email": obfuscate(p.address)}
                            for p in participant_rows]
    body["participants_count"] = len(participant_rows)
    return body


def page_neighbours(rows: list[Row], around: dict[str, str]) -> list[tuple[str | None, str | None]]:
    """(next, previous) thread ids of each thread of a newest-first run of threads.

    Inside the run, the neighbour of a thread is the first thread (smallest id) of the adjacent
    `date_active` group; the groups at the run's edges may continue outside it, which `around`
    (store.thread_neighbours for the run's newest and oldest dates) covers."""
    firsts: list[str] = []  # first thread id of each date group, newest group first
    group_of: list[int] = []
    previous_date = None
    for row in rows:
        if row.date_active != previous_date:
            firsts.append(row.thread_id)
            previous_date = row.date_active
        group_of.append(len(firsts) - 1)
    # The newest group may have started before the run; its true first is `newest_first`.
    if firsts:
        firsts[0] = around.get("newest_first", firsts[0])
    last_group = len(firsts) - 1
    return [
        (around.get("newer") if g == 0 else firsts[g - 1],
         around.get("older") if g == last_group else firsts[g + 1])
        for g in group_of
    ]
