"""Beyond one leaf message (planted.py, both backends): the replies of a removed message stay in
their thread as HyperKitty keeps them; a thread or a list removed whole answers at every door as
one that never existed; a private list keeps every rule."""

from __future__ import annotations

import json

import pytest

from sathub.archive.removal.operations import DELETE, HIDE, UNHIDE, run, scope_of
from tests.archive.removal.planted import (
    API_PREFIXES,
    LIST,
    LW,
    SECRET,
    SECRET_TOKEN,
    ZED,
    A,
    answers,
    api_doors,
    fetch,
    mhash,
    planted,
    reference,
    remove,
    web_doors,
)

B, T = mhash("B"), mhash("T")
API = "/archive/api/"


@pytest.fixture
def archive(engine, tmp_path):
    reference(engine, tmp_path)
    planted(engine, tmp_path)


def body(client, path: str):
    answer = client.get(path)
    assert answer.status_code == 200, path
    return answer.json()


def email_link(key_hash: str) -> str:
    return f"http://sathub.test{API}list/{LIST}/email/{key_hash}/"


@pytest.mark.parametrize("action", [HIDE, DELETE])
def test_the_replies_of_a_removed_message_stay_in_their_thread(client, engine, archive, action):
    before = answers(client, api_doors() + web_doors())
    remove(engine, action, "B")
    # HyperKitty's step 1 (docs/archive-removal-hyperkitty.md): B's reply T now answers B's parent A.
    thread = body(client, f"{API}list/{LIST}/thread/{A}/")
    assert (thread["replies_count"], thread["participants_count"]) == (1, 2)
    members = body(client, f"{API}list/{LIST}/thread/{A}/emails/")
    assert [(m["message_id_hash"], m["parent"]) for m in members] == [(A, None), (T, email_link(A))]
    assert body(client, f"{API}list/{LIST}/email/{T}/")["parent"] == email_link(A)
    assert body(client, f"{API}list/{LIST}/email/{A}/")["children"] == [email_link(T)]
    page = client.get(f"{LW}thread/{A}/").text
    assert T in page and B not in page
    if action == HIDE:
        remove(engine, UNHIDE, "B")
        after = answers(client, list(before))
        changed = [path for path, then in before.items() if then.body != after[path].body]
        assert changed == []


def test_a_thread_removed_whole_answers_as_a_thread_never_archived(client, engine, archive):
    unknown = mhash("never-archived")
    doors = [
        *(f"{prefix}list/{LIST}/thread/{{}}/" for prefix in API_PREFIXES),
        *(f"{prefix}list/{LIST}/thread/{{}}/emails/" for prefix in API_PREFIXES),
        f"{LW}thread/{{}}/",
        f"{LW}thread/{{}}/feed/atom/",
        f"{LW}export/t.mbox.gz?thread={{}}",
    ]
    expected = {door: fetch(client, door.format(unknown)) for door in doors}
    for action in (HIDE, UNHIDE, DELETE):
        run(engine, action, scope_of(thread=A, list_name=LIST), "probe", "test")
        if action == UNHIDE:
            assert fetch(client, doors[0].format(A)).status == 200
            continue
        for door in doors:
            answer, never = fetch(client, door.format(A)), expected[door]
            assert (answer.status, answer.body.replace(A, unknown)) == (never.status, never.body), (action, door)
    # HyperKitty's answers, exactly: the thread 404 with its body, its emails an empty list.
    assert client.get(f"{API}list/{LIST}/thread/{A}/").json() == {"detail": "No Thread matches the given query."}
    assert client.get(f"{API}list/{LIST}/thread/{A}/emails/").json() == []
    assert client.get(f"{LW}thread/{A}/").status_code == 404


@pytest.mark.parametrize("action", [HIDE, DELETE])
def test_a_list_removed_whole_answers_as_a_list_never_archived(client, engine, archive, action):
    stranger = "nolist@example.org"
    doors = [door for door in api_doors() + web_doors() if LIST in door and "/sender/" not in door]
    expected = {door: fetch(client, door.replace(LIST, stranger)) for door in doors}
    run(engine, action, scope_of(list_name=LIST), "probe", "test")
    wrong = []
    for door in doors:
        answer, never = fetch(client, door), expected[door]
        if (answer.status, answer.body.replace(LIST, stranger)) != (never.status, never.body):
            wrong.append(f"{door}: {answer.status}, never archived {never.status}")
    assert wrong == []
    assert client.get(f"{API}list/{LIST}/").json() == {"detail": "No MailingList matches the given query."}
    for path in (f"{API}lists/", "/archive/", f"/archive/sender/{ZED}/feed/atom/"):
        assert LIST not in client.get(path).text
    for path in (f"{API}list/{LIST}/threads/", f"{API}list/{LIST}/emails/", LW, "/archive/pipermail/doors/"):
        assert client.get(path, follow_redirects=False).status_code == 404, path  # HyperKitty: 500 for the API


def test_a_private_list_keeps_every_rule(client, engine, archive):
    secret = mhash("S")
    doors = [
        *(f"{prefix}list/{SECRET}/email/{secret}/" for prefix in API_PREFIXES),
        f"{API}list/{SECRET}/emails/",
        f"/archive/list/{SECRET}/message/{secret}/",
        f"/archive/list/{SECRET}/message/{secret}/raw",
        f"/archive/list/{SECRET}/feed/atom/",
    ]
    before = {door: fetch(client, door) for door in doors}
    assert {answer.status for answer in before.values()} == {403}
    for action in (HIDE, UNHIDE, DELETE):
        remove(engine, action, "S", SECRET)
        for door in doors:
            answer = fetch(client, door)
            assert (answer.status, answer.body) == (before[door].status, before[door].body), (action, door)
        for path in (f"{API}search/?q={SECRET_TOKEN}", f"{API}sender/zed@example.net/emails/"):
            assert SECRET_TOKEN not in json.dumps(body(client, path))
