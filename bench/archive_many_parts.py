"""One message of many parts through Mailman's archive call (issue 40), and what a report POST waits
meanwhile.

    python -m bench.archive_many_parts --database-url sqlite:///bench/out/archive_many_parts.db [--seconds 10]
    python -m bench.archive_many_parts --database-url postgresql://postgres@127.0.0.1:5432/sathub_bench_archive_many_parts

The messages are a text part and N tiny attached text/plain parts (`f<n>.txt`, 88 bytes a part:
10,000 parts are 0.9 MB), each with a Message-ID of its own; the reference is a one-part message of
the same bytes (its text 0.9 MB). On a fresh database, `sathub serve --workers 1` (one process
parses, stores and answers the reports, as deployed by default) runs twice, with
SATHUB_MAX_MESSAGE_PARTS at 10,002 (every part split out) and at its default, 1,000:

- archive calls, one at a time, timed from the client (HTTP included): 1,000 and 10,000 parts with
  every part split out, 10,000 under the default, and the reference; and the attachments stored;
- a report POSTed to /api/v1/reports.php every 20 ms for --seconds, its p50 and p99: alone, then
  while another client process archives messages back to back (the reference, then 10,000 parts): every
  millisecond an archive call holds the writers (SQLite) or the process's CPU is one a report may wait.

Writes bench/out/archive_many_parts_<backend>.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import statistics
import time
from datetime import UTC, datetime, timedelta

import httpx
import sqlalchemy as sa

from bench.common import Server, backend_of, label, percentile, recreate_database, write_out
from sathub import db
from sathub.archive.tables import attachments, emails
from sathub.config import Settings

KEY = "bench-key"
LIST = "many@lists.example.org"
REPORT_INTERVAL = 0.02  # seconds between report POSTs
EVERY_PART = 10_002  # the message, its text part and 10,000 attachments
_PLACEHOLDER = "message-id-placeholder@bench"


def message(message_id: str, parts: int, *, one_part: bool = False) -> bytes:
    """A text part then `parts` attached text/plain parts (tests/archive/messages.py builds the
    same); `one_part`: the same bytes as the text of a one-part message."""
    body = [f"--B\nContent-Type: text/plain\n\nsee {parts} attachments\n"]
    body += [
        f"--B\nContent-Type: text/plain\nContent-Disposition: attachment; filename=f{n}.txt\n\npart {n}\n"
        for n in range(1, parts + 1)
    ]
    content_type = "text/plain" if one_part else 'multipart/mixed; boundary="B"'
    return (
        f"From: Ann <ann@example.com>\nTo: {LIST}\nSubject: {parts} parts\nMessage-ID: <{message_id}>\n"
        f"Date: Mon, 01 Jan 2024 10:00:00 +0000\nMIME-Version: 1.0\nContent-Type: {content_type}\n\n"
        + "".join(body)
        + "--B--\n"
    ).encode()


class Archiver:
    """Archive calls of `parts`-part messages (or of their one-part reference), each a new Message-ID."""

    def __init__(self, base: str, parts: int, tag: str, *, one_part: bool = False) -> None:
        self.client, self.parts, self.tag, self.one_part = (
            httpx.Client(base_url=base, timeout=120),
            parts,
            tag,
            one_part,
        )
        self.sent = 0
        # Built once: each call only puts its own Message-ID in (building 10,000 parts anew took
        # the client's CPU from the machine's two cores, which the server's reports share).
        self.template = message(_PLACEHOLDER, parts, one_part=one_part)

    @property
    def last(self) -> str:
        return f"{self.tag}.{self.sent}@bench"

    def call(self) -> float:
        """One archive call; its milliseconds."""
        self.sent += 1
        data = self.template.replace(_PLACEHOLDER.encode(), self.last.encode())
        started = time.perf_counter()
        answer = self.client.post(
            "/archive/api/mailman/archive",
            data={"mlist": LIST},
            files={"message": ("message.txt", data)},
            headers={"Authorization": f"Token {KEY}"},
        )
        elapsed = (time.perf_counter() - started) * 1000
        if answer.status_code != 200:
            raise SystemExit(f"archive call answered {answer.status_code}: {answer.text[:300]}")
        return elapsed

    def median(self, rounds: int) -> str:
        return f"{statistics.median(self.call() for _ in range(rounds)):,.0f}"

    def back_to_back(self, stop, calls) -> None:
        """Calls until `stop` is set, counted in `calls` (a shared integer: this runs in a process
        of its own, so that building and sending these messages never holds the reports' client)."""
        while not stop.is_set():
            self.call()
            calls.value += 1


def _archiving(base: str, parts: int, tag: str, one_part: bool, stop, calls) -> None:
    Archiver(base, parts, tag, one_part=one_part).back_to_back(stop, calls)


def report_body(n: int) -> bytes:
    letters = "".join(chr(65 + n // 26**k % 26) for k in range(3))
    when = datetime.now(UTC) - timedelta(minutes=n % 120)
    fields = {"name": "AO-91", "report": "Heard", "callsign": f"K{n % 10}{letters}", "grid_square": "FN31"}
    return json.dumps(fields | {"reported_at": when.strftime("%Y-%m-%dT%H:%M:%SZ")}).encode()


def reports(port: int, seconds: float, first: int) -> list[float]:
    """A report POSTed every REPORT_INTERVAL for `seconds` on one keep-alive connection: each one's ms."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    times: list[float] = []
    started = time.perf_counter()
    for n in range(first, first + int(seconds / REPORT_INTERVAL)):
        delay = started + (n - first) * REPORT_INTERVAL - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        sent = time.perf_counter()
        connection.request("POST", "/api/v1/reports.php", report_body(n), {"Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        times.append((time.perf_counter() - sent) * 1000)
        if answer.status != 201:
            raise SystemExit(f"report POST answered {answer.status}")
    connection.close()
    return times


def reports_beside(port: int, archiver: Archiver, seconds: float, first: int) -> str:
    """p50 / p99 ms of reports while messages like `archiver`'s are archived back to back, and how
    many calls ran. The archiving client is a process of its own: in a thread of this one, its
    Python work held the reports' client (one interpreter lock), which the p99 counted as the
    server's (SQLite, p99 beside 10,000-part calls: 29 ms with a thread, 22 with a process)."""
    context = multiprocessing.get_context("spawn")
    stop, calls = context.Event(), context.Value("i", 0)
    tag = f"{archiver.tag}-beside{first}"
    process = context.Process(
        target=_archiving, args=(str(archiver.client.base_url), archiver.parts, tag, archiver.one_part, stop, calls)
    )
    process.start()
    try:
        times = reports(port, seconds, first)
    finally:
        stop.set()
        process.join()
    return f"{latency(times)} ({calls.value} calls)"


def latency(times: list[float]) -> str:
    return f"{statistics.median(times):.1f} / {percentile(times, 99):.1f}"


def stored_attachments(url: str, message_id: str) -> int:
    engine = db.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(
                sa.select(sa.func.count())
                .select_from(attachments.join(emails, emails.c.id == attachments.c.email_id))
                .where(emails.c.message_id == message_id)
            ).scalar_one()
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each run of report POSTs")
    parser.add_argument("--rounds", type=int, default=3, help="archive calls timed for each size")
    options = parser.parse_args()
    url, seconds, rounds = options.database_url, options.seconds, options.rounds
    recreate_database(url)
    rows: list[str] = []

    def row(what: str, figure: str) -> None:
        rows.append(f"| {what} | {figure} |")
        print(rows[-1], flush=True)

    for limit in (EVERY_PART, Settings.max_message_parts):
        server = Server.sathub(
            url,
            workers=1,
            log=f"archive_many_parts_{backend_of(url)}",
            env={"SATHUB_ARCHIVER_KEY": KEY, "SATHUB_BASE_URL": "", "SATHUB_MAX_MESSAGE_PARTS": str(limit)},
        )
        split = "every part split out" if limit == EVERY_PART else f"the default {limit:,} parts split out"
        try:
            server.start().wait_up("/archive/api/lists/")
            reports(server.port, 1, limit)  # warm-up: the catalog, the writer, the connections
            large = Archiver(server.base, 10_000, f"large{limit}")
            if limit == EVERY_PART:
                small = Archiver(server.base, 1_000, "small")
                small.call()  # the list's first sight
                row(f"archive call, 1,000 parts, {split}: median of {rounds}, ms", small.median(rounds))
            row(f"archive call, 10,000 parts, {split}: median of {rounds}, ms", large.median(rounds))
            row(f"attachments stored, 10,000 parts, {split}", f"{stored_attachments(url, large.last):,}")
            if limit != EVERY_PART:
                reference = Archiver(server.base, 10_000, "reference", one_part=True)
                row(
                    f"archive call, a one-part message of the same 0.9 MB: median of {rounds}, ms",
                    reference.median(rounds),
                )
                row("report POST alone: p50 / p99 ms", latency(reports(server.port, seconds, 10_000)))
                row(
                    "report POST beside one-part 0.9 MB messages back to back: p50 / p99 ms",
                    reports_beside(server.port, reference, seconds, 20_000),
                )
            row(
                f"report POST beside 10,000-part messages back to back, {split}: p50 / p99 ms",
                reports_beside(server.port, large, seconds, 30_000 + limit),
            )
        finally:
            server.stop()
    write_out(
        f"archive_many_parts_{backend_of(url)}.md",
        "\n".join(
            [
                label(
                    f"**archive_many_parts, {backend_of(url)}** — `sathub serve --workers 1`; messages of a text part "
                    "and N tiny text/plain attachments through Mailman's archive call; a report POST every "
                    f"{REPORT_INTERVAL * 1000:g} ms for {seconds:g} s"
                ),
                "",
                "| measurement | figure |",
                "|---|---:|",
                *rows,
            ]
        ),
    )


if __name__ == "__main__":
    main()
