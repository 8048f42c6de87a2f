"""One POST to a webhook (notify/webhook_sending.py) against real local servers: refused by default
for a loopback address and for a name that resolves to one (checked at connect time), allowed by
the setting; no redirect followed; an answer's body read only up to the cap; a receiver that never
answers cut at the timeout."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

from sathub.status.notify.webhook_sending import RESPONSE_CAP, Post
from tests.status.notify.webhook_receivers import dead_receiver, receiving

BODY = b'{"event_id": 1}'


def post(url: str, allow_private: bool, timeout: float = 2.0):
    return Post(url, BODY, {"Content-Type": "application/json"}, timeout, allow_private).run()


def test_loopback_is_refused_by_default_even_behind_a_name_and_allowed_by_the_setting():
    with receiving() as receiver:
        port = receiver.url.split(":")[2].split("/")[0]
        for url in (receiver.url, f"http://localhost:{port}/hook", f"http://[::ffff:127.0.0.1]:{port}/hook"):
            refused = post(url, allow_private=False)
            assert refused.status_code is None and refused.error.startswith("refused: "), url
            assert "not a public address" in refused.error
        assert receiver.received == []  # nothing reached it
        allowed = post(f"http://localhost:{port}/hook", allow_private=True)
        assert (allowed.status_code, allowed.error, allowed.delivered) == (200, None, True)
        assert [item.body for item in receiver.received] == [BODY]


def test_only_http_and_https_are_sent():
    outcome = post("ftp://127.0.0.1/hook", allow_private=True)
    assert outcome.error == "refused: only http:// and https:// URLs with a host name"


def test_a_redirect_is_not_followed_and_is_a_failure():
    with receiving() as target:
        with redirecting(target.url) as url:
            outcome = post(url, allow_private=True)
        assert (outcome.status_code, outcome.delivered) == (302, False)
        assert target.received == []


@contextlib.contextmanager
def raw_server(answer: bytes, then_forever: bytes = b""):
    """A server that reads a request's head, writes `answer`, then `then_forever` until cut."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with contextlib.suppress(OSError):
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(answer)
                while then_forever:
                    conn.sendall(then_forever)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
    finally:
        listener.close()


@contextlib.contextmanager
def redirecting(location: str):
    with raw_server(f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()) as url:
        yield url


def test_an_endless_answer_is_read_only_up_to_the_cap():
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n"
    with raw_server(head, then_forever=b"x" * RESPONSE_CAP) as url:
        started = time.monotonic()
        outcome = post(url, allow_private=True, timeout=5.0)
    assert (outcome.status_code, outcome.delivered) == (200, True)
    assert time.monotonic() - started < 2.5  # not the 5 s timeout: it stopped reading at the cap


def test_a_receiver_that_never_answers_is_cut_at_the_timeout():
    with dead_receiver() as url:
        outcome = post(url, allow_private=True, timeout=0.5)
    assert (outcome.status_code, outcome.error) == (None, "timed out")
    assert 450 <= outcome.duration_ms < 2000
