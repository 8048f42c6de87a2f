"""A message of many parts through Mailman's archive call (mailman/endpoints.py, issue 40): archived
at once, its first parts split out as SATHUB_MAX_MESSAGE_PARTS says, the rest kept in its source,
and one log line that names it; on SQLite and PostgreSQL."""

from __future__ import annotations

import logging

from sathub.archive.mail.ids import message_id_hash
from tests.archive.mailman.test_endpoints import make_client, page, post
from tests.archive.messages import many_parts_message

LOGGER = "sathub.archive.mailman"


def archived(client, message_id: str) -> dict:
    return client.get(f"/archive/api/list/dev@example.org/email/{message_id_hash(message_id)}/").json()


def test_the_parts_beyond_the_limit_stay_in_the_source(engine, settings, caplog):
    data = many_parts_message("many@example.com", 200)
    raw = f"/archive/list/dev@example.org/message/{message_id_hash('many@example.com')}/raw"
    with make_client(engine, settings, max_message_parts=50) as client, caplog.at_level(logging.INFO, LOGGER):
        answer = post(client, data)
        found = archived(client, "many@example.com")
        source = client.get(raw).content
        last = client.get(found["attachments"][-1]["download"]).content
    assert answer.status_code == 200 and answer.json() == {"url": page("dev@example.org", "many@example.com")}
    # The message is part 0 and its text part 1: the first 50 parts hold attachments 1 to 48.
    assert [(a["counter"], a["name"]) for a in found["attachments"]] == [(n + 1, f"f{n}.txt") for n in range(1, 49)]
    # Each attached text part leaves an empty line in the text (spec/archive-more.md, "How `content` is derived").
    assert (found["content"], last) == ("\n".join(["see 200 attachments\n"] + ["\n"] * 48), b"part 48")
    assert source == data
    (line,) = [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING]
    assert "many@example.com" in line and "dev@example.org" in line and "50" in line


def test_ten_thousand_parts_are_archived_under_the_default_limit(engine, settings, caplog):
    # Issue 40: 9,000 attachments held SQLite's writers for 85 s; from 2,000 PostgreSQL answered 503
    # after its 10 s deadline, and Mailman's plugin re-sent the message before every later one.
    data = many_parts_message("ten-thousand@example.com", 10_000)
    with make_client(engine, settings) as client, caplog.at_level(logging.INFO, LOGGER):
        answer = post(client, data)
        found = archived(client, "ten-thousand@example.com")
    assert answer.status_code == 200
    assert [a["counter"] for a in found["attachments"]] == list(range(2, 1000))  # 1,000 parts, the default
    assert len([r for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING]) == 1
