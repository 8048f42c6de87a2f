"""Archive import speed and memory: `sathub archive import` on the real corpus and on a generated
1,000,000-message mbox.

    python -m bench.archive_import generate [--count 1000000] [--out FILE.mbox.gz] [--text corpus]
    python -m bench.archive_import corpus [--database-url URL]
    python -m bench.archive_import run FILE... --list ADDRESS [--database-url URL]

`corpus` and `run` import into a fresh database (SQLite under bench/out/ unless --database-url
names another; it is dropped and created again) and print messages/s (wall clock and CPU), peak
RSS and the RSS over time (flat memory means the last samples are no higher than the early ones),
with the machine's load average (the machine is shared: CPU time is the steadier figure). Each run
also writes bench/out/archive_import_<what>_<backend>.md.

The generated archive is realistic in shape, not in text: threads of heavy-tailed size (most 1-5
messages, a few hundreds), 20,000 senders of Zipf-like activity, 3% of messages held back so
their replies arrive first (and their roots later), 0.3% duplicated Message-IDs, 0.1% without
a Message-ID, 2% RFC 2047 subjects, 1% multipart with an attachment, ~1.3 KB per message.

With `--text corpus` (the search benchmark's archive, bench/archive_search_scale.py) the text is
the real corpus's instead: see CorpusText.
"""

from __future__ import annotations

import argparse
import gzip
import heapq
import os
import random
import re
import resource
import sys
import threading
import time
from bisect import bisect
from collections import deque
from datetime import UTC, datetime, timedelta
from email.header import Header
from email.utils import format_datetime, formataddr
from itertools import accumulate
from pathlib import Path

from bench.common import MAIL, OUT, backend_of, label, recreate_database, write_out
from sathub import db
from sathub.archive.ingest.archive_files import RawMessage, read_archives
from sathub.archive.ingest.importer import import_archive
from sathub.archive.mail.message import parse_email

VOCABULARY = (
    "gps receiver fix satellite antenna signal daemon packet buffer driver serial port baud "
    "release patch build test python commit branch merge review issue thread list mail time "
    "clock offset latitude longitude altitude speed course error warning debug trace socket "
    "client server protocol message header field value report status update change fix the a "
    "of to and in is it that for on with as this be are was not but have from or by at"
)
WORDS = VOCABULARY.split()


class Sampler(threading.Thread):
    """Every `interval` seconds: this process's resident memory, and the CPU time and memory of
    its descendants (the forkserver and the parsing helper), read from /proc."""

    def __init__(self, interval: float = 1.0):
        super().__init__(daemon=True)
        self.interval, self.samples, self.stop = interval, [], threading.Event()
        self.page, self.tick = os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_CLK_TCK")
        self.helper_cpu: dict[int, float] = {}  # pid -> seconds
        self.helper_rss = 0
        self.started = time.monotonic()

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            with open("/proc/self/status") as status:
                kib = {line.split(":")[0]: int(line.split()[1]) for line in status if line.startswith("Rss")}
            # RssAnon is the process's own memory; RssFile includes the SQLite file, which db.py
            # memory-maps (mmap_size): page cache, shared and reclaimable, growing with the file.
            self.samples.append((time.monotonic() - self.started, kib["RssAnon"] * 1024, kib["RssFile"] * 1024))
            self._descendants()

    def _descendants(self) -> None:
        stats = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    with open(f"/proc/{entry.name}/stat") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                stats[int(entry.name)] = fields
        tree = {os.getpid()}
        for _ in range(3):  # children, grandchildren (forkserver -> helper)
            tree |= {pid for pid, fields in stats.items() if int(fields[1]) in tree}
        for pid in tree - {os.getpid()}:
            fields = stats[pid]
            self.helper_cpu[pid] = (int(fields[11]) + int(fields[12])) / self.tick
            self.helper_rss = max(self.helper_rss, int(fields[21]) * self.page)


def text(rnd: random.Random, words: int) -> str:
    lines, line = [], []
    for _ in range(words):
        line.append(rnd.choice(WORDS))
        if len(line) >= 12:
            lines.append(" ".join(line))
            line = []
    return "\n".join([*lines, " ".join(line)]) + "\n"


