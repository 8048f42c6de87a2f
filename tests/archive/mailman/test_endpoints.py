"""Mailman's archiver endpoints (mailman/endpoints.py): what the mailman-hyperkitty plugin calls, its
authentication, the body limit and malformed bodies, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import logging

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.mail.ids import message_id_hash
from sathub.archive.store import emails, lists, threads
from sathub.archive.tables import NEVER, PRIVATE
from sathub.db import connect
from tests.archive.messages import raw_message

KEY = "k3y-for-tests"
AUTH = {"Authorization": f"Token {KEY}"}
BASE = "http://sathub.test"
ARCHIVE = "/archive/api/mailman/archive"
URLS = "/archive/api/mailman/urls"


def message(msgid: str, subject: str = "hello", **fields) -> bytes:
    """A plain-text UTF-8 message to the list, as Mailman hands it over (tests/archive/messages.py)."""
    return raw_message(msgid, to="dev@example.org", subject=subject, content_type="text/plain; charset=utf-8", **fields)


def post(client, data: bytes, mlist: str = "dev@example.org", headers=AUTH, prefix="/archive/"):
    return client.post(
        f"{prefix}api/mailman/archive", data={"mlist": mlist}, files={"message": ("message.txt", data)}, headers=headers
    )


def make_client(engine, settings, address="127.0.0.1", **changes):
    settings = dataclasses.replace(settings, **({"archiver_key": KEY} | changes))
    return TestClient(create_app(settings, engine=engine), base_url=BASE, client=(address, 50000))


@pytest.fixture
def mailman(engine, settings):
    with make_client(engine, settings) as client:
        yield client


def page(address: str, msgid: str, prefix: str = "/archive/") -> str:
    return f"{BASE}{prefix}list/{address}/message/{message_id_hash(msgid)}/"


def stored(engine, address="dev@example.org"):
    with connect(engine) as conn:
        mailing_list = lists.find_list(conn, address)
        if mailing_list is None:
            return None, []
        return mailing_list, emails.list_emails(conn, mailing_list, None)


# -- archive ---------------------------------------------------------------------------------------


def test_archive_stores_and_answers_the_message_page(mailman, engine):
    answer = post(mailman, message("m1@example.com"))
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.json() == {"url": page("dev@example.org", "m1@example.com")}
    mailing_list, rows = stored(engine)
    assert mailing_list.archive_policy == "public" and mailing_list.display_name == ""
    assert [(r.message_id, r.subject, r.sender_address) for r in rows] == [
        ("m1@example.com", "hello", "ann@example.com")
    ]


def test_a_duplicate_is_answered_with_the_existing_url_and_stored_once(mailman, engine):
    first = post(mailman, message("dup@example.com"))
    again = post(mailman, message("dup@example.com", subject="changed"))
    assert again.status_code == 200
    assert again.json() == {"url": first.json()["url"], "duplicate": True}
    assert [r.subject for r in stored(engine)[1]] == ["hello"]


def test_a_reply_before_its_parent_is_reattached(mailman, engine):
    assert post(mailman, message("child@example.com", "Re: root", reply_to="root@example.com")).status_code == 200
    assert post(mailman, message("root@example.com", "root")).status_code == 200
    with connect(engine) as conn:
        mailing_list = lists.find_list(conn, "dev@example.org")
        found = threads.list_threads(conn, mailing_list.id, None)
        rows = emails.thread_emails(conn, mailing_list, found[0].thread_id, None)
    assert [t.thread_id for t in found] == [message_id_hash("root@example.com")]
    assert [r.message_id for r in rows] == ["root@example.com", "child@example.com"]
    assert rows[1].parent_hash == message_id_hash("root@example.com")


@pytest.mark.parametrize("prefix", ["/archive/", "/archives/", "/hyperkitty/"])
def test_each_prefix_answers_urls_under_itself(mailman, prefix):
    answer = post(mailman, message("p@example.com"), prefix=prefix)
    assert answer.json()["url"] == page("dev@example.org", "p@example.com", prefix)
    urls = mailman.get(f"{prefix}api/mailman/urls", params={"mlist": "dev@example.org"}, headers=AUTH)
    assert urls.json() == {"url": f"{BASE}{prefix}list/dev@example.org/"}


def test_the_list_address_is_lowercased(mailman, engine):
    answer = post(mailman, message("case@example.com"), mlist="Dev@Example.ORG")
    assert answer.json()["url"] == page("dev@example.org", "case@example.com")
    assert stored(engine)[0].name == "dev@example.org"


def test_a_private_list_keeps_its_mail_private(mailman, engine):
    with connect(engine, write=True) as conn:
        from sathub.archive.mail.dates import utc_now

        lists.create_list(conn, "secret@example.org", {"archive_policy": PRIVATE, "created_at": utc_now()})
    answer = post(mailman, message("s1@example.com"), mlist="secret@example.org")
    assert answer.status_code == 200
    assert len(stored(engine, "secret@example.org")[1]) == 1
    assert mailman.get("/archive/api/list/secret@example.org/emails/").status_code == 403
    assert mailman.get(answer.json()["url"]).status_code == 403


def test_a_never_list_archives_nothing(mailman, engine):
    with connect(engine, write=True) as conn:
        from sathub.archive.mail.dates import utc_now

        lists.create_list(conn, "quiet@example.org", {"archive_policy": NEVER, "created_at": utc_now()})
    answer = post(mailman, message("q1@example.com"), mlist="quiet@example.org")
    assert answer.status_code == 200  # not an error: the plugin would retry it with every later post
    assert answer.json()["url"] == "" and answer.json()["archived"] is False
    assert stored(engine, "quiet@example.org")[1] == []


@pytest.mark.parametrize(
    "build, detail",
    [
        (lambda c: c.post(ARCHIVE, data={"mlist": "dev@example.org"}, headers=AUTH), "multipart/form-data"),
        (lambda c: c.post(ARCHIVE, files={"message": ("m.txt", message("x@y"))}, headers=AUTH), "mlist"),
        (
            lambda c: c.post(ARCHIVE, data={"mlist": "dev@example.org"}, files={"other": ("m", b"x")}, headers=AUTH),
            "message",
        ),
        (lambda c: post(c, message("x@y"), mlist="no-at-sign"), "posting address"),
        (lambda c: post(c, b""), "empty"),
        (lambda c: post(c, b"this is not a mail message\n\njust text\n"), "header"),
        (
            lambda c: c.post(
                ARCHIVE,
                content=b'--b\r\nContent-Disposition: form-data; name="mlist"\r\n\r\nx',
                headers={**AUTH, "Content-Type": "multipart/form-data; boundary=b"},
            ),
            "missing",
        ),  # cut short
    ],
)
def test_malformed_bodies_are_400_and_store_nothing(mailman, engine, build, detail):
    answer = build(mailman)
    assert answer.status_code == 400, answer.text
    assert detail in answer.json()["detail"]
    assert stored(engine) == (None, [])


def test_a_message_that_cannot_be_archived_is_logged_with_its_list(mailman, caplog):
    with caplog.at_level(logging.WARNING, "sathub.archive.mailman"):
        assert post(mailman, b"this is not a mail message\n\njust text\n").status_code == 400
    (line,) = [r.getMessage() for r in caplog.records if r.name == "sathub.archive.mailman"]
    assert line.startswith("message for dev@example.org refused: Not archived: the message does not start")


# issue 23: lists were created under any name with one `@`; the 312-character one answered 500 on every
# retry on PostgreSQL, and the plugin sends a failed message again before every later one.
BAD_LIST_ADDRESSES = [
    "a b@c.org",
    "a@b\r\nx: y",
    "..@..",
    "l" * 300 + "@example.org",
    "dev@localhost",
    "dev@example..org",
    '"dev"@example.org',
    "d\x00ev@example.org",
    "l" * 243 + "@example.org",
]


def list_names(engine) -> list[str]:
    with connect(engine) as conn:
        return lists.list_names(conn)


@pytest.mark.parametrize("address", BAD_LIST_ADDRESSES)
def test_a_list_address_mailman_could_not_have_is_400_and_creates_nothing(mailman, engine, address):
    answer = post(mailman, message("bad-list@example.com"), mlist=address)
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-content-type-options"] == "nosniff"
    detail = answer.json()["detail"]
    assert detail.startswith("mlist must be the posting address of a list Mailman can create")
    assert repr(address) in detail
    urls = mailman.get(URLS, params={"mlist": address}, headers=AUTH)
    assert urls.status_code == 400 and urls.json()["detail"] == detail
    assert mailman.get(URLS, params={"mlist": address, "msgid": "m@x"}, headers=AUTH).status_code == 400
    assert list_names(engine) == []


def test_a_list_address_as_long_as_the_column_is_archived(mailman, engine):
    address = "l" * 242 + "@example.org"  # 254 characters: mailing_lists.name holds it on every backend
    answer = post(mailman, message("long-list@example.com"), mlist=address.upper())
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"url": page(address, "long-list@example.com")}
    assert list_names(engine) == [address]
    assert len(stored(engine, address)[1]) == 1


@pytest.mark.parametrize(
    "build, detail",
    [
        (
            lambda c: c.post(
                ARCHIVE,
                data={"mlist": "dev@example.org"},
                headers=AUTH,
                files=[("message", ("a.txt", message("one@x"))), ("message", ("b.txt", message("two@x")))],
            ),
            "message is given 2 times",
        ),
        (
            lambda c: c.post(
                ARCHIVE,
                data={"mlist": ["dev@example.org", "other@example.org"]},
                headers=AUTH,
                files={"message": ("m.txt", message("one@x"))},
            ),
            "mlist is given 2 times",
        ),
        (
            lambda c: c.post(
                ARCHIVE,
                data={"mlist": ["dev@example.org", "dev@example.org"]},
                headers=AUTH,
                files={"message": ("m.txt", message("one@x"))},
            ),
            "mlist is given 2 times",
        ),
    ],
)
def test_a_field_sent_twice_is_400_and_stores_nothing(mailman, engine, build, detail):
    answer = build(mailman)
    assert answer.status_code == 400, answer.text
    assert detail in answer.json()["detail"]
    assert list_names(engine) == []


@pytest.mark.parametrize(
    "params",
    [
        [("mlist", "dev@example.org"), ("mlist", "other@example.org")],
        [("mlist", "dev@example.org"), ("msgid", "a@x"), ("msgid", "b@x")],
    ],
)
def test_urls_refuses_a_parameter_sent_twice(mailman, params):
    answer = mailman.get(URLS, params=params, headers=AUTH)
    assert answer.status_code == 400 and "given 2 times" in answer.json()["detail"]


def test_the_body_limit_is_413(engine, settings):
    with make_client(engine, settings, archiver_max_bytes=2000) as client:
        assert post(client, message("small@example.com")).status_code == 200
        answer = post(client, message("big@example.com", body="x" * 5000))
        assert answer.status_code == 413
        assert "SATHUB_ARCHIVER_MAX_BYTES" in answer.json()["detail"]
    assert [r.message_id for r in stored(engine)[1]] == ["small@example.com"]


def test_get_on_archive_is_405_allow_post(mailman):
    answer = mailman.get(ARCHIVE, headers=AUTH)
    assert (answer.status_code, answer.headers["allow"], answer.content) == (405, "POST", b"")
    assert mailman.post(URLS, headers=AUTH).status_code == 405


# -- urls -------------------------------------------------------------------------------------


def test_urls_computes_the_message_page_before_it_is_archived(mailman):
    answer = mailman.get(URLS, params={"mlist": "dev@example.org", "msgid": "later@example.com"}, headers=AUTH)
    assert answer.status_code == 200
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.json() == {"url": page("dev@example.org", "later@example.com")}
    # with brackets too, and the Message-ID cleaned as the importer cleans it
    bracketed = mailman.get(URLS, params={"mlist": "dev@example.org", "msgid": "<later@example.com>"}, headers=AUTH)
    assert bracketed.json() == answer.json()


def test_urls_matches_the_published_vector(mailman):
    answer = mailman.get(
        URLS, params={"mlist": "a@b.org", "msgid": "87myycy5eh.fsf@uwakimon.sk.tsukuba.ac.jp"}, headers=AUTH
    )
    assert answer.json()["url"].endswith("/message/JJIGKPKB6CVDX6B2CUG4IHAJRIQIOUTP/")


def test_urls_needs_a_list(mailman):
    answer = mailman.get(URLS, headers=AUTH)
    assert answer.status_code == 400 and "mlist" in answer.json()["detail"]


# -- who may call -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers, check",
    [
        ({}, "key_missing"),
        ({"Authorization": "Bearer " + KEY}, "key_missing"),
        ({"Authorization": "Token wrong"}, "key_wrong"),
        ({"Authorization": f"Token {KEY}x"}, "key_wrong"),
    ],
)
def test_a_missing_or_wrong_key_is_refused_with_its_check(mailman, engine, headers, check):
    for answer in (
        post(mailman, message("k@example.com"), headers=headers),
        mailman.get(URLS, params={"mlist": "dev@example.org"}, headers=headers),
    ):
        assert answer.status_code == 403
        assert answer.json()["check"] == check and answer.json()["detail"]
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert stored(engine) == (None, [])


def test_without_a_key_configured_the_endpoints_are_off(engine, settings):
    with make_client(engine, settings, archiver_key="") as client:
        for answer in (
            post(client, message("o@example.com")),
            client.get(URLS, params={"mlist": "dev@example.org"}, headers=AUTH),
        ):
            assert answer.status_code == 403
            assert answer.json()["check"] == "archiver_key_unset"
            assert "SATHUB_ARCHIVER_KEY" in answer.json()["detail"]


def test_a_source_outside_the_allowed_ranges_is_refused(engine, settings):
    with make_client(engine, settings, address="192.0.2.7") as client:
        answer = post(client, message("far@example.com"))
        assert answer.status_code == 403
        assert answer.json()["check"] == "source_address"
        assert "192.0.2.7" in answer.json()["detail"] and "SATHUB_ARCHIVER_FROM" in answer.json()["detail"]
    with make_client(engine, settings, address="192.0.2.7", archiver_from="10.0.0.0/8, 192.0.2.0/28") as client:
        assert post(client, message("far@example.com")).status_code == 200


def test_an_unreadable_allowed_list_says_so(engine, settings):
    with make_client(engine, settings, archiver_from="localhost") as client:
        answer = post(client, message("x@example.com"))
    assert answer.status_code == 403 and answer.json()["check"] == "source_address"
    assert "'localhost' is not an address" in answer.json()["detail"]


# -- list settings from Mailman ------------------------------------------------------------------


@pytest.fixture
def rest():
    from tests.archive.rest_stub import MailmanRest

    with MailmanRest() as server:
        yield server


def with_rest(engine, settings, rest):
    from tests.archive.rest_stub import PASSWORD, USER

    return make_client(
        engine, settings, mailman_rest_url=rest.url, mailman_rest_user=USER, mailman_rest_password=PASSWORD
    )


def test_a_new_list_takes_its_settings_from_mailman(engine, settings, rest):
    rest.add("dev@example.org", display_name="Developers", description="Code talk", archive_policy="private")
    with with_rest(engine, settings, rest) as client:
        assert post(client, message("a@example.com")).status_code == 200
        assert post(client, message("b@example.com")).status_code == 200
    mailing_list, rows = stored(engine)
    assert (
        mailing_list.display_name,
        mailing_list.description,
        mailing_list.subject_prefix,
        mailing_list.archive_policy,
    ) == ("Developers", "Code talk", "[Dev] ", "private")
    assert len(rows) == 2
    assert len([c for c in rest.calls if c.endswith("/config")]) == 1  # asked once, when first seen


def test_a_never_list_is_asked_again_before_refusing(engine, settings, rest):
    rest.add("dev@example.org", archive_policy="never")
    with with_rest(engine, settings, rest) as client:
        assert post(client, message("n1@example.com")).json()["archived"] is False
        rest.lists["dev@example.org"]["archive_policy"] = "public"  # changed in Mailman since
        assert post(client, message("n2@example.com")).json() == {"url": page("dev@example.org", "n2@example.com")}
    assert [r.message_id for r in stored(engine)[1]] == ["n2@example.com"]


def test_a_list_mailman_does_not_know_is_public(engine, settings, rest):
    with with_rest(engine, settings, rest) as client:
        assert post(client, message("u@example.com")).status_code == 200
    assert stored(engine)[0].archive_policy == "public"


def test_an_unreachable_mailman_archives_nothing_yet(engine, settings):
    with make_client(engine, settings, mailman_rest_url="http://127.0.0.1:9") as client:
        answer = post(client, message("w@example.com"))
    assert answer.status_code == 503  # the plugin keeps the message and sends it again later
    assert "Mailman will retry" in answer.json()["detail"]
    assert stored(engine) == (None, [])
