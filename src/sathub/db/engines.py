"""Database engines (SQLite embedded default, PostgreSQL for scale), their connections and the
deadlines those keep on PostgreSQL."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import event

# Connection, Engine and Row are the types a store function takes and answers; handlers name them
# from here, never from SQLAlchemy.
from sqlalchemy.engine import Connection as Connection
from sqlalchemy.engine import Engine as Engine
from sqlalchemy.engine import Row as Row
from sqlalchemy.engine import make_url

from sathub.db.deadlines import CONNECT_SECONDS, PROBE_SECONDS, Deadlines, SilentServer


class SQLiteWriters:
    """SQLite has one writer at a time, and its busy handler makes a waiting writer sleep 1, 2, 5,
    10... ms between tries. So writers queue here instead, each woken as soon as the previous one
    commits: the threads of a process on a lock, the processes on an flock of a file beside the
    database (`<database>-writers.lock`)."""

    def __init__(self, database: str | None) -> None:
        self.threads = threading.Lock()
        self.path = f"{database}-writers.lock" if database and database != ":memory:" else None
        self.file: int | None = None
        self.locked = False

    def __enter__(self) -> None:
        self.threads.acquire()
        if self.path is None:
            return
        try:
            if self.file is None:
                self.file = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(self.file, fcntl.LOCK_EX)
            self.locked = True
        except OSError:  # a read-only folder: SQLite's own lock still keeps writers apart
            pass

    def __exit__(self, *exc) -> None:
        if self.locked and self.file is not None:
            self.locked = False
            fcntl.flock(self.file, fcntl.LOCK_UN)
        self.threads.release()


_sqlite_writers: weakref.WeakKeyDictionary[Engine, SQLiteWriters] = weakref.WeakKeyDictionary()


class DatabaseUnavailable(Exception):
    """The database cannot be reached (connection refused, server down, file unreadable)."""


# What a handler may meet when the database went away under a statement (beside the refusal to
# connect, DatabaseUnavailable): an answer of "unavailable, try again", never a 500.
UNREACHABLE = (DatabaseUnavailable, sa.exc.OperationalError, sa.exc.InterfaceError)
# Any other failure of the database layer.
DatabaseError = sa.exc.SQLAlchemyError
# The failures callers tell apart, named here so that no module outside db/ and the stores
# imports the driver: a refused connection or a lost server, a statement the database refused (its
# driver's error in `.orig`), a unique key another writer took first.
OperationalError = sa.exc.OperationalError
StatementError = sa.exc.StatementError
DBAPIError = sa.exc.DBAPIError
IntegrityError = sa.exc.IntegrityError


def normalize_url(url: str) -> sa.URL:
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif parsed.drivername in ("mysql", "mariadb"):
        parsed = parsed.set(drivername="mysql+pymysql")
    return parsed


# pg_advisory_xact_lock keys: processes starting at once on one PostgreSQL migrate the schema and
# load the default catalog one after the other ("sathub" in ASCII); group commits of several
# processes write one after the other ("sathubw").
STARTUP_LOCK = 0x736174687562
WRITERS_LOCK = 0x73617468756277


def create_engine(url: str, pool_size: int = 5, max_overflow: int = 5, timeout: float | None = None) -> Engine:
    """`timeout`: seconds a `connect` block may take on PostgreSQL before its connection is cut
    (serving; None for commands, whose imports run long)."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(parsed, connect_args={"check_same_thread": False, "timeout": 10})
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        _sqlite_writers[engine] = SQLiteWriters(parsed.database)
        return engine
    if parsed.get_backend_name() != "postgresql":
        return sa.create_engine(
            parsed, pool_size=pool_size, max_overflow=max_overflow, pool_pre_ping=True, pool_timeout=10
        )
    # A server that vanishes without closing its connections (a partition, a dead host) is noticed
    # within seconds: TCP keepalives and a limit on unacknowledged data, not the OS's ~15 minutes.
    connect_args: dict[str, int | str] = {
        "connect_timeout": 3,
        "keepalives": 1,
        "keepalives_idle": 5,
        "keepalives_interval": 1,
        "keepalives_count": 3,
        "tcp_user_timeout": 5000,
    }
    if "options" not in parsed.query:
        # The archive's reply look-ups follow an index ~1,000 times; with the server's default
        # random_page_cost (4, spinning disks) the planner hash-joins the whole emails table
        # instead: 21 instead of 3.7 ms for a 1,000-email sender on 100k emails. A database that
        # fits in memory or on SSD costs what 1.1 says.
        # A search of a common word builds a bitmap of every email that matches: beyond work_mem
        # (the server's default is 4 MB) it goes lossy, and each email of a lossy page is read
        # and tested again, its tsvector from TOAST: at 1,000,000 emails, `gpsd` (871,230) took
        # 2.2 s with 4 MB and 0.7 s with 32 MB, which keeps such a bitmap exact up to about
        # 4,000,000 emails. Memory a statement needs beyond it goes to a temporary file, as before.
        # An `options` in the URL replaces both.
        connect_args["options"] = "-c random_page_cost=1.1 -c work_mem=32MB"
    engine = sa.create_engine(
        parsed, pool_size=pool_size, max_overflow=max_overflow, pool_timeout=10, connect_args=connect_args
    )
    # The engine, weakly: a value of _deadlines that held its key would keep every engine, and the
    # connections of its pool, for as long as the process lives (the test suite's leak).
    engine_ref = weakref.ref(engine)
    deadlines = _deadlines[engine] = Deadlines(lambda: _try_connection(engine_ref, connect_args))
    deadlines.block_seconds = timeout
    if timeout is not None:  # serving: commands wait for the server as psycopg does
        event.listen(
            engine, "do_connect", lambda dialect, _record, cargs, cparams: _open(deadlines, dialect, cargs, cparams)
        )
    # Each checkout pings (as pool_pre_ping would) under a deadline: a connection that died while
    # the server was away is replaced, and a server that stopped answering is noticed.
    event.listen(engine, "checkout", lambda dbapi_connection, *_: _ping(engine, deadlines, dbapi_connection))
    return engine


