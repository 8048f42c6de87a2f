"""The read API on real mail imported by the importer, checked against values written out by hand
from the raw mbox text and the rules of archive-api.md (Header rules), never computed by a parser.

Only the contract's own formulas are computed here: message_id_hash (base32 of SHA-1) and the
default mailman_id (uuid5 of the lowercase mailto: URL)."""

from __future__ import annotations

import base64
import hashlib
import uuid

import pytest

from sathub.archive.ingest.importer import import_archive
from tests.conftest import SHARED_DATA

MAIL_DIR = SHARED_DATA / "mail"
GPP = "3gpp_tsg_sa_wg4_evs@list.etsi.org"
PYC = "python-committers@python.org"
BASE = "http://sathub.test/archive/api/"


def id_hash(message_id: str) -> str:
    return base64.b32encode(hashlib.sha1(message_id.encode()).digest()).decode()


def mailman_id(address: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, "mailto:" + address.lower()).hex


MILAN, IMRE, TOMAS = "Milan.Jelinek@USHERBROOKE.CA", "ivarga@QTI.QUALCOMM.COM", "tomas.toftgard@ERICSSON.COM"
# "'Draft EVS-8a'" (3GPP file, stored newest first): a chain of replies, one In-Reply-To each.
# (Message-ID, From address as spelled, sender_name, subject, Date in UTC)
EVS_8A = [
    (
        "a6172d5f-a7d4-c50c-19bc-de0a42997d58@USherbrooke.ca",
        MILAN,
        "Milan Jelinek",
        "'Draft EVS-8a'",
        "2021-08-24T18:43:53Z",
    ),  # Tue, 24 Aug 2021 14:43:53 -0400
    (
        "SN6PR02MB54564AFB483F293AE150B1C5F8C69@SN6PR02MB5456.namprd02.prod.outlook.com",
        IMRE,
        "Imre Varga",
        "'Re: Draft EVS-8a'",
        "2021-08-25T07:49:28Z",
    ),
    (
        "a0d893d0-a0d9-3cb1-9db4-b23ffe99b25e@USherbrooke.ca",
        MILAN,
        "Milan Jelinek",
        "'Re: Draft EVS-8a'",
        "2021-08-25T11:15:56Z",
    ),  # Wed, 25 Aug 2021 07:15:56 -0400
    (
        "SN6PR02MB5456BCADE03A9C46C138467FF8C69@SN6PR02MB5456.namprd02.prod.outlook.com",
        IMRE,
        "Imre Varga",
        "'Re: Draft EVS-8a'",
        "2021-08-25T13:07:12Z",
    ),
    (
        "HE1PR0702MB36439AC3CD71874BE92BB78EFAC79@HE1PR0702MB3643.eurprd07.prod.outlook.com",
        TOMAS,
        "Tomas Toftgård",
        "'Re: Draft EVS-8a'",
        "2021-08-26T16:10:39Z",
    ),
    (
        "364608fb-05ec-10ac-c62e-3a663ddcc41a@USherbrooke.ca",
        MILAN,
        "Milan Jelinek",
        "'Re: Draft EVS-8a'",
        "2021-08-26T18:42:29Z",
    ),  # Thu, 26 Aug 2021 14:42:29 -0400
    (
        "HE1PR0702MB36431C99F09F56144B855CF3FAC79@HE1PR0702MB3643.eurprd07.prod.outlook.com",
        TOMAS,
        "Tomas Toftgård",
        "'Re: Draft EVS-8a'",
        "2021-08-26T20:51:14Z",
    ),
]
EVS_ROOT = EVS_8A[0][0]


def email_link(list_name: str, message_id: str) -> str:
    return f"{BASE}list/{list_name}/email/{id_hash(message_id)}/"


@pytest.fixture
def gpp(engine):
    import_archive(engine, GPP, [MAIL_DIR / f"{GPP}.mbox.gz"])


def test_real_thread_emails_field_by_field(client, gpp):
    assert id_hash(EVS_ROOT) == "B5UXMR4VR3S3OLY4STTVRJU7YC6YQGCC"
    response = client.get(f"/archive/api/list/{GPP}/thread/{id_hash(EVS_ROOT)}/emails/")
    assert response.status_code == 200
    expected = []
    for n, (message_id, address, name, subject, date) in enumerate(EVS_8A):
        expected.append(
            {
                "url": email_link(GPP, message_id),
                "mailinglist": f"{BASE}list/{GPP}/",
                "message_id": message_id,
                "message_id_hash": id_hash(message_id),
                "thread": f"{BASE}list/{GPP}/thread/{id_hash(EVS_ROOT)}/",
                "sender": {
                    "address": address.replace("@", " (a) "),
                    "mailman_id": mailman_id(address),
                    "emails": f"{BASE}sender/{mailman_id(address)}/emails/",
                },
                "sender_name": name,
                "subject": subject,
                "date": date,
                "parent": email_link(GPP, EVS_8A[n - 1][0]) if n else None,
                "children": [email_link(GPP, EVS_8A[n + 1][0])] if n + 1 < len(EVS_8A) else [],
            }
        )
    body = response.json()
    assert [list(email) for email in body] == [list(email) for email in expected]
    assert body == expected
    assert "Tomas Toftgård".encode() in response.content  # UTF-8, not \\u escapes


