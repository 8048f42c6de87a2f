"""Shared pieces of the fault scripts (issue 14, "Proven under faults"): fresh databases, `sathub
serve` processes with their logs kept, a small keep-alive HTTP/1.1 client on asyncio (cheap on
CPU, exact about timeouts), the report bodies (30 % into a set of hot slots) and the check that
every acknowledged report is stored.

Not a benchmark by itself: bench/status_faults_*.py and bench/status_soak.py import it."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
OUT = ROOT / "bench" / "out"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from status_load import code_version  # noqa: E402,F401  (re-exported for the scripts)

from sathub import db  # noqa: E402
from sathub.status.rules import period_of_minute  # noqa: E402
from tests.tcp_proxy import TcpProxy  # noqa: E402,F401  (re-exported for the scripts)

PG_BASE = os.environ.get("SATHUB_FAULTS_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
VALUES = ("Heard", "Telemetry Only", "Not Heard", "Crew Active")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fresh_postgres(label: str) -> tuple[str, callable]:
    name = f"sathub_faults_{label}_{uuid.uuid4().hex[:6]}"
    admin = sa.create_engine(db.normalize_url(PG_BASE), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = db.normalize_url(PG_BASE).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()

    return url, drop


def fresh_sqlite(label: str) -> str:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"faults_{label}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite:///{path}"


class Server:
    """`sathub serve` in its own process group, stderr appended to a log file."""

    def __init__(self, database_url: str, port: int, log: Path, workers: int = 1, env: dict | None = None):
        self.database_url, self.port, self.log, self.workers = database_url, port, log, workers
        self.env = env or {}
        self.process: subprocess.Popen | None = None
        self.base = f"http://127.0.0.1:{port}"

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [str(BIN / "sathub"), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 "--workers", str(self.workers)],
                env={**os.environ, "SATHUB_DATABASE_URL": self.database_url, "SATHUB_LOG_LEVEL": "warning",
                     **self.env},
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_up(self, timeout: float = 60) -> float:
        """Seconds until statuses.php answers 200 (it needs no database)."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"sathub serve on {self.port} exited {self.process.returncode}; see {self.log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    sock.sendall(b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    if sock.recv(64).startswith(b"HTTP/1.1 200"):
                        return time.monotonic() - started
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"sathub serve on {self.port} did not come up within {timeout} s")

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


class HttpError(Exception):
    pass


class Connection:
    """One keep-alive HTTP/1.1 connection; reconnects when the server closed it."""

    def __init__(self, port: int):
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except Exception:  # noqa: BLE001
                pass
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: bytes = b"", headers: dict | None = None,
                      timeout: float = 10) -> tuple[int, dict, bytes]:
        try:
            return await asyncio.wait_for(self._request(method, path, body, headers or {}), timeout)
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, HttpError, ValueError) as error:
            await self.close()
            raise HttpError(f"{type(error).__name__}: {error}") from error

    async def _request(self, method, path, body, headers) -> tuple[int, dict, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
        for name, value in headers.items():
            head += f"{name}: {value}\r\n"
        if body or method == "POST":
            head += f"Content-Length: {len(body)}\r\n"
        self.writer.write(head.encode("latin-1") + b"\r\n" + body)
        await self.writer.drain()
        status_line = await self.reader.readuntil(b"\r\n")
        if not status_line:
            raise HttpError("closed")
        status = int(status_line.split()[1])
        response_headers = {}
        while (line := await self.reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            response_headers[name.strip().lower()] = value.strip()
        if "content-length" in response_headers:
            data = await self.reader.readexactly(int(response_headers["content-length"]))
        elif response_headers.get("transfer-encoding", "").lower() == "chunked":
            data = b""
            while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
                data += await self.reader.readexactly(size)
                await self.reader.readuntil(b"\r\n")
            await self.reader.readuntil(b"\r\n")
        else:
            data = await self.reader.read()
            await self.close()
        if response_headers.get("connection", "").lower() == "close":
            await self.close()
        return status, response_headers, data


def callsign(prefix: str, number: int, width: int) -> str:
    letters, n = "", number
    for _ in range(width):
        letters = LETTERS[n % 26] + letters
        n //= 26
    return f"{prefix}{number % 10}{letters}"


@dataclass
class Slots:
    """Report bodies: with probability `hot_share` one of `hot` fixed slots (they replace each
    other), else a new slot. A slot is (callsign, reported_at); the name is always AO-91."""
    hot: int = 500
    hot_share: float = 0.3
    seed: int = 14
    counter: int = 0
    instant: datetime = field(default_factory=lambda: (datetime.now(UTC) - timedelta(minutes=40)).replace(
        second=0, microsecond=0))

    def __post_init__(self):
        self.random = random.Random(self.seed)

    def next(self) -> tuple[tuple[str, str], dict]:
        self.counter += 1
        if self.random.random() < self.hot_share:
            sign = callsign("Q", self.random.randrange(self.hot), 3)
            at = self.instant
        else:
            sign = callsign("Z", self.counter, 4)
            at = self.instant - timedelta(minutes=self.random.randrange(0, 120))
        value = self.random.choice(VALUES)
        reported_at = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        body = {"name": "AO-91", "report": value, "callsign": sign, "grid_square": "EM48", "reported_at": reported_at}
        return slot_key(sign, at), body


def slot_key(sign: str, at: datetime) -> tuple:
    return (sign.upper(), at.date().isoformat(), at.hour, period_of_minute(at.minute))


def body_bytes(body: dict) -> bytes:
    return json.dumps(body).encode()


POST_HEADERS = {"Content-Type": "application/json"}


@dataclass
class Ledger:
    """What the load sent and what the server acknowledged, per slot."""
    sent: dict = field(default_factory=dict)        # slot -> requests sent
    unanswered: dict = field(default_factory=dict)  # slot -> requests without an answer (may be stored)
    acked: dict = field(default_factory=dict)       # slot -> (id, value) of the highest acknowledged id
    acks: int = 0
    statuses: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)      # (status, body) of each non-201 answer, first 20

    def record_sent(self, slot) -> None:
        self.sent[slot] = self.sent.get(slot, 0) + 1

    def record(self, slot, status: int | None, data: bytes | None) -> None:
        if status is None:
            self.unanswered[slot] = self.unanswered.get(slot, 0) + 1
            self.statuses["no answer"] = self.statuses.get("no answer", 0) + 1
            return
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status == 201:
            stored = json.loads(data)["data"]
            self.acks += 1
            best = self.acked.get(slot)
            if best is None or stored["id"] > best[0]:
                self.acked[slot] = (stored["id"], stored["report"])
        elif len(self.errors) < 20:
            self.errors.append((status, data[:300]))


def stored_rows(database_url: str) -> dict:
    """slot -> (id, report) of every row the scripts wrote (callsigns Q… and Z…)."""
    engine = db.create_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT id, callsign, day, hour, period, report FROM reports "
                "WHERE callsign LIKE 'Q%' OR callsign LIKE 'Z%'")).all()
    finally:
        engine.dispose()
    found = {}
    for row in rows:
        day = row.day if isinstance(row.day, str) else row.day.isoformat()
        key = (row.callsign.upper(), day, row.hour, row.period)
        if key in found:
            found.setdefault("__duplicates__", []).append(key)
        found[key] = (row.id, row.report)
    return found


