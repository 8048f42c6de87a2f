"""A TCP proxy in front of PostgreSQL, to cut or freeze the database under a running sathub: the
database-outage tests use it, and so does the outage benchmark (bench/faults/outage.py), so that
one fault tool serves both and tests import nothing from bench."""

from __future__ import annotations

import socket
import threading
import time


class TcpProxy:
    """Forwards a local port to `target`. stop() closes the port and cuts every connection
    (PostgreSQL stopped: connects are refused at once); blackhole() keeps accepting but forwards
    nothing (PostgreSQL frozen, or a network partition); restore() ends the blackhole."""

    def __init__(self, port: int, target: tuple[str, int]):
        self.port, self.target = port, target
        self.listener: socket.socket | None = None
        self.connections: list[socket.socket] = []
        self._lock = threading.Lock()  # stop() against a connection accepted at that moment
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
        with self._lock:
            socks, self.listener = (self.listener, *self.connections), None
            self.connections.clear()
        for sock in socks:
            if sock is not None:
                _shut(sock)
                sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            if not self._keep(listener, client):
                return
            if self.holes:
                continue  # held open, silent
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            if not self._keep(listener, upstream):
                client.close()
                return
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _keep(self, listener: socket.socket, sock: socket.socket) -> bool:
        """Keep `sock` to be cut by the next stop(), unless a stop() came after `listener` accepted
        it: then close it (it would otherwise forward through the outage)."""
        with self._lock:
            if self.listener is listener:
                self.connections.append(sock)
                return True
        sock.close()
        return False

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                while self.holes:
                    time.sleep(0.01)  # swallowed until restore() cuts the connection
                sink.sendall(data)
        except OSError:
            pass
        finally:
            _shut(source)
            _shut(sink)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