class SyntheticText:
    """Words of VOCABULARY, uniformly; 20,000 made-up senders of Zipf-like activity; dates from
    2010 over ten years."""

    def __init__(self, rnd: random.Random, count: int):
        self.senders = [
            f"{rnd.choice(WORDS)}.{rnd.choice(WORDS)}{i}@{rnd.choice(['example.org', 'mail.example.net'])}"
            for i in range(20_000)
        ]
        self.activity = list(accumulate(1 / (rank + 1) ** 0.9 for rank in range(len(self.senders))))
        self.clock, self.mean_gap = datetime(2010, 1, 1), timedelta(days=3650) / count

    def date(self, rnd: random.Random, n: int) -> datetime:
        self.clock += self.mean_gap * rnd.expovariate(1.0)
        return self.clock

    def sender(self, rnd: random.Random) -> tuple[str, str]:
        address = self.senders[bisect(self.activity, rnd.random() * self.activity[-1])]
        return f"{address.split('@')[0].replace('.', ' ').title()} <{address}>", address

    def body(self, rnd: random.Random) -> str:
        return text(rnd, rnd.randint(20, 250))

    def subject(self, rnd: random.Random) -> str:
        subject = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 8)))
        if rnd.random() < 0.02:
            subject = "=?utf-8?q?" + subject.replace(" ", "_") + "_=C3=A9t=C3=A9?="
        return "[bench] " + subject

    def quote(self, rnd: random.Random) -> str:
        return "> " + text(rnd, 20).replace("\n", "\n> ").rstrip("> ") + "\n"


class CorpusText:
    """The real corpus's text (shared/data/mail, as the importer parses it), so that at any size
    common words are common and rare words rare, as a search over a real big archive meets them.
    The corpus is stretched: message n of `count` is a variant of the real message at the same
    place in date order (its template), which gives it
    - its date (the corpus's date quantile n/count: the corpus's years, 2004-2021, busy and quiet),
    - its sender (name and address: esr@thyrsus.com writes 16% of messages), and, when it starts
      a thread, its subject (its Re:/Fwd: taken off);
    - a body of as many lines as the template's, each a random line of the bodies of the
      template's NEIGHBOURS messages on either side in its list (quoted lines included): words
      come at their real frequencies, phrases are the corpus's own ("release candidate"), and a
      word stays with its list and its years (`gpsd -python` finds what it would in the corpus)
      instead of being spread over every message."""

    NEIGHBOURS = 25

    def __init__(self, rnd: random.Random, count: int):
        read: list[tuple[datetime, str, tuple[str, str], str | None, list[str]]] = []
        for raw in read_archives(sorted(MAIL.glob("*.mbox.gz"))):
            if not isinstance(raw, RawMessage):
                continue
            try:
                email = parse_email(raw.data, raw.from_line, datetime(2000, 1, 1))
            except Exception:  # the importer skips these too
                continue
            subject = None if email.in_reply_to else _header(REPLY_PREFIX.sub("", email.subject))
            sender = _from_header(email.sender_name, email.sender_address)
            read.append((email.date, raw.origin.rsplit(" #", 1)[0], sender, subject, email.content.splitlines()))
        read.sort(key=lambda message: message[0])
        self.dates = [message[0] for message in read]
        self.templates = read
        self.subjects = [message[3] for message in read if message[3]]
        # Per list, its bodies' lines end to end; for each message, the span of lines around it.
        lines: dict[str, list[str]] = {}
        starts: dict[str, list[int]] = {}
        place: list[tuple[str, int]] = []
        for _, origin, _, _, body in read:
            place.append((origin, len(starts.setdefault(origin, []))))
            starts[origin].append(len(lines.setdefault(origin, [])))
            lines[origin] += body
        for origin in starts:
            starts[origin].append(len(lines[origin]))
        self.lines = lines
        self.spans = [
            (
                origin,
                starts[origin][max(0, i - self.NEIGHBOURS)],
                starts[origin][min(len(starts[origin]) - 1, i + self.NEIGHBOURS + 1)],
            )
            for origin, i in place
        ]
        self.count, self.template = count, 0

    def date(self, rnd: random.Random, n: int) -> datetime:
        """Message n's date; its template becomes the real message at that place."""
        position = n * (len(self.dates) - 1) / max(1, self.count - 1)
        low = int(position)
        high = min(low + 1, len(self.dates) - 1)
        self.template = low if position - low < 0.5 else high
        return self.dates[low] + (self.dates[high] - self.dates[low]) * (position - low)

    def sender(self, rnd: random.Random) -> tuple[str, str]:
        return self.templates[self.template][2]

    def body(self, rnd: random.Random) -> str:
        origin, first, end = self.spans[self.template]
        pool = self.lines[origin]
        out = []
        for _ in range(len(self.templates[self.template][4])):
            line = pool[rnd.randrange(first, end)] if end > first else ""
            # An unescaped "From " line would start a new message in the mbox.
            out.append(">" + line if line.startswith("From ") else line)
        return "\n".join(out) + "\n"

    def subject(self, rnd: random.Random) -> str:
        return self.templates[self.template][3] or rnd.choice(self.subjects)

    def quote(self, rnd: random.Random) -> str:
        return ""  # the corpus's lines include its quoted lines, at their real share


