"""A TCP proxy in front of PostgreSQL, to cut or freeze the database under a running sathub
(tests/status/api/test_v1_health.py, bench/status_faults_outage.py)."""

from __future__ import annotations

import socket
import threading
import time


class TcpProxy:
    """Forwards a local port to PostgreSQL. stop() closes
    the port and cuts every connection (PostgreSQL stopped: connects are refused at once);
    blackhole() keeps accepting but forwards nothing (PostgreSQL hung or a network partition)."""

    def __init__(self, port: int, target: tuple[str, int]):
        self.port, self.target = port, target
        self.listener: socket.socket | None = None
        self.connections: list[socket.socket] = []
        self.holes = False

    def start(self) -> None:
        self.holes = False
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def blackhole(self) -> None:
        self.holes = True

    def restore(self) -> None:
        """After blackhole(): cut whatever was held, then forward again."""
        self.stop()
        self.start()

    def stop(self) -> None:
        for sock in (self.listener, *self.connections):
            if sock is None:
                continue
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        self.connections.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            self.connections.append(client)
            if self.holes:
                continue  # held open, silent
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            self.connections.append(upstream)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                while self.holes:
                    time.sleep(0.01)  # swallowed until restore() cuts the connection
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
