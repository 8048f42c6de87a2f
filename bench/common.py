"""What the benchmarks share: where things are, scratch databases, server processes, wrk and its
output, CPU time, and the facts each result is labelled with (code version, machine, database).
The clients that time requests are in bench/clients.py."""

from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from sathub import db

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
WRK_SCRIPTS = ROOT / "bench" / "wrk"
MAIL = ROOT.parent / "shared" / "data" / "mail"
# A PostgreSQL server URL without a database name; the benchmarks create their own databases.
PG_SERVER = os.environ.get("SATHUB_BENCH_PG", "postgresql://postgres@127.0.0.1:5432").rstrip("/")
# The HTTP edge `sathub serve` runs (cli.serve); the static and miss servers run it too.
HTTP_PROTOCOL = "sathub.server.http_protocol:GuardedHttpToolsProtocol"


# Databases ---------------------------------------------------------------------------------------


def pg_url(database: str) -> str:
    return f"{PG_SERVER}/{database}"


def postgres_running() -> bool:
    engine = sa.create_engine(db.normalize_url(pg_url("postgres")), connect_args={"connect_timeout": 2})
    try:
        with engine.connect():
            return True
    except sa.exc.SQLAlchemyError:
        return False
    finally:
        engine.dispose()


def recreate_database(url: str) -> None:
    """An empty database at `url`: the SQLite file (and its WAL) deleted, the PostgreSQL database
    dropped and created again."""
    parsed = db.normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = Path(parsed.database)
        path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return
    admin = sa.create_engine(parsed.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{parsed.database}"')
    admin.dispose()


def database_exists(url: str) -> bool:
    parsed = db.normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        return Path(parsed.database).exists()
    admin = sa.create_engine(parsed.set(database="postgres"))
    try:
        with admin.connect() as conn:
            return (
                conn.execute(
                    sa.text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": parsed.database}
                ).first()
                is not None
            )
    finally:
        admin.dispose()


def vacuum_analyze(engine: sa.Engine) -> None:
    """On PostgreSQL, VACUUM ANALYZE (not timed), as autovacuum would in a deployment after a load
    or a burst of writes. This machine's server runs with autovacuum off
    (/etc/postgresql/15/main/conf.d/90-ci.conf): statistics gathered when every report_hours row
    had one revision made the summary's changes a sequential scan of the table and its dead rows
    (16 ms, then 0.06 ms after ANALYZE), and a burst beside summary.php readers ran at a quarter
    of its speed alone."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE")


def scratch_sqlite(label: str) -> str:
    url = f"sqlite:///{OUT / f'scratch_{label}.db'}"
    recreate_database(url)
    return url


def scratch_postgres(label: str) -> tuple[str, callable]:
    """A new PostgreSQL database of its own name, and the function that drops it."""
    url = pg_url(f"sathub_bench_{label}_{uuid.uuid4().hex[:6]}")
    recreate_database(url)

    def drop() -> None:
        admin = sa.create_engine(db.normalize_url(pg_url("postgres")), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{db.normalize_url(url).database}" WITH (FORCE)')
        admin.dispose()

    return url, drop


def report_count(url: str) -> int:
    """Reports in the database; 0 when it or its schema does not exist yet."""
    if not database_exists(url):
        return 0
    engine = sa.create_engine(db.normalize_url(url))
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT count(*) FROM reports")).scalar()
    except sa.exc.SQLAlchemyError:
        return 0
    finally:
        engine.dispose()


# Servers -----------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A server process in its own process group (its workers stop with it), its output appended
    to a log file under bench/out/."""

    def __init__(self, command: list[str], port: int, log: Path, env: dict | None = None):
        self.command, self.port, self.log, self.env = command, port, log, env or {}
        self.process: subprocess.Popen | None = None
        self.base = f"http://127.0.0.1:{port}"

    @classmethod
    def sathub(
        cls,
        database_url: str,
        *,
        workers: int = 2,
        port: int | None = None,
        log: str = "server",
        env: dict | None = None,
    ) -> Server:
        """`sathub serve` as deployed, but for the limits per client address, off: report POSTs a
        minute, and the archive's search and export budgets, since a benchmark's clients, all on
        127.0.0.1, stand for many (bench/archive_crawler.py turns the budgets back on)."""
        port = port or free_port()
        return cls(
            [
                sys.executable,
                "-m",
                "sathub",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--database-url",
                database_url,
            ],
            port,
            OUT / f"{log}.log",
            {
                "SATHUB_LOG_LEVEL": "warning",
                "SATHUB_API_RATE_PER_MINUTE": "0",
                "SATHUB_SEARCH_BUDGET": "0",
                "SATHUB_EXPORT_BUDGET": "0",
                **(env or {}),
            },
        )

    @classmethod
    def uvicorn(cls, factory: str, *, workers: int = 2, log: str, env: dict) -> Server:
        """An app factory (`bench.module:create`) under the uvicorn settings `sathub serve` uses."""
        port = free_port()
        return cls(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--app-dir",
                str(ROOT),
                "--factory",
                factory,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--loop",
                "uvloop",
                "--http",
                HTTP_PROTOCOL,
                "--no-access-log",
                "--no-server-header",
                "--proxy-headers",
                "--log-level",
                "warning",
            ],
            port,
            OUT / f"{log}.log",
            env,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def start(self) -> Server:
        OUT.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.command,
                env={**os.environ, **self.env},
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def wait_up(self, path: str = "/api/v1/statuses.php", timeout: float = 60) -> float:
        """Seconds until `path` gets an HTTP answer (any status)."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                tail = self.log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{self.command[2:4]} on {self.port} exited {self.process.returncode}:\n{tail}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
                    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
                    if sock.recv(16).startswith(b"HTTP/1.1 "):
                        return time.monotonic() - started
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server on {self.port} did not come up within {timeout} s; see {self.log}")

    def kill9(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def __enter__(self) -> Server:
        self.start()
        self.wait_up()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# wrk ---------------------------------------------------------------------------------------------

UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def require_wrk() -> None:
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install -y wrk")


def wrk_command(
    url: str,
    seconds: float,
    connections: int = 64,
    *,
    threads: int = 1,
    headers: tuple = (),
    script: str | None = None,
    script_args: tuple = (),
) -> list[str]:
    command = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--latency",
        "--timeout",
        "5s",
    ]  # wrk takes whole seconds
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", str(WRK_SCRIPTS / script)]
    return [*command, url, *(["--", *script_args] if script_args else [])]


def wrk(url: str, seconds: float, connections: int = 64, **options) -> dict:
    """One wrk run: req/s, p50 and p99 (ms), requests, non-2xx answers, socket errors."""
    done = subprocess.run(wrk_command(url, seconds, connections, **options), capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"wrk exited {done.returncode}: {done.stdout}{done.stderr}")
    return parse_wrk(done.stdout)


def parse_wrk(text: str) -> dict:
    def latency(percent: str) -> float:
        value, unit = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M).groups()
        return float(value) * UNITS[unit]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    sockets = re.search(r"Socket errors: (.*)", text)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
        "p50": latency("50"),
        "p99": latency("99"),
        "requests": int(re.search(r"(\d+) requests in", text).group(1)),
        "errors": int(errors.group(1)) if errors else 0,
        "socket": sockets.group(1) if sockets else "",
        "text": text,
    }


# CPU time: per request, a figure the machine's other jobs disturb far less than req/s -------------


def group_cpu_seconds(pgid: int) -> float:
    """CPU time used so far by the processes of a process group (a server and its workers)."""
    return _cpu_seconds(lambda command, fields: int(fields[2]) == pgid)


def postgres_cpu_seconds() -> float:
    """CPU time used so far by PostgreSQL's processes on this machine."""
    return _cpu_seconds(lambda command, fields: command == "postgres")


def _cpu_seconds(counted) -> float:
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            head, tail = stat.read_text().rsplit(")", 1)
        except OSError:  # the process ended meanwhile
            continue
        fields = tail.split()  # after the command name: utime and stime are fields 14 and 15 of proc(5)
        if counted(head.split("(", 1)[1], fields):
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


# What a result is labelled with -------------------------------------------------------------------


def code_version() -> str:
    """The commit the run measured (others commit to the same tree while benchmarks run)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=ROOT, capture_output=True, text=True)
    return head.stdout.strip() + (" + uncommitted src changes" if dirty.stdout.strip() else "")


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"


def now_utc() -> str:
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"


def label(what: str) -> str:
    """The line above every result table: what ran, on which code, when, on what machine."""
    return f"{what}; code {code_version()}; {now_utc()}; {machine()}."


def database_facts(url: str) -> str:
    engine = sa.create_engine(db.normalize_url(url))
    try:
        with engine.connect() as conn:
            reports = conn.execute(sa.text("SELECT count(*) FROM reports")).scalar()
            version = conn.execute(
                sa.text("SELECT sqlite_version()" if engine.dialect.name == "sqlite" else "SHOW server_version")
            ).scalar()
    finally:
        engine.dispose()
    return f"{engine.dialect.name} {version.split()[0]}, {reports:,} reports"


def backend_of(url: str) -> str:
    return db.normalize_url(url).get_backend_name()


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def write_out(name: str, text: str) -> Path:
    """Print a result and keep it as bench/out/<name> (bench/run.py gathers them)."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / name
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    print(text, flush=True)
    return path
