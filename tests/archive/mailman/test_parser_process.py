"""The archive call's parsing in a helper process (mailman/parser_process.py): what the serving
process would have parsed, its refusals, and a helper that dies."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import logging
import os
import signal
import time

import pytest

from sathub.archive.mailman import live_ingest, parser_process
from tests.archive.messages import many_parts_message
from tests.conftest import SHARED_DATA


def corpus_messages(count: int) -> list[bytes]:
    """The first `count` messages of a real list, as Mailman would hand them over."""
    path = SHARED_DATA / "mail" / "python-committers@python.org.mbox.gz"
    with gzip.open(path, "rb") as source:
        data = source.read(4_000_000)
    return [chunk.partition(b"\n")[2] for chunk in data.split(b"\nFrom ")[1 : count + 1]]  # without From_ lines


def fields(email) -> dict:
    found = dataclasses.asdict(email)
    found.pop("archived_date")  # the time of each parse
    return found


def test_a_real_message_parsed_in_the_helper_equals_the_parse_in_place():
    for data in [*corpus_messages(20), many_parts_message("many@example.org", 300)]:
        apart = asyncio.run(parser_process.parsed(data, 100))
        assert fields(apart) == fields(live_ingest.parse(data, 100))
    assert parser_process.helper_pid() not in (None, os.getpid())


def test_the_helpers_refusal_is_the_parses():
    with pytest.raises(live_ingest.UnreadableMessage, match="does not start with a header field"):
        asyncio.run(parser_process.parsed(b"no header here\n\nbody\n", 100))


def test_a_helper_that_died_costs_no_message(caplog):
    data = many_parts_message("after-death@example.org", 10)
    asyncio.run(parser_process.parsed(data, 100))
    dead = parser_process.helper_pid()
    assert dead is not None
    os.kill(dead, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _alive(dead) and time.monotonic() < deadline:
        time.sleep(0.05)
    with caplog.at_level(logging.WARNING, logger="sathub.archive.mailman"):
        assert asyncio.run(parser_process.parsed(data, 100)).message_id == "after-death@example.org"
    assert "parsing process died" in caplog.text
    assert asyncio.run(parser_process.parsed(data, 100)).attachments  # in a new helper
    assert parser_process.helper_pid() not in (None, dead, os.getpid())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ")[1][0] != "Z"