def verify(ledger: Ledger, stored: dict) -> dict:
    """Every acknowledged slot holds the last acknowledged report (highest id) or, only when a
    request to that slot went unanswered, a later one; nothing stored that was never sent."""
    duplicates = stored.pop("__duplicates__", [])
    missing = wrong = later_unacked = 0
    examples = []
    for slot, (acked_id, value) in ledger.acked.items():
        row = stored.get(slot)
        if row is None:
            missing += 1
            examples.append(("missing", slot, acked_id, value))
        elif row[0] == acked_id and row[1] == value:
            continue
        elif row[0] > acked_id and ledger.unanswered.get(slot):
            later_unacked += 1  # an unanswered request to this slot was stored after the last acknowledged one
        else:
            wrong += 1
            examples.append(("wrong", slot, acked_id, value, row))
    unknown = [slot for slot in stored if slot not in ledger.sent]
    unacked_stored = sum(1 for slot in stored if slot in ledger.sent and slot not in ledger.acked)
    return {"acked_slots": len(ledger.acked), "stored": len(stored), "distinct_sent": len(ledger.sent),
            "missing": missing, "wrong": wrong, "later_unacked": later_unacked, "duplicates": len(duplicates),
            "unknown": len(unknown), "unacked_stored": unacked_stored, "examples": examples[:5]}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def now_utc() -> str:
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"