REPLY_PREFIX = re.compile(r"^\s*((re|fwd?|aw)\s*:\s*)+", re.IGNORECASE)
TEXTS: dict[str, type[SyntheticText | CorpusText]] = {"synthetic": SyntheticText, "corpus": CorpusText}


def _header(value: str) -> str:
    """A header value as mail carries it: 7-bit, RFC 2047 words where it is not ASCII."""
    value = " ".join(value.split())
    return value if value.isascii() else Header(value, "utf-8").encode()


def _from_header(name: str, address: str) -> tuple[str, str]:
    return formataddr((name, address), charset="utf-8") if name else f"<{address}>", address


def generate(path: Path, count: int, seed: int = 1, text_kind: str = "synthetic") -> None:
    """Stream `count` messages into a gzip mbox; memory is bounded by the windows kept below."""
    rnd = random.Random(seed)
    source = TEXTS[text_kind](rnd, count)
    active: deque[dict] = deque(maxlen=3000)  # recent threads that may still get replies
    held: list[tuple[int, int, str]] = []  # (release at message n, tie, text): replies come first
    recent_texts: deque[str] = deque(maxlen=1000)
    with gzip.open(path, "wt", compresslevel=1, encoding="utf-8") as out:
        for n in range(count):
            clock = source.date(rnd, n)
            from_header, address = source.sender(rnd)
            message_id = f"{n}.{rnd.getrandbits(32):08x}@bench.example.org"
            headers = [f"From: {from_header}", f"Date: {format_datetime(clock.replace(tzinfo=UTC))}"]
            body = source.body(rnd)
            if not active or rnd.random() < 0.22:
                subject = source.subject(rnd)
                thread = {"subject": subject, "ids": [message_id], "open": rnd.paretovariate(1.2)}
                active.append(thread)
                headers.append(f"Subject: {subject}")
            else:
                thread = active[-1 - min(int(rnd.expovariate(1 / 40)), len(active) - 1)]
                parent = thread["ids"][max(0, len(thread["ids"]) - 1 - int(rnd.expovariate(0.7)))]
                headers += [
                    f"Subject: Re: {thread['subject']}",
                    f"In-Reply-To: <{parent}>",
                    f"References: <{thread['ids'][0]}> <{parent}>",
                ]
                body = source.quote(rnd) + body
                thread["ids"].append(message_id)
                if len(thread["ids"]) > thread["open"] * 4:
                    active.remove(thread)  # the thread has run its course
            if rnd.random() >= 0.001:
                headers.append(f"Message-ID: <{message_id}>")
            if rnd.random() < 0.01:
                headers += ["MIME-Version: 1.0", 'Content-Type: multipart/mixed; boundary="b1"']
                body = (
                    f"--b1\nContent-Type: text/plain; charset=utf-8\n\n{body}--b1\n"
                    "Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n"
                    'Content-Disposition: attachment; filename="data.bin"\n\n'
                    + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n" * rnd.randint(1, 20)
                    + "--b1--\n"
                )
            envelope = f"From {address} {clock.strftime('%a %b %d %H:%M:%S %Y')}\n"
            message = envelope + "\n".join(headers) + "\n\n" + body + "\n"
            if rnd.random() < 0.03:
                heapq.heappush(held, (n + rnd.randint(1, 20_000), n, message))
            else:
                out.write(message)
                recent_texts.append(message)
            if rnd.random() < 0.003 and recent_texts:
                out.write(rnd.choice(recent_texts))
            while held and held[0][0] <= n:
                out.write(heapq.heappop(held)[2])
        while held:
            out.write(heapq.heappop(held)[2])


