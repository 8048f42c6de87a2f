"""The real thing: Mailman 3.3.10 with the real mailman-hyperkitty 1.2.1 plugin archives into a
running `sathub serve`, as it archives into HyperKitty (issue 12).

Corpus mail (the 3GPP list, real addresses) goes through Mailman's `in`, `pipeline` and `archive`
runners: a thread whose first reply arrives before its parent, a private list whose policy sathub
reads from Mailman's REST API, a second run that archives nothing twice, and sathub stopped while
Mailman posts (the plugin queues the message and sends it with the next one)."""

from __future__ import annotations

import gzip
import mailbox
import re

import httpx
import pytest

from sathub import db
from sathub.archive.store import emails, lists
from tests.archive.api_fixtures import message_id_hash as hyperkitty_hash
from tests.archive.mailman.harness import Mailman, ensure_venv
from tests.archive.messages import many_parts_message
from tests.conftest import SHARED_DATA
from tests.live_server import free_port, sathub_server

pytestmark = pytest.mark.slow

KEY = "end-to-end-key"
LIST = "evs@lists.example.org"
PRIVATE_LIST = "evs-private@lists.example.org"
CORPUS = SHARED_DATA / "mail" / "3gpp_tsg_sa_wg4_evs@list.etsi.org.mbox.gz"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[bytes]:
    """The 3GPP list's messages (newest first, as the file has them), raw bytes without From_ lines."""
    path = tmp_path_factory.mktemp("corpus") / "evs.mbox"
    path.write_bytes(gzip.decompress(CORPUS.read_bytes()))
    return [message.as_bytes() for message in mailbox.mbox(path)]


def message_id(raw: bytes) -> str:
    return re.search(rb"^Message-ID:\s*<([^>]+)>", raw, re.MULTILINE | re.IGNORECASE)[1].decode()


def header(raw: bytes, name: str) -> str:
    found = re.search(rb"^" + name.encode() + rb":\s*(.+)$", raw, re.MULTILINE | re.IGNORECASE)
    return found[1].decode().strip() if found else ""


def run(mm: Mailman, address: str, *messages: bytes) -> dict:
    result = mm.post(address, *messages)
    assert result["remaining"] == {"in": 0, "pipeline": 0, "archive": 0}, result
    assert result["shunt"] == 0, mm.log()[-3000:]
    return result


def distributed(mm: Mailman, msgid: str) -> bytes:
    """The copy Mailman distributed (its `out` queue keeps it: nothing is delivered here)."""
    copies = [q.raw for q in mm.queue("out") if (q.message_id or "").strip().strip("<>") == msgid]
    assert copies, f"{msgid} was not distributed"
    return copies[-1]


def archived(engine, address: str) -> dict[str, str]:
    """message_id -> message_id_hash of what sathub has in the list."""
    with db.connect(engine) as conn:
        mailing_list = lists.find_list(conn, address)
        rows = emails.list_emails(conn, mailing_list, None) if mailing_list else []
    return {row.message_id: row.message_id_hash for row in rows}


