"""Interface B: the HyperKitty-compatible archive read API (spec/archive-api.md, archive-more.md).

Each view parses its path, asks the store for rows and builds the objects; endpoint.py gives all
of them the common behaviour; routes.py serves each under the three prefixes real deployments use."""

from __future__ import annotations

from collections.abc import Sequence

from sathub.archive.access import HASH, LIST_ADDRESS, MAILMAN_ID, visible_list
from sathub.archive.api import objects
from sathub.archive.api.endpoint import Call, View
from sathub.archive.edge import ArchiveError
from sathub.archive.store import attachments, emails, lists, threads
from sathub.db.engines import Row


def list_address(call: Call) -> str:
    address = call.params["address"]
    if not LIST_ADDRESS.fullmatch(address):
        raise ArchiveError(404)
    return address


def get_index(call: Call) -> dict:
    links, api = call.links, call.links.api
    return {
        "lists": links.lists(),
        "tags": links.tags(),
        "list": f"{api}list/{{list_address}}/",
        "threads": f"{api}list/{{list_address}}/threads/",
        "thread": f"{api}list/{{list_address}}/thread/{{thread_id}}/",
        "thread_emails": f"{api}list/{{list_address}}/thread/{{thread_id}}/emails/",
        "emails": f"{api}list/{{list_address}}/emails/",
        "email": f"{api}list/{{list_address}}/email/{{message_id_hash}}/",
        "sender_emails": f"{api}sender/{{mailman_id_or_address}}/emails/",
        "search": f"{api}search/?q={{query}}",
    }


def get_lists(call: Call):
    with call.connect() as conn:
        rows = lists.public_lists(conn, call.page)
        count = lists.count_public_lists(conn) if call.page else None
    return call.listing([objects.mailing_list(row, call.links) for row in rows], count, call.links.lists())


def get_list(call: Call) -> dict:
    address = list_address(call)
    with call.connect() as conn:
        mailing_list = visible_list(conn, address, "No MailingList matches the given query.")
    return objects.mailing_list(mailing_list, call.links)


def get_threads(call: Call):
    address = list_address(call)
    with call.connect() as conn:
        mailing_list = visible_list(conn, address)
        rows = threads.list_threads(conn, mailing_list.id, call.page)
        count = threads.count_threads(conn, mailing_list.id) if call.page else None
        around = (
            threads.thread_neighbours(conn, mailing_list.id, rows[0].date_active, rows[-1].date_active) if rows else {}
        )
    name = mailing_list.name
    results = [
        objects.thread(row, name, neighbours, call.links)
        for row, neighbours in zip(rows, objects.page_neighbours(rows, around), strict=True)
    ]
    return call.listing(results, count, call.links.of_list(name).threads)


def get_thread(call: Call) -> dict:
    address = list_address(call)
    unknown = "No Thread matches the given query."
    with call.connect() as conn:
        mailing_list = visible_list(conn, address, unknown)
        thread_id = call.params["thread_id"]
        thread = threads.find_thread(conn, mailing_list.id, thread_id) if HASH.fullmatch(thread_id) else None
        if thread is None:
            raise ArchiveError(404, unknown)
        around = threads.thread_neighbours(conn, mailing_list.id, thread.date_active, thread.date_active)
        people = threads.participants(conn, thread.id)
    [neighbours] = objects.page_neighbours([thread], around)
    return objects.thread_detail(thread, mailing_list.name, neighbours, people, call.links)


def get_thread_emails(call: Call):
    address, thread_id = list_address(call), call.params["thread_id"]
    with call.connect() as conn:
        mailing_list = visible_list(conn, address)
        if not HASH.fullmatch(thread_id):
            raise ArchiveError(404)
        # An unknown thread of a known list has no rows: an empty answer, as in HyperKitty.
        rows = emails.thread_emails(conn, mailing_list, thread_id, call.page)
        children = emails.thread_children(conn, mailing_list, thread_id, rows)
        count = emails.count_thread_emails(conn, mailing_list.id, thread_id) if call.page else None
    return call.listing(
        objects.emails(rows, children, call.links), count, call.links.thread_emails(mailing_list.name, thread_id)
    )


def get_list_emails(call: Call):
    address = list_address(call)
    with call.connect() as conn:
        mailing_list = visible_list(conn, address)
        rows = emails.list_emails(conn, mailing_list, call.page)
        children = emails.list_children(conn, mailing_list.id, rows)
        count = emails.count_list_emails(conn, mailing_list.id) if call.page else None
    return call.listing(objects.emails(rows, children, call.links), count, call.links.of_list(mailing_list.name).emails)


def get_email(call: Call) -> dict:
    address = list_address(call)
    unknown = "No Email matches the given query."
    with call.connect() as conn:
        mailing_list = visible_list(conn, address, unknown)
        message_id_hash = call.params["message_id_hash"]
        row = emails.find_email(conn, mailing_list, message_id_hash) if HASH.fullmatch(message_id_hash) else None
        if row is None:
            raise ArchiveError(404, unknown)
        children = emails.email_children(conn, row.id)
        attachment_rows = attachments.email_attachments(conn, row.id)
    return objects.email_detail(row, children, attachment_rows, call.links)


def get_sender_emails(call: Call):
    key = call.params["sender_key"]
    if "\x00" in key or ("@" not in key and not MAILMAN_ID.fullmatch(key)):
        raise ArchiveError(404)
    with call.connect() as conn:
        sender = emails.find_sender(conn, key)
        rows: Sequence[Row] = []
        children: dict = {}
        count: int | None = 0
        if sender is not None:
            rows = emails.sender_emails(conn, sender, call.page)
            children = emails.sender_children(conn, sender.id, rows)
            count = emails.count_sender_emails(conn, sender) if call.page else None
    return call.listing(objects.emails(rows, children, call.links), count, call.links.sender_emails(key.lower()))


def get_tags(call: Call) -> list:
    # Tags are labels set by web-UI users; an archive built by import has none. Not paginated.
    return []


VIEWS = {
    "": View("Archive API", "Links to the endpoints of the archive read API", get_index),
    "lists/": View("Mailing List List", "List mailing-lists", get_lists),
    "list/{address}/": View("Mailing List Detail", "Show a mailing-list", get_list),
    "list/{address}/threads/": View("Thread List", "List threads", get_threads),
    "list/{address}/thread/{thread_id}/": View("Thread Detail", "Show a thread", get_thread),
    "list/{address}/thread/{thread_id}/emails/": View("Email List", "List emails", get_thread_emails),
    "list/{address}/emails/": View("Email List", "List emails", get_list_emails),
    # HyperKitty takes everything up to the last `/` as the hash (`email/<hash>/extra/` is unknown).
    "list/{address}/email/{message_id_hash:path}/": View("Email Detail", "Show an email", get_email),
    "sender/{sender_key}/emails/": View("Email List By Sender", "List emails by sender", get_sender_emails),
    "tags/": View("Tag List", "List tags", get_tags),
}
