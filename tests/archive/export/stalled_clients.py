"""Exports too large for the buffers between a server and a client that does not read, and such
clients, for the tests of the export slots and the write deadline against `sathub serve`.

The list holds 300 messages of 16 KB random base64 (3.7 MB of gzip: deflate cannot shrink base64
of random bytes below 3/4). A client with a 4 KiB receive buffer that reads only the status line
leaves the server's writes blocked after a few hundred KB, its export unfinished and its slot
held (before the deadline, a slot so held was held for good)."""

from __future__ import annotations

import base64
import os
import socket
import zlib
from dataclasses import dataclass

import httpx

from sathub.archive.ingest.importer import import_archive

BIG = "big@lists.example.org"
MESSAGES = 300
EXPORT = f"/archive/list/{BIG}/export/big.mbox.gz"
SEPARATOR = b"From big@example.com Mon Jan  6 10:00:00 2020\n"
OTHER_ADDRESS = "127.0.0.2"  # another client: loopback answers every 127.x.y.z


def import_big_list(engine, tmp_path) -> None:
    path = tmp_path / "big.mbox"
    with path.open("wb") as file:
        for n in range(MESSAGES):
            file.write(
                SEPARATOR + b"From: Big <big@example.com>\n"
                b"Subject: big %d\n"
                b"Message-ID: <big%d@example.org>\n"
                b"Date: Mon, 06 Jan 2020 10:00:00 +0000\n"
                b"\n" % (n, n) + base64.encodebytes(os.urandom(12_000)) + b"\n"
            )
    import_archive(engine, BIG, [path])


@dataclass
class Stalled:
    """A connection that asked for an export and read its status line, then nothing."""

    sock: socket.socket
    status: int

    def rest(self, timeout: float) -> bytes:
        """Everything the connection still delivers until it ends (EOF or reset); TimeoutError
        when it is still open after `timeout` seconds without a byte."""
        self.sock.settimeout(timeout)
        received = bytearray()
        try:
            while piece := self.sock.recv(1 << 20):
                received += piece
        except ConnectionResetError:
            pass
        return bytes(received)

    def close(self) -> None:
        self.sock.close()


def stalled_export(root: str, source: str = "127.0.0.1", path: str = EXPORT) -> Stalled:
    port = int(root.rsplit(":", 1)[1])
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: the window stays small
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: sathub.test\r\nConnection: close\r\n\r\n".encode())
    sock.settimeout(30)
    line = b""
    while len(line) < 12:
        piece = sock.recv(12 - len(line))
        assert piece, "the server closed before its status line"
        line += piece
    return Stalled(sock, int(line[9:12]))


def other_client() -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=OTHER_ADDRESS), timeout=60)


def whole_export(response: httpx.Response) -> bool:
    """Whether `response` is the whole export: a 200 whose gzip ends, holding every message."""
    if response.status_code != 200:
        return False
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    mbox = decompressor.decompress(response.content) + decompressor.flush()
    return decompressor.eof and mbox.count(SEPARATOR) == MESSAGES
