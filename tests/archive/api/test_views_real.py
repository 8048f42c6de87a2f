"""The read API on real mail imported by the importer: payloads checked field by field against
values computed here from the raw mbox with the standard library and the rules of archive-api.md."""

from __future__ import annotations

import base64
import email.header
import email.utils
import gzip
import hashlib
import mailbox
import re
import shutil
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sathub.archive.importing.importer import import_archive
from tests.conftest import SHARED_DATA

MAIL_DIR = SHARED_DATA / "mail"
GPP = "3gpp_tsg_sa_wg4_evs@list.etsi.org"
PYC = "python-committers@python.org"
BASE = "http://sathub.test/archive/api/"


def raw_messages(list_name: str, tmp_path: Path) -> list[mailbox.mboxMessage]:
    plain = tmp_path / f"{list_name}.mbox"
    with gzip.open(MAIL_DIR / f"{list_name}.mbox.gz") as source, open(plain, "wb") as target:
        shutil.copyfileobj(source, target)
    return list(mailbox.mbox(plain))


def clean_id(value: str) -> str:
    value = "".join(value.split())
    if "<" in value:
        value = value.split("<", 1)[1].split(">", 1)[0]
    return value[:254]


def id_hash(message_id: str) -> str:
    return base64.b32encode(hashlib.sha1(message_id.encode()).digest()).decode()


def parent_id(message) -> str | None:
    in_reply_to = "".join((message["In-Reply-To"] or "").split())
    if "<" in in_reply_to and ">" in in_reply_to.split("<", 1)[1]:
        return clean_id(in_reply_to)
    references = (message["References"] or "").split()
    return clean_id(references[-1]) if references else None


def decoded(value: str) -> str:
    """RFC 2047 decoded, folding unwrapped (the line break goes, the indentation stays)."""
    unfolded = re.sub(r"\r?\n(?=[ \t])", "", value)
    return str(email.header.make_header(email.header.decode_header(unfolded)))


def utc(value: str) -> str:
    return email.utils.parsedate_to_datetime(value).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sender_of(message) -> tuple[str, str]:
    """(address lowercased, sender_name) from From:, pipermail's `x at y` undone."""
    name, address = email.utils.parseaddr(decoded(message["From"]).replace(" at ", "@"))
    return address.lower(), name or address


class Archive:
    """The messages of one list by Message-ID (first copy wins), in arrival order."""

    def __init__(self, messages) -> None:
        self.by_id: dict[str, mailbox.mboxMessage] = {}
        for message in messages:
            if message["Message-ID"]:
                self.by_id.setdefault(clean_id(message["Message-ID"]), message)
        self.arrival = {message_id: n for n, message_id in enumerate(self.by_id)}
        self.parent = {mid: p for mid in self.by_id if (p := parent_id(self.by_id[mid])) in self.by_id}

    def children(self, message_id: str) -> list[str]:
        kids = [mid for mid, parent in self.parent.items() if parent == message_id]
        return sorted(kids, key=lambda mid: (utc(self.by_id[mid]["Date"]), self.arrival[mid]))

    def thread_order(self, root: str) -> list[str]:
        order = [root]
        for child in self.children(root):
            order += self.thread_order(child)
        return order

    def email_object(self, list_name: str, message_id: str, root: str) -> dict:
        message = self.by_id[message_id]
        address, name = sender_of(message)
        mailman_id = uuid.uuid5(uuid.NAMESPACE_URL, "mailto:" + address).hex
        link = f"{BASE}list/{list_name}/email/"
        parent = self.parent.get(message_id)
        return {
            "url": f"{link}{id_hash(message_id)}/",
            "mailinglist": f"{BASE}list/{list_name}/",
            "message_id": message_id,
            "message_id_hash": id_hash(message_id),
            "thread": f"{BASE}list/{list_name}/thread/{id_hash(root)}/",
            "sender": {"address": address.replace("@", " (a) "), "mailman_id": mailman_id,
                       "emails": f"{BASE}sender/{mailman_id}/emails/"},
            "sender_name": name,
            "subject": decoded(message["Subject"]),
            "date": utc(message["Date"]),
            "parent": f"{link}{id_hash(parent)}/" if parent else None,
            "children": [f"{link}{id_hash(child)}/" for child in self.children(message_id)],
        }


@pytest.fixture
def gpp(engine, tmp_path):
    import_archive(engine, GPP, [MAIL_DIR / f"{GPP}.mbox.gz"])
    return Archive(raw_messages(GPP, tmp_path))


def test_real_thread_emails_field_by_field(client, gpp):
    # "Draft EVS-8a": Milan's question and six replies, stored newest first in the file.
    root = "a6172d5f-a7d4-c50c-19bc-de0a42997d58@USherbrooke.ca"
    assert id_hash(root) == "B5UXMR4VR3S3OLY4STTVRJU7YC6YQGCC"
    order = gpp.thread_order(root)
    assert len(order) == 7
    response = client.get(f"/archive/api/list/{GPP}/thread/{id_hash(root)}/emails/")
    assert response.status_code == 200
    body = response.json()
    for got, message_id in zip(body, order, strict=True):
        expected = gpp.email_object(GPP, message_id, root)
        assert list(got) == list(expected)
        for key in expected:
            assert got[key] == expected[key], (message_id, key)
    assert "Tomas Toftgård".encode() in response.content  # UTF-8, not \\u escapes


