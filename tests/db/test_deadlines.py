"""deadlines.py: a connection whose server went silent is cut at its deadline, never another
socket; a silent server is retried in the background until it answers."""

import socket
import threading
import time

import pytest

from sathub.db.deadlines import Deadlines, SilentServer


class Peer:
    """A connected socket whose other end never answers: what a frozen server looks like."""

    def __init__(self) -> None:
        self.mine, self.theirs = socket.socketpair()

    def fileno(self) -> int:
        return self.mine.fileno()

    def close(self) -> None:
        self.mine.close()
        self.theirs.close()


def test_a_wait_past_its_deadline_is_cut_and_one_within_it_is_not():
    deadlines, silent, quick = Deadlines(lambda: None), Peer(), Peer()
    started = time.monotonic()
    with deadlines.watch(silent, 0.2) as watch:
        assert silent.mine.recv(1) == b""  # the wait ends: the socket was shut down
    assert watch.fired and 0.2 <= time.monotonic() - started < 1.0
    with deadlines.watch(quick, 0.2) as watch:
        quick.theirs.sendall(b"x")
        assert quick.mine.recv(1) == b"x"
    time.sleep(0.3)
    assert not watch.fired
    quick.theirs.sendall(b"y")  # the socket outlives its watch untouched
    assert quick.mine.recv(1) == b"y"
    silent.close()
    quick.close()


def test_declaring_the_server_silent_cuts_every_watched_connection_then_retries_until_it_answers():
    answers = threading.Event()

    def try_connection() -> None:
        if not answers.is_set():
            raise OSError("no answer")

    deadlines, peers = Deadlines(try_connection), [Peer(), Peer()]
    ended = []

    def wait(peer: Peer) -> None:
        with deadlines.watch(peer, 60):
            ended.append(peer.mine.recv(1))

    waiters = [threading.Thread(target=wait, args=(peer,)) for peer in peers]
    for waiter in waiters:
        waiter.start()
    time.sleep(0.1)
    deadlines.declare_silent()
    for waiter in waiters:
        waiter.join(2)
    assert ended == [b"", b""]
    time.sleep(0.5)
    assert deadlines.silent_since is not None  # the attempts fail while it stays silent
    answers.set()
    deadline = time.monotonic() + 2
    while deadlines.silent_since is not None:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    for peer in peers:
        peer.close()


def test_a_closed_descriptor_number_reused_by_another_socket_is_never_cut():
    deadlines, first = Deadlines(lambda: None), Peer()
    with pytest.raises(OSError), deadlines.watch(first, 0.1):
        number = first.mine.fileno()
        first.close()  # the driver closed its socket while watched...
        other = Peer()  # ...and the number may now belong to someone else
        time.sleep(0.3)
        other.theirs.sendall(b"z")
        assert other.mine.recv(1) == b"z"  # untouched
        raise OSError(number)
    other.close()


class Opened:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_a_connection_attempt_is_given_up_when_the_server_is_declared_silent_and_closed_if_it_opens_after_all():
    deadlines, release, opened = Deadlines(lambda: None), threading.Event(), Opened()

    def connect() -> Opened:
        release.wait(5)
        return opened

    threading.Timer(0.1, deadlines.declare_silent).start()
    started = time.monotonic()
    with pytest.raises(SilentServer):
        deadlines.open(connect, 60)
    assert time.monotonic() - started < 0.5
    release.set()
    deadline = time.monotonic() + 2
    while not opened.closed:
        assert time.monotonic() < deadline, "the late connection was left open"
        time.sleep(0.01)


def test_a_connection_attempt_past_its_deadline_declares_the_server_silent():
    deadlines, release = Deadlines(lambda: None), threading.Event()
    started = time.monotonic()
    with pytest.raises(SilentServer):
        deadlines.open(lambda: release.wait(5) and Opened(), 0.2)
    assert 0.2 <= time.monotonic() - started < 0.5
    assert deadlines.silent_since is not None
    with pytest.raises(SilentServer):
        deadlines.open(Opened, 60)  # not even tried while silent
    release.set()


def test_a_connection_attempt_that_ends_in_time_gives_its_connection_or_its_error():
    deadlines, opened = Deadlines(lambda: None), Opened()
    assert deadlines.open(lambda: opened, 1) is opened and not opened.closed

    def refused():
        raise ConnectionRefusedError("refused")

    with pytest.raises(ConnectionRefusedError):
        deadlines.open(refused, 1)
    assert deadlines.silent_since is None
