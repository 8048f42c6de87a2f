"""`sathub serve --workers N` (N > 1): N serving processes on one port, each listening on a socket
of its own (SO_REUSEPORT, as the NNTP listener does: line_server.py), so that the kernel hands each
new connection to one of them by a hash of its addresses.

uvicorn's own workers share one listening socket, and the process that wakes first accepts every
connection waiting (libuv accepts until the queue is empty): wrk's 64 connections, opened at once,
were held 64/0, 47/17 or 51/13 by two processes, the loaded one queueing requests while the other
had cores to spare (docs/design.md, "Two processes, one port").

The supervisor starts the workers, starts another in place of one that dies (unless it died
before serving: a broken configuration would fail the same way for ever), and on SIGINT, SIGTERM
or SIGHUP stops them all with SIGTERM (uvicorn's graceful shutdown) and waits for them."""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import sys
import threading

import uvicorn
from uvicorn.config import STARTUP_FAILURE

CHECK_SECONDS = 0.5
log = logging.getLogger("uvicorn.error")


def serve_workers(config: uvicorn.Config, count: int) -> None:
    """Serve `config` with `count` processes until told to stop; exit with uvicorn's STARTUP_FAILURE
    (3) when a worker could not start."""
    spawn = multiprocessing.get_context("spawn")
    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stopping.set())

    def started() -> multiprocessing.process.BaseProcess:
        process = spawn.Process(target=_worker, args=(config,), name="sathub-worker")
        process.start()
        return process

    workers = [started() for _ in range(count)]
    failed = False
    while not stopping.wait(CHECK_SECONDS):
        for index, worker in enumerate(workers):
            if worker.is_alive():
                continue
            if worker.exitcode == STARTUP_FAILURE:
                log.error("Worker process [%s] failed to start; stopping.", worker.pid)
                failed = True
                stopping.set()
                break
            log.warning("Worker process [%s] ended (exit code %s); starting another.", worker.pid, worker.exitcode)
            workers[index] = started()
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
    for worker in workers:
        worker.join()
    if failed:
        sys.exit(STARTUP_FAILURE)


def _worker(config: uvicorn.Config) -> None:
    config.configure_logging()  # a spawned process starts with logging as Python leaves it
    try:
        sock = _own_socket(config.host, config.port)
    except OSError as error:
        log.error("Cannot listen on %s:%s: %s", config.host, config.port, error)
        sys.exit(STARTUP_FAILURE)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C reaches the whole group; the server has stopped already
        pass


def _own_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock
