"""The JSON objects of the archive API, built from store rows, keys in the contract's order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from sathub.archive.links import Links
from sathub.archive.mail.senders import obfuscate, shown_sender
from sathub.db.engines import Row

# Votes are a web-UI feature; an imported archive has none.
NO_VOTES = {"likes": 0, "dislikes": 0, "status": "neutral"}


def api_date(value: datetime) -> str:
    """`YYYY-MM-DDTHH:MM:SSZ`: stored dates are naive UTC; never microseconds."""
    return value.isoformat(timespec="seconds") + "Z"


def mailing_list(row: Row, links: Links) -> dict:
    name = row.name
    list_links = links.of_list(name)
    return {
        "url": list_links.list,
        "name": name,
        "display_name": row.display_name,
        "description": row.description,
        "subject_prefix": row.subject_prefix,
        "archive_policy": row.archive_policy,
        "created_at": api_date(row.created_at),
        "threads": list_links.threads,
        "emails": list_links.emails,
    }


def sender(address: str, mailman_id: str, links: Links) -> dict:
    return {"address": obfuscate(address), "mailman_id": mailman_id, "emails": links.sender_emails(mailman_id)}


def emails(rows: Sequence[Row], children: Mapping[int, Sequence[str]], links: Links) -> list[dict]:
    """Short Email objects (11 keys) of rows shaped as store.emails.EMAIL_ROW.

    The hot loop of every email answer: rows are unpacked by position, links are prefixes, and
    a sender's object is built once per spelling and shared by the emails that spell it so."""
    senders: dict[tuple[str, str], dict] = {}
    result = []
    for (
        email_id,
        message_id,
        message_id_hash,
        sender_name,
        subject,
        date,
        sender_address,
        mailman_id,
        list_name,
        thread_hash,
        parent_hash,
        *_,
    ) in rows:
        list_links = links.of_list(list_name)
        prefix, end = list_links.email, list_links.end
        sender_object = senders.get((sender_address, mailman_id))
        if sender_object is None:
            sender_object = senders[sender_address, mailman_id] = sender(sender_address, mailman_id, links)
        replies = children.get(email_id)
        result.append(
            {
                "url": f"{prefix}{message_id_hash}{end}",
                "mailinglist": list_links.list,
                "message_id": message_id,
                "message_id_hash": message_id_hash,
                "thread": f"{list_links.thread}{thread_hash}{end}",
                "sender": sender_object,
                "sender_name": sender_name,
                "subject": subject,
                "date": api_date(date),
                "parent": f"{prefix}{parent_hash}{end}" if parent_hash else None,
                "children": [f"{prefix}{child}{end}" for child in replies] if replies else [],
            }
        )
    return result


def email_detail(row: Row, children: Sequence[str], attachment_rows: Sequence[Row], links: Links) -> dict:
    [body] = emails([row], {row.id: children}, links)
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
            "download": links.download(row.list_name, row.message_id_hash, a.counter, a.name),
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
        "mailinglist": links.of_list(list_name).list,
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


def thread_detail(
    row: Row, list_name: str, neighbours: tuple[str | None, str | None], participant_rows: Sequence[Row], links: Links
) -> dict:
    body = thread(row, list_name, neighbours, links)
    body["votes"] = NO_VOTES
    body["participants"] = [
        {"name": shown_sender(p.sender_name), "email": obfuscate(p.address)} for p in participant_rows
    ]
    body["participants_count"] = len(participant_rows)
    return body


def page_neighbours(rows: Sequence[Row], around: dict[str, str]) -> list[tuple[str | None, str | None]]:
    """(next, previous) thread ids of each thread of a newest-first run of threads.

    Inside the run, the neighbour of a thread is the first thread (smallest id) of the adjacent
    `date_active` group; the groups at the run's edges may continue outside it, which `around`
    (store.threads.thread_neighbours for the run's newest and oldest dates) covers."""
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
        (around.get("newer") if g == 0 else firsts[g - 1], around.get("older") if g == last_group else firsts[g + 1])
        for g in group_of
    ]
