"""Database engines (SQLite embedded default, PostgreSQL for scale) and schema upgrades."""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine, make_url

from sathub.deadlines import CONNECT_SECONDS, PROBE_SECONDS, Deadlines, SilentServer

metadata = sa.MetaData()
T = TypeVar("T")

MIGRATIONS = Path(__file__).parent / "migrations"



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
        if self.locked:
            self.locked = False
            fcntl.flock(self.file, fcntl.LOCK_UN)
        self.threads.release()


_sqlite_writers: weakref.WeakKeyDictionary[Engine, SQLiteWriters] = weakref.WeakKeyDictionary()


class DatabaseUnavailable(Exception):
    """The database cannot be reached (connection refused, server down, file unreadable)."""


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
        return sa.create_engine(parsed, pool_size=pool_size, max_overflow=max_overflow, pool_pre_ping=True,
                                pool_timeout=10)
    # A server that vanishes without closing its connections (a partition, a dead host) is noticed
    # within seconds: TCP keepalives and a limit on unacknowledged data, not the OS's ~15 minutes.
    connect_args = {"connect_timeout": 3, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 1,
                    "keepalives_count": 3, "tcp_user_timeout": 5000}
    if "options" not in parsed.query:
        # The archive's reply look-ups follow an index ~1,000 times; with the server's default
        # random_page_cost (4, spinning disks) the planner hash-joins the whole emails table
        # instead: 21 instead of 3.7 ms for a 1,000-email sender on 100k emails. A database that
        # fits in memory or on SSD costs what 1.1 says. An `options` in the URL replaces this.
        connect_args["options"] = "-c random_page_cost=1.1"
    engine = sa.create_engine(parsed, pool_size=pool_size, max_overflow=max_overflow, pool_timeout=10,
                              connect_args=connect_args)
    deadlines = _deadlines[engine] = Deadlines(lambda: _try_connection(engine, connect_args))
    deadlines.block_seconds = timeout
    if timeout is not None:  # serving: commands wait for the server as psycopg does
        event.listen(engine, "do_connect",
                     lambda dialect, _record, cargs, cparams: _open(deadlines, dialect, cargs, cparams))
    # Each checkout pings (as pool_pre_ping would) under a deadline: a connection that died while
    # the server was away is replaced, and a server that stopped answering is noticed.
    event.listen(engine, "checkout", lambda dbapi_connection, *_: _ping(engine, deadlines, dbapi_connection))
    return engine


_deadlines: weakref.WeakKeyDictionary[Engine, Deadlines] = weakref.WeakKeyDictionary()
SILENT = "the database stopped answering"


def _refuse_while_silent(deadlines: Deadlines | None) -> None:
    """DatabaseUnavailable at once while the server is declared silent: not even a connection
    attempt, it would wait."""
    if deadlines is not None and deadlines.silent_since is not None:
        raise DatabaseUnavailable(SILENT)


def _under_deadline(deadlines: Deadlines | None, dbapi_connection, seconds: float | None, *, declare: bool):
    """_silence_is_unavailable where there is a deadline to keep (PostgreSQL), else nothing."""
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
    _refuse_while_silent(deadlines)
    with _silence_is_unavailable(deadlines, dbapi_connection, PROBE_SECONDS, declare=True):
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:
            raise sa.exc.DisconnectionError(str(exc)) from exc  # the pool opens a new connection


@contextlib.contextmanager
def _silence_is_unavailable(deadlines: Deadlines, dbapi_connection, seconds: float, *, declare: bool):
    """Run the block under a deadline; an error after the watchdog cut the connection is
    DatabaseUnavailable (and, with `declare`, the server is declared silent)."""
    with deadlines.watch(dbapi_connection, seconds) as watch:
        try:
            yield
        except Exception as exc:
            if not watch.fired:
                raise
            if declare:
                deadlines.declare_silent()
            raise DatabaseUnavailable(SILENT if declare else f"no answer within {seconds:g} s") from exc


def _try_connection(engine: Engine, connect_args: dict) -> None:
    """A new connection outside the pool, a trivial query, closed: does the server answer again?"""
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
def connect(engine: Engine, *, write: bool = False) -> Iterator[Connection]:
    """A connection (in a transaction when write=True); a failure to connect becomes DatabaseUnavailable."""
    deadlines = _deadlines.get(engine)
    _refuse_while_silent(deadlines)
    writers = _sqlite_writers.get(engine) if write else None
    with writers or contextlib.nullcontext():
        try:
            conn = engine.connect()
        except sa.exc.DBAPIError as exc:
            raise DatabaseUnavailable(str(exc.orig)) from exc
        except sa.exc.TimeoutError as exc:  # every pooled connection stayed busy for pool_timeout
            raise DatabaseUnavailable("no free database connection") from exc
        with conn, _under_deadline(deadlines, conn.connection.dbapi_connection,
                                   deadlines and deadlines.block_seconds, declare=False):
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
                    yield conn
            finally:
                # Closing rolls back the transaction a read's first statement began: a round trip
                # too, which a server that froze meanwhile would never answer.
                conn.close()


