"""The archive call's parsing, in a helper process of the serving process.

Parsing a message is Python work that holds the interpreter's lock: 41 ms for a message of 10,000
tiny parts (its first 1,000 split out), 12 ms for a one-part 0.9 MB message. In a thread of the
serving process it took the lock from the event loop and from the writer thread in slices of the
switch interval, so that a report POST sent every 20 ms beside such archive calls back to back
waited p99 66.4 ms instead of 9.3 ms alone (bench/archive_many_parts.py, SQLite). Here the serving
process only hands over the bytes and takes the parsed email back, pickled.

One helper per serving process, started at the first archive call: `python -m` this module, its
standard input and output a pipe each, one message at a time (a length, then a pickle). It ends
when its input does, which the kernel closes when the serving process ends, however it ends: a
pool of multiprocessing's left its helpers running after a server killed by a signal. It leaves
Ctrl-C and a service manager's stop (SIGINT, SIGTERM, sent to the whole process group) to the
serving process. Should it die, this call is parsed in a thread, as before, and the next call
starts a new helper: Mailman's message is never refused for it."""

from __future__ import annotations

import logging
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from typing import IO

from starlette.concurrency import run_in_threadpool

from sathub.archive.mail.message import ParsedEmail
from sathub.archive.mailman.live_ingest import parse

log = logging.getLogger("sathub.archive.mailman")

_LENGTH = struct.Struct("!Q")


async def parsed(data: bytes, max_parts: int) -> ParsedEmail:
    """live_ingest.parse(data, max_parts), run in the helper process (its UnreadableMessage too)."""
    try:
        return await run_in_threadpool(_ask, data, max_parts)
    except _HelperGone:
        log.warning("the archive call's parsing process died: this message is parsed in the serving process")
        return await run_in_threadpool(parse, data, max_parts)


class _HelperGone(Exception):
    """The helper process ended before it answered."""


class _Helper:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True
        )
        self.lock = threading.Lock()  # one message at a time

    def ask(self, data: bytes, max_parts: int) -> ParsedEmail:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        with self.lock:
            try:
                _send(stdin, (data, max_parts))
                ok, value = _received(stdout)
            except (OSError, EOFError, pickle.UnpicklingError):
                _forget(self)
                raise _HelperGone from None
        if not ok:
            raise value
        return value


_current: _Helper | None = None
_current_lock = threading.Lock()


def _ask(data: bytes, max_parts: int) -> ParsedEmail:
    # In a worker thread: starting a helper (a fork and an exec) never holds up the event loop.
    return _helper().ask(data, max_parts)


def _helper() -> _Helper:
    global _current
    with _current_lock:
        if _current is None or _current.process.poll() is not None:
            _current = _Helper()
        return _current


def _forget(helper: _Helper) -> None:
    global _current
    with _current_lock:
        if _current is helper:
            _current = None
    helper.process.kill()
    helper.process.wait()


def helper_pid() -> int | None:
    """The helper process's id while it runs (for the tests)."""
    with _current_lock:
        return None if _current is None or _current.process.poll() is not None else _current.process.pid


def _send(stream: IO[bytes], value: object) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(payload)) + payload)
    stream.flush()


def _received(stream: IO[bytes]):
    header = stream.read(_LENGTH.size)
    if len(header) < _LENGTH.size:
        raise EOFError
    (size,) = _LENGTH.unpack(header)
    payload = stream.read(size)
    if len(payload) < size:
        raise EOFError
    return pickle.loads(payload)


def _serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """The helper's loop: a message in, its parse (or why not) out, until the input ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        try:
            data, max_parts = _received(requests)
        except EOFError:
            return  # the serving process is gone
        try:
            answer: tuple = (True, parse(data, max_parts))
        except Exception as exc:  # the parse's own refusal (UnreadableMessage), or a fault to raise there
            answer = (False, exc)
        try:
            _send(answers, answer)
        except pickle.PicklingError:
            _send(answers, (False, RuntimeError(repr(answer[1]))))


if __name__ == "__main__":
    # The answers' pipe is the standard output as started; anything else printing to standard
    # output (a library's warning) goes to the standard error, the serving process's log.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    _serve(sys.stdin.buffer, answers)
