"""Slow clients (issue 14): normal requests (GET statuses.php and catalog.php, half on keep-alive
connections, half on a new connection each) against one `sathub serve` process, first alone, then
while N idle TCP connections are held open (connected, nothing sent), then while N slowloris
connections send one header line per second and never finish. Prints p50/p99 per phase and how
many of the held sockets the server closed itself (its header timeout), and when. Checks: no
normal request fails or takes more than 1 s during the idle/slow phases.

    python -m bench.faults.slow_clients                # 500 sockets, 5 s per phase
    python -m bench.faults.slow_clients --sockets 2000 --seconds 20 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from bench.clients import HttpConnection, HttpError
from bench.common import OUT, Server, code_version, now_utc, percentile, scratch_sqlite, write_out

PATHS = ("/api/v1/statuses.php", "/api/v1/catalog.php")


async def normal_load(port: int, seconds: float, clients: int) -> dict:
    latencies = {path: [] for path in PATHS}
    failures: list[str] = []
    deadline = time.monotonic() + seconds

    async def client(number: int) -> None:
        keep_alive = number % 2 == 0
        conn = HttpConnection(port)
        n = 0
        while time.monotonic() < deadline:
            path = PATHS[n % 2]
            n += 1
            started = time.monotonic()
            try:
                status, _, _ = await conn.request(
                    "GET", path, headers=None if keep_alive else {"Connection": "close"}, timeout=10
                )
            except HttpError as error:
                failures.append(str(error))
                continue
            if status != 200:
                failures.append(str(status))
            latencies[path].append((time.monotonic() - started) * 1000)
            if not keep_alive:
                await conn.close()
        await conn.close()

    await asyncio.gather(*(client(n) for n in range(clients)))
    return {"latencies": latencies, "failures": failures}


class Held:
    """N sockets held open; `slow` ones send a header line every second and never end the headers."""

    def __init__(self, port: int, count: int, slow: bool):
        self.port, self.count, self.slow = port, count, slow
        self.opened = 0
        self.closed_at: list[float] = []
        self.refused = 0
        self.started = 0.0
        self.tasks: list[asyncio.Task] = []

    async def open(self) -> None:
        self.started = time.monotonic()
        self.tasks = [asyncio.create_task(self._one(n)) for n in range(self.count)]
        await asyncio.sleep(0.5)

    async def _one(self, n: int) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            self.refused += 1
            return
        self.opened += 1
        try:
            if self.slow:
                writer.write(b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\n")
            while True:
                if self.slow:
                    writer.write(f"X-Slow-{n}: {time.monotonic():.0f}\r\n".encode())
                    await writer.drain()
                try:
                    data = await asyncio.wait_for(reader.read(4096), 1.0)
                except TimeoutError:
                    continue
                if not data or data.startswith(b"HTTP/"):  # closed, or a 408/400 answer before closing
                    self.closed_at.append(time.monotonic() - self.started)
                    return
        except OSError:
            self.closed_at.append(time.monotonic() - self.started)
        finally:
            writer.close()

    async def release(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def scenario(port: int, args) -> list[dict]:
    phases = []
    result = await normal_load(port, args.seconds, args.clients)
    phases.append({"phase": "alone", **result, "held": None})
    for slow in (False, True):
        held = Held(port, args.sockets, slow)
        await held.open()
        result = await normal_load(port, args.seconds, args.clients)
        # then wait past the server's header timeout to see whether it sheds them
        await asyncio.sleep(max(0.0, args.watch - (time.monotonic() - held.started)))
        phases.append({"phase": f"{args.sockets} {'slowloris' if slow else 'idle'} sockets", **result, "held": held})
        await held.release()
        await asyncio.sleep(0.5)
    return phases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=5.0, help="normal load per phase")
    parser.add_argument(
        "--watch",
        type=float,
        default=14.0,
        help="seconds after opening the held sockets to watch whether the server closes them",
    )
    parser.add_argument("--clients", type=int, default=4, help="normal clients (half keep-alive)")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    server = Server.sathub(scratch_sqlite("slow"), workers=args.workers, log="faults_slow_clients")
    server.log.write_text("")
    server.start()
    server.wait_up()
    version = code_version()
    try:
        phases = asyncio.run(scenario(server.port, args))
    finally:
        server.stop()
    lines = [
        f"**Slow clients** — one `sathub serve --workers {args.workers}` (SQLite, default settings: "
        f"header timeout 10 s, 4,096 connections); {args.clients} normal clients for {args.seconds:g} s per "
        f"phase (half keep-alive, half a new connection per request) alternating GET statuses.php and "
        f"catalog.php; held sockets watched for {args.watch:g} s after opening; code {version}; {now_utc()}.",
        "",
        "| phase | requests | failed | statuses p50 / p99 ms | catalog p50 / p99 ms | max ms "
        "| held sockets opened / refused | closed by the server within the watch (first / last s) | check |",
        "|---|---:|---:|---:|---:|---:|---|---|---|",
    ]
    ok = True
    for phase in phases:
        lat = phase["latencies"]
        every = [v for values in lat.values() for v in values]
        good = not phase["failures"] and max(every, default=0) < 1000
        ok &= good
        held = phase["held"]
        held_cells = (
            "— | —"
            if held is None
            else (
                f"{held.opened} / {held.refused} | {len(held.closed_at)}"
                + (f" ({min(held.closed_at):.1f} / {max(held.closed_at):.1f})" if held.closed_at else "")
            )
        )
        lines.append(
            f"| {phase['phase']} | {len(every):,} | {len(phase['failures'])} | "
            f"{percentile(lat[PATHS[0]], 50):.1f} / {percentile(lat[PATHS[0]], 99):.1f} | "
            f"{percentile(lat[PATHS[1]], 50):.1f} / {percentile(lat[PATHS[1]], 99):.1f} | "
            f"{max(every, default=0):.0f} | "
            f"{held_cells} | {'ok' if good else '**FAILED**'} |"
        )
        if phase["failures"]:
            print(phase["phase"], "failures:", phase["failures"][:5], file=sys.stderr)
    text = "\n".join(lines)
    write_out("faults_slow_clients.md", text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