def test_real_thread_detail(client, gpp):
    root = "a6172d5f-a7d4-c50c-19bc-de0a42997d58@USherbrooke.ca"
    members = gpp.thread_order(root)
    body = client.get(f"/archive/api/list/{GPP}/thread/{id_hash(root)}/").json()
    last_arrived = max(members, key=gpp.arrival.get)
    pairs = []
    for message_id in sorted(members, key=gpp.arrival.get):
        address, name = sender_of(gpp.by_id[message_id])
        pair = {"name": name.replace("@", " (a) "), "email": address.replace("@", " (a) ")}
        if pair not in pairs:
            pairs.append(pair)
    assert body["thread_id"] == id_hash(root)
    assert body["subject"] == "'Draft EVS-8a'"
    assert body["date_active"] == utc(gpp.by_id[last_arrived]["Date"])
    assert body["starting_email"] == f"{BASE}list/{GPP}/email/{id_hash(root)}/"
    assert body["replies_count"] == 6
    assert body["participants"] == pairs and body["participants_count"] == 3


def test_real_list_emails_and_threads_cover_the_archive(client, gpp):
    emails = client.get(f"/archive/api/list/{GPP}/emails/").json()
    assert sorted(e["message_id_hash"] for e in emails) == sorted(id_hash(mid) for mid in gpp.by_id)
    dates = [e["date"] for e in emails]
    assert dates == sorted(dates, reverse=True)  # archived date is the Date header in this file
    threads = client.get(f"/archive/api/list/{GPP}/threads/").json()
    roots = [mid for mid in gpp.by_id if mid not in gpp.parent]
    assert sorted(t["thread_id"] for t in threads) == sorted(id_hash(mid) for mid in roots)
    assert sum(t["replies_count"] + 1 for t in threads) == len(gpp.by_id)
    page = client.get(f"/archive/api/list/{GPP}/threads/?limit=5&offset=5").json()
    assert page["count"] == len(threads) and page["results"] == threads[5:10]


def test_real_email_detail_content(client, gpp):
    message_id = "HE1PR0702MB36431C99F09F56144B855CF3FAC79@HE1PR0702MB3643.eurprd07.prod.outlook.com"
    body = client.get(f"/archive/api/list/{GPP}/email/{id_hash(message_id)}/").json()
    message = gpp.by_id[message_id]
    assert body["content"] == message.get_payload(decode=True).decode("utf-8")
    assert body["attachments"] == [] and body["sender_name"] == "Tomas Toftgård"


def test_python_committers_transfer_of_power(client, engine, tmp_path):
    import_archive(engine, PYC, [MAIL_DIR / f"{PYC}.mbox.gz"])
    archive = Archive(raw_messages(PYC, tmp_path))
    root = "CAP7+vJ+oK5q8a3kxizcbgUrrhwhOBbDj9VhSSNwZ0XgiOuBztQ@mail.gmail.com"
    order = archive.thread_order(root)
    assert len(order) > 100

    body = client.get(f"/archive/api/list/{PYC}/thread/{id_hash(root)}/emails/").json()
    assert [e["message_id"] for e in body] == order
    for got, message_id in zip(body, order):
        assert got == archive.email_object(PYC, message_id, root), message_id
    # Victor (17:55:25) is dated before Christian (17:55:41), who arrived first: date order wins.
    first_replies = [e["sender_name"] for e in body[1:] if e["parent"] == body[0]["url"]][:2]
    assert first_replies == ["Victor Stinner", "Christian Heimes"]

    detail = client.get(f"/archive/api/list/{PYC}/thread/{id_hash(root)}/").json()
    assert detail["subject"] == "[python-committers] Transfer of power"
    assert detail["replies_count"] == len(order) - 1
    assert detail["date_active"] == utc(archive.by_id[max(order, key=archive.arrival.get)]["Date"])

    guido = [mid for mid, message in archive.by_id.items() if sender_of(message)[0] == "guido@python.org"]
    page = client.get("/archive/api/sender/guido@python.org/emails/?limit=20&offset=0").json()
    assert page["count"] == len(guido)
    everything = client.get(f"/archive/api/sender/{uuid.uuid5(uuid.NAMESPACE_URL, 'mailto:guido@python.org').hex}"
                            "/emails/").json()
    assert page["results"] == everything[:20]
    assert sorted(e["message_id"] for e in everything) == sorted(guido)
    dates = [e["date"] for e in everything]
    assert dates == sorted(dates, reverse=True)
    assert datetime.strptime(everything[0]["date"], "%Y-%m-%dT%H:%M:%SZ") > datetime(2018, 1, 1)
