"""An export's answer on the wire. Against `sathub serve`: a client that takes nothing for
SATHUB_EXPORT_WRITE_TIMEOUT seconds is cut and its slot returns (issue 40: it held the slot for as
long as it liked); a slow client that keeps taking bytes is not. Without the server's hooks: one
send that waits the whole deadline is a cut, logged once."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from sathub.archive.export.sending import ExportAnswer
from tests.archive.export.stalled_clients import EXPORT, import_big_list, other_client, stalled_export, whole_export
from tests.live_server import sathub_server

DEADLINE = 4  # seconds; the other client's first request comes well within it, even at load 10
MARGIN = 30  # seconds after the deadline for the cut to be seen, on a machine as busy as it gets
END_OF_BODY = b"\r\n0\r\n\r\n"  # the last chunk of a chunked body: a cut answer never has it


@pytest.mark.slow
def test_a_client_that_takes_nothing_is_cut_and_its_slot_returns(engine, database_url, tmp_path):
    import_big_list(engine, tmp_path)
    env = {"SATHUB_MAX_EXPORTS": "1", "SATHUB_EXPORT_WRITE_TIMEOUT": str(DEADLINE)}
    with sathub_server(database_url, env=env) as root, other_client() as other:
        asked = time.monotonic()
        stalled = stalled_export(root)
        try:
            assert stalled.status == 200
            assert other.get(root + EXPORT).status_code == 503  # the one slot is held
            while not whole_export(other.get(root + EXPORT)):
                assert time.monotonic() - asked < DEADLINE + MARGIN, "the stalled export still holds its slot"
                time.sleep(0.5)
            assert time.monotonic() - asked >= DEADLINE  # not cut before its deadline
            # The stalled connection was cut: what it still holds ends before the chunked body's end.
            assert not stalled.rest(timeout=MARGIN).endswith(END_OF_BODY)
        finally:
            stalled.close()


@pytest.mark.slow
def test_a_slow_client_that_keeps_reading_is_not_cut(engine, database_url, tmp_path):
    """8 KB/s for twice the deadline: each piece of the export takes far longer than the deadline
    to go (a rule of one send per deadline would cut it), but the client takes bytes all along."""
    import_big_list(engine, tmp_path)
    with sathub_server(database_url, env={"SATHUB_EXPORT_WRITE_TIMEOUT": str(DEADLINE)}) as root:
        slow = stalled_export(root)
        try:
            assert slow.status == 200
            began = time.monotonic()
            while time.monotonic() - began < 2 * DEADLINE:
                assert slow.sock.recv(2048)
                time.sleep(0.25)
            assert slow.rest(timeout=MARGIN).endswith(END_OF_BODY)  # then the whole answer
        finally:
            slow.close()


def test_without_the_servers_hooks_one_send_that_waits_the_deadline_is_a_cut(caplog):
    released = []
    answer = ExportAnswer(iter([b"first", b"second"]), {}, lambda: released.append(True), write_timeout=1)
    sent = []

    async def send(message):
        sent.append(message["type"])
        if message.get("body"):
            await asyncio.Event().wait()  # the client takes nothing

    async def receive():
        await asyncio.Event().wait()  # nor goes away

    scope = {"type": "http", "asgi": {"spec_version": "2.3"}, "path": "/archive/x", "client": ("192.0.2.7", 1)}
    with caplog.at_level(logging.INFO, logger="sathub.archive.export"):
        asyncio.run(asyncio.wait_for(answer(scope, receive, send), timeout=30))
    assert sent == ["http.response.start", "http.response.body"]  # the second piece was never sent
    assert released == [True]
    assert [record.getMessage() for record in caplog.records] == [
        "export /archive/x cut: 192.0.2.7 took nothing for 1 s"
    ]