def test_mailman_archives_into_sathub(engine, database_url, corpus):
    ensure_venv()
    root, first_reply, second_reply = corpus[19], corpus[17], corpus[18]
    chain_root, chain_reply = corpus[6], corpus[5]
    assert header(first_reply, "In-Reply-To").strip("<>") == message_id(root)
    assert header(chain_reply, "In-Reply-To").strip("<>") == message_id(chain_root)
    port = free_port()
    site = f"http://127.0.0.1:{port}"

    with Mailman(f"{site}/archive/", KEY) as mm:
        mm.create_list(LIST, archive_policy="public", display_name="EVS", description="EVS SWG")
        mm.create_list(PRIVATE_LIST, archive_policy="private")
        env = {
            "SATHUB_PORT": str(port),
            "SATHUB_ARCHIVER_KEY": KEY,
            "SATHUB_MAILMAN_REST_URL": mm.rest_url,
            "SATHUB_MAILMAN_REST_USER": mm.rest_user,
            "SATHUB_MAILMAN_REST_PASSWORD": mm.rest_password,
        }

        with sathub_server(database_url, base_url=site, env=env):
            # A thread whose first reply arrives before its parent; the list is new to sathub.
            run(mm, LIST, first_reply)
            run(mm, LIST, root, second_reply)
            run(mm, PRIVATE_LIST, corpus[13])
            assert mm.spooled() == []

            thread = [root, first_reply, second_reply]
            stored = archived(engine, LIST)
            assert sorted(stored) == sorted(message_id(m) for m in thread)
            root_hash = stored[message_id(root)]
            with httpx.Client(base_url=site, timeout=10) as http:
                emails = http.get(f"/archive/api/list/{LIST}/thread/{root_hash}/emails/").json()
                # HyperKitty's ids (base32 of SHA-1 of the cleaned Message-ID), and the thread is the root's
                assert {e["message_id_hash"] for e in emails} == {hyperkitty_hash(message_id(m)) for m in thread}
                # Mailman's own Message-ID-Hash header agrees where the Message-ID is not folded (the
                # root's is: `message-id: \n <…>`, and Mailman hashes the fold with it; HyperKitty does not)
                for raw in (first_reply, second_reply):
                    copy = distributed(mm, message_id(raw))
                    assert header(copy, "Message-ID-Hash") == stored[message_id(raw)]
                assert emails[0]["message_id_hash"] == root_hash and emails[0]["parent"] is None
                assert all(e["thread"].endswith(f"/thread/{root_hash}/") for e in emails)
                for raw in thread:
                    msgid = message_id(raw)
                    sender = re.search(r"<([^>]+)>", header(raw, "From"))[1]
                    by_sender = http.get(f"/archive/api/sender/{sender}/emails/").json()
                    assert stored[msgid] in {e["message_id_hash"] for e in by_sender}
                    # Mailman's permalink (Archived-At) opens the message's page
                    # (corpus mail may carry the Archived-At of its original archive too)
                    [permalink] = [url for url in mm.archived_at(msgid) if url.startswith(site)]
                    assert permalink == f"{site}/archive/list/{LIST}/message/{stored[msgid]}/"
                    page = http.get(permalink)
                    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
                    assert f"/archive/list/{LIST}/thread/{root_hash}/" in page.text
                assert mm.list_url(LIST) == f"{site}/archive/list/{LIST}/"
                listing = http.get(f"/archive/api/list/{LIST}/").json()
                assert (listing["display_name"], listing["description"]) == ("EVS", "EVS SWG")
                list_page = http.get(f"/archive/list/{LIST}/")
                assert list_page.status_code == 200 and "EVS SWG" in list_page.text

                # The private list: policy from Mailman's REST API, nothing served
                private_id = message_id(corpus[13])
                assert list(archived(engine, PRIVATE_LIST)) == [private_id]
                [private_link] = [url for url in mm.archived_at(private_id) if url.startswith(site)]
                assert http.get(private_link).status_code == 403
                assert http.get(f"/archive/api/list/{PRIVATE_LIST}/emails/").status_code == 403

            # A second run archives nothing twice: the runners find nothing, a re-post is a duplicate
            assert sum(mm.archive()["processed"].values()) == 0
            run(mm, LIST, root)
            assert archived(engine, LIST) == stored
            assert "HyperKitty archived message" in mm.log()

        # sathub is down: the plugin queues the message ...
        run(mm, LIST, chain_root)
        assert [q.message_id.strip().strip("<>") for q in mm.spooled()] == [message_id(chain_root)]
        # ... and sends it first when the next message is archived, once sathub is back.
        with sathub_server(database_url, base_url=site, env=env):
            run(mm, LIST, chain_reply)
            assert mm.spooled() == []
            after = archived(engine, LIST)
            assert set(after) == set(stored) | {message_id(chain_root), message_id(chain_reply)}
            with httpx.Client(base_url=site, timeout=10) as http:
                chain = http.get(f"/archive/api/list/{LIST}/thread/{after[message_id(chain_root)]}/emails/").json()
            assert [e["message_id_hash"] for e in chain] == [
                after[message_id(chain_root)],
                after[message_id(chain_reply)],
            ]


def test_a_message_of_many_parts_is_archived_at_once(engine, database_url, tmp_path):
    # Issue 40: 2,000 attachments outlasted PostgreSQL's deadline (503), and the plugin sent the
    # message again before every later one, for ever. Through Mailman, 5,000 parts under a limit of
    # 1,000: archived at the first call, nothing spooled, its first parts listed, one log line.
    ensure_venv()
    raw = many_parts_message("many-parts@example.org", 5_000, to=LIST)
    port = free_port()
    site = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    with Mailman(f"{site}/archive/", KEY) as mm:
        mm.create_list(LIST, archive_policy="public")
        env = {"SATHUB_PORT": str(port), "SATHUB_ARCHIVER_KEY": KEY, "SATHUB_MAX_MESSAGE_PARTS": "1000"}
        with sathub_server(database_url, base_url=site, env=env, output=log):
            run(mm, LIST, raw)
            assert mm.spooled() == []
            stored = archived(engine, LIST)["many-parts@example.org"]
            with httpx.Client(base_url=site, timeout=10) as http:
                found = http.get(f"/archive/api/list/{LIST}/email/{stored}/").json()
    assert [a["name"] for a in found["attachments"]] == [f"f{n}.txt" for n in range(1, 999)]
    assert log.read_text().count("many-parts@example.org archived in") == 1