def dialect_insert(conn: Connection):
    """The dialect's INSERT, which offers ON CONFLICT DO NOTHING / DO UPDATE (SQLite, PostgreSQL)."""
    return insert_for(conn.dialect.name)


def insert_for(dialect_name: str):
    """dialect_insert by the dialect's name, for statements built once per dialect."""
    return postgresql.insert if dialect_name == "postgresql" else sqlite.insert


def upgrade(engine: Engine) -> None:
    """Create or migrate the schema to the newest revision."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with connect(engine, write=True) as conn:
        one_at_a_time(conn)  # the second of two processes finds the schema migrated, not half-made
        config.attributes["connection"] = conn
        command.upgrade(config, "head")


class RevisionProbe:
    """Reads the one-row data revision (migration 0001) on a dedicated autocommit connection per
    thread: checking out a pooled SQLAlchemy connection and its transaction costs ~40 times the
    query itself, and every cached read starts with this query. The connection keeps one cursor
    for it, and on PostgreSQL the query is a prepared statement (no parse or plan per request).
    `execute` runs another statement on the same connection: a read that also reads the revision
    can stand in for the probe."""

    QUERY = "SELECT revision FROM data_revision WHERE id = 1"
    _PREPARED = b"sathub_revision"  # its name on PostgreSQL
    # How long a commit or a read of this process vouches that the database is there.
    ALIVE_FOR = 0.25

    def __init__(self, engine: Engine):
        self.engine = engine
        self.local = threading.local()
        self.alive_at = float("-inf")
        self._psycopg = importlib.import_module("psycopg") if engine.dialect.name == "postgresql" else None
        event.listen(engine, "commit", self._alive)

    def _alive(self, *_) -> None:
        self.alive_at = time.monotonic()

    def check(self) -> None:
        """Raise DatabaseUnavailable unless the database answered this process very recently
        (a write's check before its body: under a burst of writes, their commits vouch for it,
        without one more round trip per request on the event loop)."""
        if time.monotonic() - self.alive_at > self.ALIVE_FOR:
            self.read()

    def read(self) -> int:
        return self._run(self._revision)

    def _revision(self, conn: Connection, cursor) -> int:
        if self._psycopg:
            # Through psycopg's libpq wrapper: its cursor took 12 of the 44 µs a probe costs here.
            result = self._ok(cursor.connection.pgconn.exec_prepared(self._PREPARED, []), "TUPLES_OK")
            return int(result.get_value(0, 0))
        cursor.execute(self.QUERY)
        return cursor.fetchone()[0]

    def _ok(self, result, status: str):
        if result.status != self._psycopg.pq.ExecStatus[status]:
            raise self._psycopg.OperationalError(result.get_error_message().decode(errors="replace"))
        return result

    def execute(self, statement: sa.Executable, parameters: dict) -> list[sa.Row]:
        return self._run(lambda conn, cursor: conn.execute(statement, parameters).all())

    def _run(self, work: Callable[[Connection, object], T]) -> T:
        try:
            return self._once(work)
        except DatabaseUnavailable:  # the server stopped answering: no second wait
            self._discard()
            raise
        except Exception:  # a connection that died with its server: try once more on a new one
            self._discard()
        try:
            return self._once(work)
        except Exception as exc:
            self._discard()
            raise exc if isinstance(exc, DatabaseUnavailable) else DatabaseUnavailable(str(exc)) from exc

    def _once(self, work: Callable[[Connection, object], T]) -> T:
        deadlines = _deadlines.get(self.engine)
        _refuse_while_silent(deadlines)
        conn = getattr(self.local, "conn", None)
        if conn is None:
            # Autocommit, so that no read holds a snapshot; detached, so that it never goes back
            # to the pool in that mode for someone else.
            conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            conn.detach()
            self.local.conn = conn
            self.local.cursor = conn.connection.dbapi_connection.cursor()
            if self._psycopg:
                self._ok(conn.connection.dbapi_connection.pgconn.prepare(self._PREPARED, self.QUERY.encode()),
                         "COMMAND_OK")
        cursor = self.local.cursor
        # This runs on the event loop: a server that stopped answering must not stop it.
        with _under_deadline(deadlines, cursor.connection, PROBE_SECONDS, declare=True):
            result = work(conn, cursor)
        self.alive_at = time.monotonic()
        return result

    def _discard(self) -> None:
        conn = getattr(self.local, "conn", None)
        self.local.conn = self.local.cursor = None
        if conn is not None:
            try:
                conn.invalidate()
            except Exception:
                pass