def fresh_database(url: str | None, name: str) -> str:
    url = url or f"sqlite:///{OUT / name}.db"
    recreate_database(url)
    return url


def measure(url: str, imports: list[tuple[str, list[Path]]], what: str) -> None:
    engine = db.create_engine(url)
    db.upgrade(engine)
    print(f"database {engine.url.render_as_string()}; load average before: {os.getloadavg()[0]:.1f}")
    sampler = Sampler()
    sampler.start()
    wall, cpu = time.monotonic(), time.process_time()
    total = 0
    for name, paths in imports:
        summary = import_archive(engine, name, paths, progress=sys.stderr.isatty())
        total += summary.imported + summary.duplicates
        print(summary.describe())
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    sampler.stop.set()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    helper = sum(sampler.helper_cpu.values())
    lines = [
        label(f"**archive_import {what}, {backend_of(url)}** — `sathub archive import` in this process"),
        "",
        f"{total:,} messages in {wall:.1f} s wall (**{total / wall:,.0f} msg/s**); CPU {cpu:.1f} s here "
        f"+ {helper:.1f} s in the parsing helper ({total / (cpu + helper):,.0f} msg per CPU second); "
        f"load average after: {os.getloadavg()[0]:.1f}.",
    ]
    samples = sampler.samples
    if samples:
        picks = [samples[min(len(samples) - 1, int(len(samples) * f))] for f in (0.1, 0.25, 0.5, 0.75, 1.0)]
        lines.append(
            f"Peak RSS {peak:.0f} MB here (file-backed included), {sampler.helper_rss / 2**20:.0f} MB in "
            "the helper; own (anonymous) / file-backed RSS over time: "
            + ", ".join(f"{t:.0f}s {anon / 2**20:.0f}/{mapped / 2**20:.0f} MB" for t, anon, mapped in picks)
        )
    write_out(f"archive_import_{what}_{backend_of(url)}.md", "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="write the generated archive")
    gen.add_argument("--count", type=int, default=1_000_000)
    gen.add_argument("--out", type=Path, help="default: bench/out/archive_import_<count>.mbox.gz")
    gen.add_argument("--text", choices=sorted(TEXTS), default="synthetic", help="where words come from")
    corpus = commands.add_parser("corpus", help="import the real corpus of shared/data/mail")
    corpus.add_argument("--database-url")
    run = commands.add_parser("run", help="import FILE... into a fresh database")
    run.add_argument("paths", nargs="+", type=Path)
    run.add_argument("--list", default="bench@lists.example.org")
    run.add_argument("--database-url")
    args = parser.parse_args()
    if args.command == "generate":
        args.out = args.out or OUT / f"archive_import_{args.count}.mbox.gz"
        args.out.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        generate(args.out, args.count, text_kind=args.text)
        print(
            f"{args.count} messages written to {args.out} ({args.out.stat().st_size / 2**20:.0f} MB gzip) "
            f"in {time.monotonic() - started:.0f} s"
        )
    elif args.command == "corpus":
        files = sorted(MAIL.glob("*.mbox.gz"))
        measure(
            fresh_database(args.database_url, "archive_import_corpus"),
            [(f.name.removesuffix(".mbox.gz"), [f]) for f in files] + [("edge@example.com", [MAIL / "edge"])],
            "corpus",
        )
    else:
        stem = args.paths[0].name.split(".")[0].removeprefix("archive_import_")
        measure(fresh_database(args.database_url, f"archive_import_{stem}"), [(args.list, args.paths)], stem)


if __name__ == "__main__":
    main()
