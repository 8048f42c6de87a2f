"""A file or URL of orbital elements read, matched to the catalog by NORAD number and stored in one
transaction, with a summary of what was matched, skipped and refused (docs/orbits.md, "Elements").
Used by `sathub catalog elements load` and by the periodic refresh."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.client import HTTPException
from pathlib import Path
from urllib.parse import urlsplit

from sathub.db.engines import Engine, connect
from sathub.status.orbits.formats import FORMATS, ElementsFormatError, ReadFile, read_element_sets
from sathub.status.store import elements as store

# Seconds a fetch may take, connection to last byte (each read waits at most this long, and the
# whole answer is checked against it between reads); and the largest answer read. A GP record is
# 430-580 bytes as OMM JSON (tests/status/orbits/data/amateur.json, compact and indented), a TLE
# 165: CelesTrak's largest group, "active", some 10,000 sets, is under 6 MB in any format.
FETCH_TIMEOUT = 30.0
MAX_BYTES = 32 * 1024 * 1024
CHUNK_BYTES = 64 * 1024
LISTED = 10  # NORAD numbers and refusals named in a summary; beyond, how many more
USER_AGENT = "sathub (orbital elements for satellite status)"


class LoadError(Exception):
    """Elements could not be read or fetched: one line, the reason."""


@dataclass
class Summary:
    format: str
    read: int = 0
    matched_entries: int = 0  # catalog entries (modes share a number) that a set was stored for
    stored: int = 0
    already: int = 0
    skipped: list[int] = field(default_factory=list)  # NORAD numbers no catalog entry has
    refused: list[str] = field(default_factory=list)  # "line 12 (NORAD 12345): why"

    @property
    def matched(self) -> int:
        return self.stored + self.already

    def describe(self) -> str:
        parts = [
            f"Read {self.read} element set{'' if self.read == 1 else 's'} ({FORMATS[self.format]}): "
            f"{self.matched} matched {self.matched_entries} catalog entr{'y' if self.matched_entries == 1 else 'ies'} "
            f"({self.stored} stored, {self.already} already there)",
            f"{len(self.skipped)} skipped"
            + (f" (not in the catalog: {_listed(self.skipped)})" if self.skipped else ""),
            f"{len(self.refused)} refused" + (f" ({_listed(self.refused, '; ')})" if self.refused else ""),
        ]
        return "; ".join(parts) + "."


def _listed(items: list, separator: str = ", ") -> str:
    shown = separator.join(str(item) for item in items[:LISTED])
    return shown + (f"{separator}and {len(items) - LISTED} more" if len(items) > LISTED else "")


def read_source(source: str, *, timeout: float = FETCH_TIMEOUT, max_bytes: int = MAX_BYTES) -> tuple[bytes, str]:
    """The bytes of a file or an http(s) URL, and the name its format may be claimed by."""
    if "://" in source:
        return fetch(source, timeout=timeout, max_bytes=max_bytes), urlsplit(source).path
    try:
        return Path(source).read_bytes(), Path(source).name
    except OSError as exc:
        raise LoadError(f"Cannot read {source}: {exc.strerror or exc}") from None


class _HttpRedirectsOnly(urllib.request.HTTPRedirectHandler):
    """Redirects are followed to http(s) addresses only (urllib would also follow one to ftp:)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urlsplit(newurl).scheme not in ("http", "https"):
            raise LoadError(f"{req.full_url} redirects to {newurl}, not an http(s) address")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def fetch(url: str, *, timeout: float = FETCH_TIMEOUT, max_bytes: int = MAX_BYTES) -> bytes:
    """GET an http(s) URL: its body when it answers 200 within `timeout` seconds (in all) and
    `max_bytes`; anything else is a LoadError saying what happened."""
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise LoadError(f"Not an http:// or https:// URL: {url}")
    opener = urllib.request.build_opener(_HttpRedirectsOnly)
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    deadline = time.monotonic() + timeout
    try:
        with opener.open(request, timeout=timeout) as answer:
            if answer.status != 200:
                raise LoadError(f"{url} answered {answer.status} {answer.reason}")
            length = answer.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > max_bytes:
                raise LoadError(f"{url} sends {int(length):,} bytes, more than the {max_bytes:,} taken")
            body = bytearray()
            while chunk := answer.read1(CHUNK_BYTES):  # what has arrived: the deadline is checked often
                body += chunk
                if len(body) > max_bytes:
                    raise LoadError(f"{url} sends more than the {max_bytes:,} bytes taken")
                if time.monotonic() > deadline:
                    raise TimeoutError
    except urllib.error.HTTPError as exc:
        raise LoadError(f"{url} answered {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise LoadError(f"{url} did not answer in full within {timeout:g} s") from None
        raise LoadError(f"Cannot fetch {url}: {exc.reason}") from None
    except TimeoutError:
        raise LoadError(f"{url} did not answer in full within {timeout:g} s") from None
    except (HTTPException, OSError) as exc:
        raise LoadError(f"Cannot fetch {url}: {exc or type(exc).__name__}") from None
    return bytes(body)


def load(engine: Engine, data: bytes, name: str = "") -> Summary:
    """Read a file's sets (ElementsFormatError: nothing stored) and store, in one transaction, those
    of satellites in the catalog; a set already stored (same number and epoch) stays as it was."""
    read = read_element_sets(data, name)
    with connect(engine, write=True) as conn:
        return store_read_sets(conn, read)


def store_read_sets(conn, read: ReadFile) -> Summary:
    summary = Summary(read.format, read=len(read.sets))
    catalog = store.norad_ids_by_name(conn)
    wanted = set(catalog.values())
    kept = []
    for one in read.sets:
        if one.element_set is None:
            summary.refused.append(f"{one.where} (NORAD {one.norad_id}): {one.problem}")
        elif one.norad_id not in wanted:
            summary.skipped.append(one.norad_id)
        else:
            kept.append((one.element_set, read.source))
    summary.skipped = sorted(set(summary.skipped))
    summary.stored = store.save_element_sets(conn, kept)
    summary.already = len(kept) - summary.stored
    numbers = {element_set.norad_id for element_set, _source in kept}
    summary.matched_entries = sum(1 for norad_id in catalog.values() if norad_id in numbers)
    return summary


def load_source(engine: Engine, source: str, *, timeout: float = FETCH_TIMEOUT) -> Summary:
    """A file or URL read and loaded; LoadError (with the format's reason, if that was it)."""
    data, name = read_source(source, timeout=timeout)
    try:
        return load(engine, data, name)
    except ElementsFormatError as exc:
        raise LoadError(f"{source}: {exc}") from None
