"""deadlines.py: a connection whose server went silent is cut at its deadline, never another
socket; a silent server is retried in the background until it answers."""

import ctypes
import socket
import threading
import time

import pytest

from sathub import db
from sathub.db.deadlines import PROBE_SECONDS, Deadlines, SilentServer
from sathub.db.engines import deadlines_of, under_deadline
from sathub.db.revision_probe import RevisionProbe
from tests.conftest import BACKENDS
from tests.live_server import free_port
from tests.tcp_proxy import TcpProxy

# How much later than its deadline a wait may end: the watchdog's tick (50 ms), and a busy 2-core
# machine's scheduling delays (up to 0.13 s seen beside ten CPU hogs), with room to spare.
MARGIN = 0.5


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
    assert watch.fired and 0.2 <= time.monotonic() - started < 0.2 + MARGIN
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
    assert time.monotonic() - started < 0.1 + MARGIN  # declared silent at 0.1 s: given up then, not at 60
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
    assert 0.2 <= time.monotonic() - started < 0.2 + MARGIN
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


# -- a starved process is not a silent server ------------------------------------------------------

LIBC = ctypes.PyDLL(None)  # its calls keep the GIL: while one runs, no other thread of the process does


def starve(seconds: float) -> None:
    """Stop every thread of this process for `seconds` (as a machine too busy to run it would):
    this thread sleeps holding the GIL."""
    LIBC.usleep(int(seconds * 1_000_000))


def test_an_answer_that_came_while_the_process_was_starved_is_not_cut():
    """The server answered at once; the process got no CPU to read it, the watchdog none either.
    Once they run again, the time they lost is not the server's."""
    deadlines, peer = Deadlines(lambda: None), Peer()
    with deadlines.watch(peer, 0.3, trivial=True) as watch:
        peer.theirs.sendall(b"x")
        starve(1.0)
        time.sleep(0.1)  # the watchdog's turn
        assert peer.mine.recv(1) == b"x"
    assert not watch.fired
    peer.close()


def test_a_connection_attempt_the_starved_process_could_not_finish_in_time_is_not_given_up():
    deadlines, opened = Deadlines(lambda: None), Opened()

    def connect() -> Opened:
        for _ in range(4):  # a start-up is several round trips; the server answers each at once...
            time.sleep(0.03)
        return opened

    threading.Timer(0.02, starve, args=(1.0,)).start()  # ...the process gets no CPU for a while
    assert deadlines.open(connect, 0.3) is opened
    assert deadlines.silent_since is None


def test_a_trivial_query_whose_answer_waits_unread_at_its_deadline_gets_one_more():
    """The thread that reads the answer was not scheduled in time (it is not the server's fault)."""
    deadlines, peer = Deadlines(lambda: None), Peer()
    with deadlines.watch(peer, 0.2, trivial=True) as watch:
        peer.theirs.sendall(b"x")
        time.sleep(0.3)
        assert peer.mine.recv(1) == b"x"
    assert not watch.fired
    with deadlines.watch(peer, 0.2) as watch:  # a request's work has one deadline, answered or not
        peer.theirs.sendall(b"y")
        time.sleep(0.3)
    assert watch.fired
    peer.close()


def test_a_slow_trivial_query_while_the_server_answers_others_is_cut_later_and_declares_nothing():
    deadlines, slow, quick = Deadlines(lambda: None), Peer(), Peer()
    started = time.monotonic()
    with deadlines.watch(slow, 0.2, trivial=True) as watch:
        time.sleep(0.15)
        with deadlines.watch(quick, 0.2):
            quick.theirs.sendall(b"x")
            assert quick.mine.recv(1) == b"x"  # the server answered another connection meanwhile
        assert slow.mine.recv(1) == b""  # cut, after its second deadline
    assert watch.fired and time.monotonic() - started >= 0.4
    assert not deadlines.gave_up(watch.heard_after) and deadlines.silent_since is None
    slow.close()
    quick.close()


def test_an_answer_in_the_first_half_of_a_wait_does_not_vouch_for_the_server():
    """Answers already on their way when a server froze arrive just after: they say nothing of it now."""
    deadlines, silent, quick = Deadlines(lambda: None), Peer(), Peer()
    with deadlines.watch(silent, 0.4, trivial=True) as watch:
        with deadlines.watch(quick, 0.4):
            quick.theirs.sendall(b"x")
            assert quick.mine.recv(1) == b"x"
        assert silent.mine.recv(1) == b""  # cut at its deadline
    assert deadlines.gave_up(watch.heard_after) and deadlines.silent_since is not None
    silent.close()
    quick.close()