_deadlines: weakref.WeakKeyDictionary[Engine, Deadlines] = weakref.WeakKeyDictionary()
SILENT = "the database stopped answering"
READ_COMMIT = "sathub_read_commit"  # an execution option: the commit that ends a read (connect)


def deadlines_of(engine: Engine) -> Deadlines | None:
    """The deadlines a PostgreSQL engine keeps (None for SQLite)."""
    return _deadlines.get(engine)


def refuse_while_silent(deadlines: Deadlines | None) -> None:
    """DatabaseUnavailable at once while the server is declared silent: not even a connection
    attempt, it would wait."""
    if deadlines is not None and deadlines.silent_since is not None:
        raise DatabaseUnavailable(SILENT)


def under_deadline(deadlines: Deadlines | None, dbapi_connection, seconds: float | None, *, declare: bool):
    """silence_is_unavailable where there is a deadline to keep (PostgreSQL), else nothing."""
    if deadlines is None or seconds is None:
        return contextlib.nullcontext()
    return _silence_is_unavailable(deadlines, dbapi_connection, seconds, declare=declare)


def _open(deadlines: Deadlines, dialect, cargs, cparams):
    """A new pooled connection, or DatabaseUnavailable once its start-up outlived CONNECT_SECONDS
    or the server was declared silent (by a probe or ping, within PROBE_SECONDS of its silence)."""
    try:
        return deadlines.open(lambda: dialect.connect(*cargs, **cparams), CONNECT_SECONDS)
    except SilentServer as exc:
        raise DatabaseUnavailable(SILENT) from exc


def _ping(engine: Engine, deadlines: Deadlines, dbapi_connection) -> None:
    refuse_while_silent(deadlines)
    with _silence_is_unavailable(deadlines, dbapi_connection, PROBE_SECONDS, declare=True):
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:
            raise sa.exc.DisconnectionError(str(exc)) from exc  # the pool opens a new connection