def test_real_thread_detail(client, gpp):
    body = client.get(f"/archive/api/list/{GPP}/thread/{id_hash(EVS_ROOT)}/").json()
    assert body["thread_id"] == id_hash(EVS_ROOT)
    assert body["subject"] == "'Draft EVS-8a'"
    # The file is newest first: the root arrived last, so it is the last archived email.
    assert body["date_active"] == "2021-08-24T18:43:53Z"
    assert body["starting_email"] == email_link(GPP, EVS_ROOT)
    assert body["replies_count"] == 6
    # In arrival order (the file's): Tomas, Milan, Imre.
    assert body["participants"] == [
        {"name": "Tomas Toftgård", "email": "tomas.toftgard (a) ERICSSON.COM"},
        {"name": "Milan Jelinek", "email": "Milan.Jelinek (a) USHERBROOKE.CA"},
        {"name": "Imre Varga", "email": "ivarga (a) QTI.QUALCOMM.COM"},
    ]
    assert body["participants_count"] == 3


def test_real_list_emails_and_threads_cover_the_archive(client, gpp):
    emails = client.get(f"/archive/api/list/{GPP}/emails/").json()
    assert len(emails) == 49  # 50 mbox messages, one duplicate
    dates = [e["date"] for e in emails]
    # The From_ lines (MAILER-DAEMON) name no address: the archived date is the Date header.
    assert dates == sorted(dates, reverse=True)
    assert (dates[0], dates[-1]) == (
        "2021-08-26T20:51:14Z",
        "2020-03-16T18:54:49Z",
    )  # date: Mon, 16 Mar 2020 18:54:49 +0000
    threads = client.get(f"/archive/api/list/{GPP}/threads/").json()
    assert len(threads) == 38
    assert sum(t["replies_count"] + 1 for t in threads) == 49
    page = client.get(f"/archive/api/list/{GPP}/threads/?limit=5&offset=5").json()
    assert page["count"] == 38 and page["results"] == threads[5:10]


def test_real_email_detail_content(client, gpp):
    message_id = EVS_8A[-1][0]
    body = client.get(f"/archive/api/list/{GPP}/email/{id_hash(message_id)}/").json()
    assert body["content"].startswith("Hi Milan,")
    assert body["attachments"] == [] and body["sender_name"] == "Tomas Toftgård"


def test_python_committers_transfer_of_power(client, engine):
    import_archive(engine, PYC, [MAIL_DIR / f"{PYC}.mbox.gz"])
    root = "CAP7+vJ+oK5q8a3kxizcbgUrrhwhOBbDj9VhSSNwZ0XgiOuBztQ@mail.gmail.com"
    body = client.get(f"/archive/api/list/{PYC}/thread/{id_hash(root)}/emails/").json()
    assert len(body) == 109
    # From guido at python.org (Guido van Rossum): pipermail's form, so the name is the address.
    assert body[0]["message_id"] == root
    assert (body[0]["sender"]["address"], body[0]["sender_name"]) == ("guido (a) python.org", "guido@python.org")
    assert (body[0]["subject"], body[0]["date"]) == ("[python-committers] Transfer of power", "2018-07-12T14:57:35Z")
    # Victor (Date 17:55:25 +0200) is dated before Christian (17:55:41 +0200), who arrived first.
    first_replies = [(e["sender_name"], e["date"]) for e in body[1:] if e["parent"] == body[0]["url"]][:2]
    assert first_replies == [
        ("vstinner@redhat.com", "2018-07-12T15:55:25Z"),
        ("christian@python.org", "2018-07-12T15:55:41Z"),
    ]
    assert all(e["sender_name"] == e["sender"]["address"].replace(" (a) ", "@") for e in body)

    detail = client.get(f"/archive/api/list/{PYC}/thread/{id_hash(root)}/").json()
    assert detail["subject"] == "[python-committers] Transfer of power"
    assert detail["replies_count"] == 108

    page = client.get("/archive/api/sender/guido@python.org/emails/?limit=20&offset=0").json()
    everything = client.get(f"/archive/api/sender/{mailman_id('guido@python.org')}/emails/").json()
    assert page["count"] == len(everything) and page["results"] == everything[:20]
    dates = [e["date"] for e in everything]
    assert dates == sorted(dates, reverse=True)
    assert dates[0] > "2018-01-01"
