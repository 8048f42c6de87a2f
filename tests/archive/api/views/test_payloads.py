"""The archive read API's views (sathub.archive.api.views): payloads byte for byte, and the 404 and
403 answers, on the hand-built archive of api_fixtures."""

from __future__ import annotations

import json

import pytest

from sathub.archive.tables import mailing_lists
from tests.archive.api_fixtures import (
    ALICE,
    ATTACHMENTS,
    DEV,
    FORBIDDEN,
    MAIL,
    A,
    E,
    api,
    assert_api_headers,
    email_link,
    mailman_id,
    thread_link,
)


def compact(value) -> bytes:
    """The exact body expected: compact separators, UTF-8, keys in the given order."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def sender(address: str, prefix: str = "/archive/api/", suffix: str = "") -> dict:
    return {
        "address": address.replace("@", " (a) "),
        "mailman_id": mailman_id(address),
        "emails": api(f"sender/{mailman_id(address)}/emails/{suffix}", prefix),
    }


def email_object(
    key: str, children: list[str] = (), root: str | None = None, prefix: str = "/archive/api/", suffix: str = ""
) -> dict:
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
        "url": api(f"list/{name}/"),
        "name": name,
        "display_name": "",
        "description": None,
        "subject_prefix": "",
        "archive_policy": policy,
        "created_at": "2020-06-01T12:00:00Z",
        "threads": api(f"list/{name}/threads/"),
        "emails": api(f"list/{name}/emails/"),
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
WELCOME = [
    email_object("A", ["C", "B"], "A"),
    email_object("C", [], "A"),
    email_object("B", ["D"], "A"),
    email_object("D", [], "A"),
]


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
    expected = [email_object("F"), email_object("D", [], "A"), email_object("X"), email_object("A", ["C", "B"], "A")]
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
    expected = [
        email_object("H"),
        email_object("G"),
        email_object("F"),
        email_object("E"),
        email_object("D", [], "A"),
        email_object("B", ["D"], "A"),
        email_object("C", [], "A"),
        email_object("A", ["C", "B"], "A"),
    ]
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
    pages = [
        client.get(f"/archive/api/list/{DEV}/threads/?limit={limit}&offset={offset}").json()["results"]
        for offset in range(0, len(whole), limit)
    ]
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
            {
                "email": link,
                "counter": a["counter"],
                "name": a["name"],
                "content_type": a["content_type"],
                "encoding": a["encoding"],
                "size": len(a["content"]),
                "download": f"http://sathub.test/archive/list/{DEV}/message/{MAIL['E'].hash}"
                f"/attachment/{a['counter']}/{a['name']}",
            }
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


@pytest.mark.parametrize(
    "path, detail",
    [
        ("list/nolist@example.org/", "No MailingList matches the given query."),
        ("list/nolist@example.org/threads/", "Not found."),
        ("list/nolist@example.org/emails/", "Not found."),
        (f"list/nolist@example.org/thread/{A}/", "No Thread matches the given query."),
        (f"list/nolist@example.org/thread/{A}/emails/", "Not found."),
        (f"list/nolist@example.org/email/{A}/", "No Email matches the given query."),
        (f"list/{DEV}/thread/{'B' * 32}/", "No Thread matches the given query."),
        (f"list/{DEV}/thread/{A.lower()}/", "No Thread matches the given query."),
        (f"list/{DEV}/thread/{MAIL['C'].hash}/", "No Thread matches the given query."),  # a reply, not a thread
        (f"list/other@example.org/email/{E}/", "No Email matches the given query."),  # another list's email
        (f"list/{DEV}/email/{E}/extra/", "No Email matches the given query."),
        (f"list/{DEV}/email/{E.lower()}/", "No Email matches the given query."),
        (f"list/{DEV}/email//", "No Email matches the given query."),
        (f"list/{DEV}/thread/{A.lower()}/emails/", "Not found."),  # malformed: we differ, 404
        (f"list/{DEV}/thread/SHORT/emails/", "Not found."),
        ("sender/not-an-id/emails/", "Not found."),
        (f"sender/{ALICE.upper()}/emails/", "Not found."),
        ("list/no-at-sign/", "Not found."),
        ("list/two@at@signs/emails/", "Not found."),
        # A NUL byte in any segment (PostgreSQL refused it with a 500)
        ("list/a@b%00c/", "Not found."),
        ("list/dev%00@example.org/threads/", "Not found."),
        (f"list/{DEV}%00/emails/", "Not found."),
        (f"list/{DEV}/thread/{A}%00/", "No Thread matches the given query."),
        (f"list/{DEV}/thread/{A[:-1]}%00/emails/", "Not found."),
        (f"list/{DEV}/email/{E}%00/", "No Email matches the given query."),
        ("sender/alice%00@example.org/emails/", "Not found."),
        (f"sender/{ALICE[:-1]}%00/emails/", "Not found."),
        ("no/such/endpoint/", "Not found."),
        # issue 23's list addresses, which Mailman's door now refuses: the route keeps HyperKitty's rule
        ("list/a%20b@c.org/emails/", "Not found."),
        ("list/a@b%0D%0Ax:%20y/threads/", "Not found."),
        ("list/..@../emails/", "Not found."),
        ("list/" + "l" * 300 + "@example.org/", "No MailingList matches the given query."),
        ("list/" + "l" * 300 + "@example.org/emails/?limit=1", "Not found."),
    ],
)
def test_not_found(client, archive, path, detail):
    response = client.get("/archive/api/" + path)
    assert response.status_code == 404 and response.text == f'{{"detail":"{detail}"}}'
    assert_api_headers(response)


@pytest.mark.parametrize(
    "path",
    [
        "list/private@example.org/",
        "list/private@example.org/threads/",
        "list/private@example.org/emails/",
        f"list/private@example.org/thread/{MAIL['P'].hash}/",
        f"list/private@example.org/thread/{MAIL['P'].hash}/emails/",
        f"list/private@example.org/email/{MAIL['P'].hash}/",
        "list/PRIVATE@example.org/emails/",
    ],
)
def test_private_list_is_forbidden(client, archive, path):
    response = client.get("/archive/api/" + path)
    assert response.status_code == 403 and response.text == FORBIDDEN
    assert_api_headers(response)


def test_private_list_is_never_listed(client, archive):
    assert "private@" not in client.get("/archive/api/lists/").text
    assert "private@" not in client.get(f"/archive/api/sender/{ALICE}/emails/").text
    assert client.get(f"/archive/api/sender/{ALICE}/emails/?limit=1").json()["count"] == 4


def test_unknown_thread_of_a_known_list_is_an_empty_array(client, archive):
    assert client.get(f"/archive/api/list/{DEV}/thread/{'B' * 32}/emails/").content == b"[]"
    assert client.get(f"/archive/api/list/{DEV}/thread/{MAIL['X'].hash}/emails/").content != b"[]"


def test_list_address_is_matched_in_any_case_and_linked_in_lowercase(client, archive):
    response = client.get(f"/archive/api/list/DEV@Example.ORG/thread/{A}/emails/")
    assert response.status_code == 200
    assert "DEV@" not in response.text and response.json()[0]["mailinglist"] == api(f"list/{DEV}/")


def test_sender_pages_on_a_site_without_private_lists(client, archive, engine):
    # Without any private list the sender's pages are counted and found on the index alone.
    with engine.begin() as conn:
        conn.execute(mailing_lists.update().values(archive_policy="public"))
    everything = client.get(f"/archive/api/sender/{ALICE}/emails/").json()
    assert len(everything) == 5 and everything[0]["message_id_hash"] == MAIL["P"].hash
    pages = [client.get(f"/archive/api/sender/{ALICE}/emails/?limit=2&offset={offset}").json() for offset in (0, 2, 4)]
    assert [page["count"] for page in pages] == [5, 5, 5]
    assert [email for page in pages for email in page["results"]] == everything
