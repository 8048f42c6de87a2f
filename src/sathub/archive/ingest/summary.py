"""What an import did, counted while it runs: by the parsing side (skipped messages, appended
pieces, messages archived without their parts beyond the limits) and by the writing side
(imported, duplicates, removed)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class ImportSummary:
    list_name: str
    imported: int = 0
    duplicates: int = 0
    removed: int = 0  # copies of mail hidden or deleted from the list (archive/removal/): not archived again
    corrected: int = 0  # stored emails derived again from their copy in the files (older rules)
    appended_pieces: int = 0  # body pieces cut at unescaped `From ` lines, joined back
    skipped: Counter = field(default_factory=Counter)  # reason -> messages
    damaged: list[str] = field(default_factory=list)  # files not read to their end, and why
    parts_left_out: list[str] = field(default_factory=list)  # Message-IDs (mail/parts_limit.py)
    seconds: float = 0.0

    def describe(self) -> str:
        rate = f" in {self.seconds:.1f} s" if self.seconds else ""
        lines = [
            f"{self.list_name}: {self.imported} imported, {self.duplicates} duplicates skipped, "
            f"{sum(self.skipped.values())} skipped{rate}"
        ]
        if self.removed:
            lines.append(f"  {self.removed} removed from the archive (hidden or deleted), not archived again")
        if self.corrected:
            lines.append(f"  {self.corrected} emails stored before corrected: the current rules read them differently")
        if self.appended_pieces:
            lines.append(
                f"  {self.appended_pieces} pieces of message bodies cut at unescaped 'From ' "
                "lines, appended to the message before them"
            )
        lines += [f"  skipped {count}: {reason}" for reason, count in sorted(self.skipped.items())]
        lines += [f"  not read to its end: {reason}" for reason in self.damaged]
        lines += [
            f"  parts beyond SATHUB_MAX_MESSAGE_PARTS or nested too deep, kept in the source only: <{message_id}>"
            for message_id in self.parts_left_out
        ]
        return "\n".join(lines)
