"""`sathub archive reindex --sources`: what the search reads of a message but the read API does not
show (migration 0023: the name in a From comment, the text pipermail inlined after "next part"),
the Message-IDs it names in References and In-Reply-To (migration 0029: public-inbox's thread,
NNTP OVER) and OVER's kept fields (migration 0030: its body's lines), read from the kept sources
of the mail stored before the columns existed.

Once after the upgrade to 0023, 0029 and 0030, not at start: it parses every kept source again, as an import
does (minutes for a large archive), and serving need not wait for it; until it has run, that mail
is found as before. Each batch is read, parsed and written in its own short transactions, so a run
can be stopped and run again: it takes up where it stopped (NULL: not read yet), and once done,
another run reads nothing."""

from __future__ import annotations

from dataclasses import dataclass

from sathub.archive.mail.dates import utc_now
from sathub.archive.mail.kept_source import body_lines, decompress
from sathub.archive.mail.message import MAX_PARTS, parse_email
from sathub.archive.store.email_sources import count_sources_not_read, sources_not_read, write_searched_text
from sathub.db import connect
from sathub.db.engines import Engine

BATCH = 1_000  # sources a batch: one read, one write transaction


@dataclass
class SearchedText:
    read: int = 0  # sources read
    found: int = 0  # of them with a commented name or scrubbed text not read before: indexed again
    unreadable: int = 0  # sources the current rules cannot parse: marked read, with nothing found

    def describe(self) -> str:
        line = f"Read {self.read} source(s): {self.found} with a commented name or scrubbed text, indexed again."
        return line + (f" {self.unreadable} could not be parsed." if self.unreadable else "")


def read_searched_text(
    engine: Engine, list_id: int | None = None, *, max_parts: int = MAX_PARTS, progress: bool = False
) -> SearchedText:
    """Read from its kept source each email's (of `list_id` when given) commented name, scrubbed
    text and references not read yet, by the import's own rules (mail/message.py's parse_email, with the
    import's `max_parts`), and write them; the search triggers index again the emails found."""
    summary = SearchedText()
    bar = None
    if progress:
        from tqdm import tqdm

        with connect(engine) as conn:
            bar = tqdm(total=count_sources_not_read(conn, list_id), unit=" msg", desc="sources", mininterval=0.5)
    now, after = utc_now(), 0
    while True:
        with connect(engine) as conn:
            rows = sources_not_read(conn, after, BATCH, list_id)
        if not rows:
            break
        read, references, lines = [], {}, {}
        for row in rows:
            source = decompress(row.compression, bytes(row.data))  # an unknown codec stops the run
            try:
                email = parse_email(source, row.envelope, now, max_parts)
                comment, text, named = email.sender_comment, email.scrubbed, email.references
            except Exception:  # archived under older rules; one such source must not stop the rest
                comment, text, named = "", "", []
                summary.unreadable += 1
            summary.found += bool(row.text_not_read and (comment or text))
            read.append({"email_id": row.id, "comment": comment, "text": text})
            references[row.id] = named
            lines[row.id] = body_lines(source)
        with engine.begin() as conn:
            write_searched_text(conn, read, references, lines)
        summary.read += len(rows)
        after = rows[-1].id
        if bar is not None:
            bar.update(len(rows))
    if bar is not None:
        bar.close()
    return summary