@contextlib.contextmanager
def _silence_is_unavailable(deadlines: Deadlines, dbapi_connection, seconds: float, *, declare: bool):
    """Run the block under a deadline; an error after the watchdog cut the connection is
    DatabaseUnavailable (and, with `declare`, for a trivial query, the server is declared silent
    unless it answered something else meanwhile: Deadlines.gave_up)."""
    with deadlines.watch(dbapi_connection, seconds, trivial=declare) as watch:
        try:
            yield
        except Exception as exc:
            if not watch.fired:
                raise
            if declare and deadlines.gave_up(watch.heard_after):
                raise DatabaseUnavailable(SILENT) from exc
            raise DatabaseUnavailable(f"no answer within {seconds:g} s") from exc


def _try_connection(engine_ref: weakref.ref[Engine], connect_args: dict) -> None:
    """A new connection outside the pool, a trivial query, closed: does the server answer again?"""
    engine = engine_ref()
    if engine is None:
        raise DatabaseUnavailable("its engine is gone")
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    dbapi_connection = engine.dialect.connect(*args, **{**kwargs, **connect_args})
    try:
        with _deadlines[engine].watch(dbapi_connection, PROBE_SECONDS):
            engine.dialect.do_ping(dbapi_connection)
    finally:
        dbapi_connection.close()
    engine.pool.dispose()  # idle connections of before the silence: new ones instead


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None  # transactions are begun by _sqlite_begin
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # Reads come from the OS page cache through a mapping instead of one read() per page: a
    # scattered 1,000-email sender on a 1M-message archive drops from ~17 to ~13.5 ms.
    cursor.execute("PRAGMA mmap_size=1073741824")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    if conn.get_execution_options().get("isolation_level") == "AUTOCOMMIT":
        return  # RevisionProbe's connection: each statement on its own
    # Writers take the write lock up front, so two processes never deadlock upgrading read locks.
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.get("write") else "BEGIN")


def one_at_a_time(conn: Connection, key: int = STARTUP_LOCK) -> None:
    """Make the transactions that take this lock wait for each other until the holder's ends: an
    advisory lock on PostgreSQL; SQLite's writers already take its lock up front (BEGIN IMMEDIATE)."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


@contextlib.contextmanager
def connect(engine: Engine, *, write: bool = False, snapshot: bool = False) -> Iterator[Connection]:
    """A connection (in a transaction when write=True); a failure to connect becomes DatabaseUnavailable.

    `snapshot`: every statement of the block reads one snapshot, so that a row committed between
    two of them (a list made private between the privacy check and the rows) is never half seen.
    PostgreSQL reads in REPEATABLE READ for that (READ COMMITTED, its default, takes a snapshot per
    statement); SQLite's read is one transaction from its first statement already."""
    deadlines = _deadlines.get(engine)
    refuse_while_silent(deadlines)
    writers = _sqlite_writers.get(engine) if write else None
    with writers or contextlib.nullcontext():
        try:
            conn = engine.connect()
        except sa.exc.DBAPIError as exc:
            raise DatabaseUnavailable(str(exc.orig)) from exc
        except sa.exc.TimeoutError as exc:  # every pooled connection stayed busy for pool_timeout
            raise DatabaseUnavailable("no free database connection") from exc
        with (
            conn,
            under_deadline(
                deadlines,
                conn.connection.dbapi_connection,
                deadlines.block_seconds if deadlines else None,
                declare=False,
            ),
        ):
            try:
                if write:
                    conn.info["write"] = True  # for _sqlite_begin, which runs within begin()
                    try:
                        transaction = conn.begin()
                    finally:
                        conn.info.pop("write", None)
                    with transaction:
                        yield conn
                else:
                    if snapshot and conn.dialect.name == "postgresql":
                        conn.execution_options(isolation_level="REPEATABLE READ")
                    yield conn
                    if conn.dialect.name == "postgresql" and conn.in_transaction():
                        # A read ends with a commit, which writes nothing: psycopg forgets all of
                        # a connection's prepared statements at a rollback, and then every read
                        # through the pool parses and plans its statements again (0.6 ms of a
                        # search's 1.5 ms statement).
                        conn.execution_options(**{READ_COMMIT: True})
                        conn.commit()
            finally:
                # Closing rolls back the transaction a read's first statement began: a round trip
                # too, which a server that froze meanwhile would never answer.
                conn.close()
