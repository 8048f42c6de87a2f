"""The socket side of a line protocol (server/line_server.py) with a session that echoes: lines
too long answered and the rest dropped, idle connections told and closed, the caps per process
and per address, and a client that leaves mid-answer."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sathub.server.line_server import LineLimits, LineServer, Replies

REPLIES = Replies(greeting=b"hello\r\n", too_long=b"too long\r\n", busy=b"busy\r\n", idle=b"idle\r\n")


class Echo:
    closing = False

    async def answer(self, line: bytes) -> bytes:
        self.closing = line == b"bye"
        return b"echo " + line + b"\r\n"


@contextmanager
def serving(**limits) -> Iterator[int]:
    chosen = LineLimits(**({"max_line": 16, "idle_timeout": 5, "max_connections": 10, "per_address": 0} | limits))
    server = LineServer(Echo, chosen, REPLIES)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(server.start("127.0.0.1", 0))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield server.port
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


class Client:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.replies = self.sock.makefile("rb")

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def line(self) -> bytes:
        return self.replies.readline()

    def close(self) -> None:
        self.replies.close()
        self.sock.close()


def test_lines_are_answered_in_order_and_a_long_one_is_answered_too_long():
    with serving() as port:
        client = Client(port)
        assert client.line() == b"hello\r\n"
        # 16 octets with the CRLF: read; 17: too long, and the next line still answered.
        client.send(b"a" * 14 + b"\r\n" + b"b" * 15 + b"\r\n" + b"c" * 100 + b"\nd\r\nbye\r\n")
        assert [client.line() for _ in range(5)] == [
            b"echo " + b"a" * 14 + b"\r\n",
            b"too long\r\n",
            b"too long\r\n",
            b"echo d\r\n",
            b"echo bye\r\n",
        ]
        assert client.line() == b""  # the session ended: closed
        client.close()


def test_an_idle_connection_is_told_and_closed():
    with serving(idle_timeout=0.3) as port:
        client = Client(port)
        assert client.line() == b"hello\r\n"
        assert client.line() == b"idle\r\n" and client.line() == b""
        client.close()


def test_one_address_holds_its_share_and_the_process_its_maximum():
    with serving(per_address=2) as port:
        held = [Client(port) for _ in range(2)]
        assert [client.line() for client in held] == [b"hello\r\n"] * 2
        refused = Client(port)
        assert refused.line() == b"busy\r\n" and refused.line() == b""
        refused.close()
        held[0].send(b"bye\r\n")
        assert held[0].line() == b"echo bye\r\n" and held[0].line() == b""
        held[0].close()
        again = Client(port)  # a place was given back
        assert again.line() == b"hello\r\n"
        for client in (held[1], again):
            client.close()
    with serving(max_connections=1) as port:
        first, second = Client(port), Client(port)
        assert first.line() == b"hello\r\n" and second.line() == b"busy\r\n"
        first.close()
        second.close()
