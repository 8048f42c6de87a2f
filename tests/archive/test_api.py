"""The archive read API's payloads, byte for byte, on the hand-built archive of api_fixtures."""

from __future__ import annotations

import json

import pytest

from tests.archive.api_fixtures import (
    ATTACHMENTS, MAIL, api, email_link, mailman_id, seed_archive, thread_link,
)

DEV = "dev@example.org"


def compact(value) -> bytes:
    """The exact body expected: compact separators, UTF-8, keys in the given order."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.fixture
def archive(engine):
    return seed_archive(engine)


def sender(address: str, prefix: str = "/archive/api/", suffix: str = "") -> dict:
    return {"address": address.replace("@", " (a) "), "mailman_id": mailman_id(address),
            "emails": api(f"sender/{mailman_id(address)}/emails/{suffix}", prefix)}


def email_object(key: str, children: list[str] = (), root: str | None = None, prefix: str = "/archive/api/",
                 suffix: str = "") -> dict:
    mail = MAIL[key]
    return {
        "url": email_link(key, suffix, prefix),
        "mailinglist": api(f"list/{mail.list_name}/{suffix}", prefix),
        "message_id": mail.message_id,
        "message_id_hash": mail.hash,
        "thread": thread_link(root or key, suffix, prefix),
        "sender": sender(mail.sender, prefix, suffix),
        "sender_name": mail.sender_name,
        "subject": mail.subject,
        "date": mail.date.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "parent": email_link(mail.parent, suffix, prefix) if mail.parent else None,
        "children": [email_link(child, suffix, prefix) for child in children],
    }


def list_object(name: str, policy: str = "public") -> dict:
    return {
        "url": api(f"list/{name}/"), "name": name, "display_name": "", "description": None,
        "subject_prefix": "", "archive_policy": policy, "created_at": "2020-06-01T12:00:00Z",
        "threads": api(f"list/{name}/threads/"), "emails": api(f"list/{name}/emails/"),
    }


def thread_object(root: str, replies: int, date_active: str, newer: str | None, older: str | None) -> dict:
    mail = MAIL[root]
    return {
        "url": thread_link(root),
        "mailinglist": api(f"list/{mail.list_name}/"),
        "thread_id": mail.hash,
        "subject": mail.subject,
        "date_active": date_active,
        "starting_email": email_link(root),
        "emails": thread_link(root, "emails/"),
        "votes_total": 0,
        "replies_count": replies,
        "next_thread": thread_link(newer) if newer else None,
        "prev_thread": thread_link(older) if older else None,
    }


# Thread order A, C, B, D: C (01-01 12:00) is dated before B (01-02) though it arrived later.
WELCOME = [email_object("A", ["C", "B"], "A"), email_object("C", [], "A"),
           email_object("B", ["D"], "A"), email_object("D", [], "A")]


def test_thread_emails_in_thread_order_with_parents_and_children(client, archive):
    response = client.get(f"/archive/api/list/{DEV}/thread/{MAIL['A'].hash}/emails/")
    assert response.status_code == 200
    assert response.content == compact(WELCOME)


def test_non_ascii_is_written_as_utf8(client, archive):
    response = client.get(f"/archive/api/list/{DEV}/thread/{MAIL['A'].hash}/emails/")
    assert "Zoë Ünïcode".encode() in response.content and b"\\u" not in response.content


def test_single_email_thread_is_a_one_element_array(client, archive):
    response = client.get(f"/archive/api/list/{DEV}/thread/{MAIL['H'].hash}/emails/")
    assert response.content == compact([email_object("H")])


def test_sender_emails_newest_first_across_public_lists(client, archive):
    # Alice: A, D, F on dev and X (A cross-posted: same hash, same date, later arrival, so first)
    # on other; P on the private list is left out.
    expected = [email_object("F"), email_object("D", [], "A"), email_object("X"),
                email_object("A", ["C", "B"], "A")]
    response = client.get(f"/archive/api/sender/{mailman_id('alice@example.org')}/emails/")
    assert response.content == compact(expected)
    assert MAIL["X"].hash == MAIL["A"].hash


@pytest.mark.parametrize("key", ["alice@example.org", "ALICE@Example.ORG"])
def test_sender_key_may_be_an_address_in_any_case(client, archive, key):
    by_address = client.get(f"/archive/api/sender/{key}/emails/")
    by_id = client.get(f"/archive/api/sender/{mailman_id('alice@example.org')}/emails/")
    assert by_address.status_code == 200 and by_address.content == by_id.content


def test_unknown_sender_is_an_empty_array(client, archive):
    assert client.get("/archive/api/sender/0123456789abcdef0123456789abcdef/emails/").content == b"[]"
    assert client.get("/archive/api/sender/nobody@example.org/emails/").content == b"[]"


def test_list_emails_newest_archived_first(client, archive):
    expected = [email_object("H"), email_object("G"), email_object("F"), email_object("E"),
                email_object("D", [], "A"), email_object("B", ["D"], "A"), email_object("C", [], "A"),
                email_object("A", ["C", "B"], "A")]
    response = client.get(f"/archive/api/list/{DEV}/emails/")
    assert response.content == compact(expected)


def test_lists_are_the_public_ones_by_name(client, archive):
    expected = [list_object(DEV), list_object("other@example.org"), list_object("quiet@example.org", "never")]
    assert client.get("/archive/api/lists/").content == compact(expected)


def test_list_detail(client, archive):
    assert client.get(f"/archive/api/list/{DEV}/").content == compact(list_object(DEV))


def test_threads_most_recently_active_first_with_neighbours(client, archive):
    # date_active: H 04-01, F = G 03-01 (tie: F's hash sorts first), E 02-01, A 01-03.
    first_tie, second_tie = sorted(["F", "G"], key=lambda key: MAIL[key].hash)
    expected = [
        thread_object("H", 0, "2021-04-01T00:00:00Z", None, first_tie),
        thread_object(first_tie, 0, "2021-03-01T00:00:00Z", "H", "E"),
        thread_object(second_tie, 0, "2021-03-01T00:00:00Z", "H", "E"),
        thread_object("E", 0, "2021-02-01T00:00:00Z", first_tie, "A"),
        thread_object("A", 3, "2021-01-03T08:30:00Z", "E", None),
    ]
    response = client.get(f"/archive/api/list/{DEV}/threads/")
    assert response.content == compact(expected)


@pytest.mark.parametrize("limit", [1, 2, 3, 4])
def test_thread_pages_have_the_neighbours_of_the_whole_list(client, archive, limit):
    whole = client.get(f"/archive/api/list/{DEV}/threads/").json()
    pages = [client.get(f"/archive/api/list/{DEV}/threads/?limit={limit}&offset={offset}").json()["results"]
             for offset in range(0, len(whole), limit)]
    assert [thread for page in pages for thread in page] == whole


def test_thread_detail_with_participants(client, archive):
    expected = thread_object("A", 3, "2021-01-03T08:30:00Z", "E", None) | {
        "votes": {"likes": 0, "dislikes": 0, "status": "neutral"},
        # Distinct (address, name) pairs in arrival order A, B, C, D; names obfuscated too.
        "participants": [
            {"name": "Alice Liddell", "email": "alice (a) example.org"},
            {"name": "bob (a) example.net", "email": "bob (a) example.net"},
            {"name": "Zoë Ünïcode", "email": "zoe (a) example.com"},
        ],
        "participants_count": 3,
    }
    assert client.get(f"/archive/api/list/{DEV}/thread/{MAIL['A'].hash}/").content == compact(expected)


def test_thread_detail_skips_neighbours_with_the_same_date_active(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/thread/{MAIL['G'].hash}/").json()
    assert body["next_thread"] == thread_link("H") and body["prev_thread"] == thread_link("E")


def test_email_detail_with_content_and_attachments(client, archive):
    link = email_link("E")
    expected = email_object("E") | {
        "votes": {"likes": 0, "dislikes": 0, "status": "neutral"},
        "content": "See attached.\n",
        "attachments": [
            {"email": link, "counter": a["counter"], "name": a["name"], "content_type": a["content_type"],
             "encoding": a["encoding"], "size": len(a["content"]),
             "download": f"http://sathub.test/archive/list/{DEV}/message/{MAIL['E'].hash}"
                         f"/attachment/{a['counter']}/{a['name']}"}
            for a in ATTACHMENTS
        ],
    }
    assert client.get(f"/archive/api/list/{DEV}/email/{MAIL['E'].hash}/").content == compact(expected)


def test_email_detail_of_a_reply(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/email/{MAIL['B'].hash}/").json()
    assert body["parent"] == email_link("A") and body["children"] == [email_link("D")]
    assert body["thread"] == thread_link("A") and body["attachments"] == []
    assert list(body)[11:] == ["votes", "content", "attachments"]


def test_cross_posted_email_belongs_to_each_list(client, archive):
    other = client.get(f"/archive/api/list/other@example.org/email/{MAIL['X'].hash}/").json()
    assert other["mailinglist"] == api("list/other@example.org/") and other["children"] == []


def test_tags_are_always_empty(client, archive):
    assert client.get("/archive/api/tags/").content == b"[]"
    assert client.get("/archive/api/tags/?limit=1").content == b"[]"


def test_index_links_to_the_endpoints(client, archive):
    body = client.get("/archive/api/").json()
    assert body["lists"] == api("lists/") and body["tags"] == api("tags/")
    assert client.get(body["lists"]).status_code == 200


def test_attachment_download(client, archive):
    attachment = ATTACHMENTS[0]
    path = f"/archive/list/{DEV}/message/{MAIL['E'].hash}/attachment/2/report.html"
    response = client.get(path)
    assert response.status_code == 200 and response.content == attachment["content"]
    assert response.headers["content-type"] == "text/html; charset=gb2312"
    assert response.headers["content-length"] == str(len(attachment["content"]))
    assert response.headers["content-disposition"] == "attachment; filename*=UTF-8''report.html"
    assert "content-encoding" not in response.headers
    head = client.head(path)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(attachment["content"]))


def test_attachment_without_charset_has_a_bare_content_type(client, archive):
    response = client.get(f"/hyperkitty/list/{DEV}/message/{MAIL['E'].hash}/attachment/3/signature.asc")
    assert response.headers["content-type"] == "application/pgp-signature"
    assert response.content == ATTACHMENTS[1]["content"]


@pytest.mark.parametrize("tail", ["attachment/2/other.html", "attachment/9/report.html", "attachment/x/report.html"])
def test_attachment_download_needs_the_exact_counter_and_name(client, archive, tail):
    response = client.get(f"/archive/list/{DEV}/message/{MAIL['E'].hash}/{tail}")
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}


def test_attachment_download_links_resolve(client, archive):
    for attachment in client.get(f"/archives/api/list/{DEV}/email/{MAIL['E'].hash}/").json()["attachments"]:
        assert attachment["download"].startswith("http://sathub.test/archives/list/")
        assert client.get(attachment["download"]).status_code == 200


def test_every_link_of_every_answer_resolves(client, archive):
    """Follow every link from lists/: none answers an error, and every public email is reached."""
    seen, queue = set(), [api("lists/")]
    while queue:
        link = queue.pop()
        if link in seen:
            continue
        seen.add(link)
        response = client.get(link)
        assert response.status_code == 200, link
        if response.headers["content-type"] == "application/json":
            queue.extend(_links(response.json()))
    public = {email_link(key) for key, mail in MAIL.items() if mail.list_name != "private@example.org"}
    assert public <= seen and email_link("P") not in seen


def _links(value):
    if isinstance(value, str) and value.startswith("http://sathub.test/"):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _links(item)
    elif isinstance(value, list):
        for item in value:
            yield from _links(item)