def test_a_trivial_query_of_a_server_that_answers_nothing_is_cut_at_its_deadline_and_declares_it_silent():
    def no_answer() -> None:
        raise OSError("no answer")

    deadlines, silent = Deadlines(no_answer), Peer()
    started = time.monotonic()
    with deadlines.watch(silent, 0.2, trivial=True) as watch:
        assert silent.mine.recv(1) == b""
    elapsed = time.monotonic() - started
    assert watch.fired and 0.2 <= elapsed < 0.2 + MARGIN
    assert deadlines.gave_up(watch.heard_after) and deadlines.silent_since is not None
    silent.close()


def test_a_connection_attempt_while_the_server_answers_others_is_given_up_after_a_second_deadline_undeclared():
    deadlines, release, quick = Deadlines(lambda: None), threading.Event(), Peer()

    def answer_another() -> None:
        with deadlines.watch(quick, 1):
            quick.theirs.sendall(b"x")
            quick.mine.recv(1)

    threading.Timer(0.15, answer_another).start()  # in the second half of the first deadline
    started = time.monotonic()
    with pytest.raises(SilentServer):
        deadlines.open(lambda: release.wait(5) and Opened(), 0.2)
    assert 0.4 <= time.monotonic() - started < 0.4 + MARGIN
    assert deadlines.silent_since is None
    release.set()
    quick.close()


# -- on PostgreSQL: a starved process keeps its server; a frozen server is still noticed at once -----

on_postgresql = pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)


@pytest.fixture
def serving_engine(engine, database_url):
    """A serving engine (deadlines on every block) on the migrated database, through a TCP proxy
    the test may freeze (tests/tcp_proxy.py)."""
    proxy = TcpProxy(free_port(), ("127.0.0.1", db.normalize_url(database_url).port or 5432))
    proxy.start()
    url = db.normalize_url(database_url).set(host="127.0.0.1", port=proxy.port)
    serving = db.create_engine(url.render_as_string(hide_password=False), timeout=10)
    yield serving, proxy
    serving.dispose()
    proxy.stop()


@on_postgresql
def test_a_starved_process_does_not_declare_its_server_silent(serving_engine):
    """Issue 40: under load 8-14 on 2 cores, a live PostgreSQL was declared silent and real
    requests got 503. Here the process gets the CPU a twentieth of the time for 3 s."""
    engine, _ = serving_engine
    probe = RevisionProbe(engine)
    probe.read()
    running = True

    def hog() -> None:
        while running:
            starve(0.6)
            time.sleep(0.03)

    hogging = threading.Thread(target=hog)
    hogging.start()
    try:
        ended = time.monotonic() + 3
        while time.monotonic() < ended:
            probe.read()  # its query is trivial: 0.5 s, on the wall clock, was its deadline
    finally:
        running = False
        hogging.join()
        probe.close()
    assert deadlines_of(engine).silent_since is None


@on_postgresql
def test_a_frozen_server_is_declared_silent_at_the_probes_deadline(serving_engine):
    engine, proxy = serving_engine
    probe = RevisionProbe(engine)
    probe.read()
    proxy.blackhole()
    started = time.monotonic()
    with pytest.raises(db.DatabaseUnavailable, match=db.SILENT):
        probe.read()
    assert time.monotonic() - started < PROBE_SECONDS + MARGIN
    with pytest.raises(db.DatabaseUnavailable, match=db.SILENT), db.connect(engine):
        pass  # refused at once: declared silent
    proxy.restore()
    probe.close()


@on_postgresql
def test_a_slow_trivial_query_while_the_server_answers_others_is_one_503_not_an_outage(serving_engine):
    engine, _ = serving_engine
    deadlines = deadlines_of(engine)
    answering = True

    def others() -> None:
        while answering:
            with db.connect(engine) as conn:
                conn.exec_driver_sql("SELECT 1")
            time.sleep(0.02)

    other = threading.Thread(target=others)
    other.start()
    try:
        slow = engine.raw_connection()
        try:
            with (
                pytest.raises(db.DatabaseUnavailable, match="no answer within"),
                under_deadline(deadlines, slow.dbapi_connection, PROBE_SECONDS, declare=True),
            ):
                slow.dbapi_connection.execute("SELECT pg_sleep(3)")
        finally:
            slow.invalidate()
    finally:
        answering = False
        other.join()
    assert deadlines.silent_since is None
