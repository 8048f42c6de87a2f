"""What the fault runs send and what the server acknowledged: report bodies (30 % into a set of
hot slots that replace each other), the per-slot ledger of acknowledgements, and the check that
every acknowledged report is stored."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from sathub import db
from sathub.status.rules import period_of_minute

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
VALUES = ("Heard", "Telemetry Only", "Not Heard", "Crew Active")


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
    instant: datetime = field(
        default_factory=lambda: (datetime.now(UTC) - timedelta(minutes=40)).replace(second=0, microsecond=0)
    )

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

    sent: dict = field(default_factory=dict)  # slot -> requests sent
    unanswered: dict = field(default_factory=dict)  # slot -> requests without an answer (may be stored)
    acked: dict = field(default_factory=dict)  # slot -> (id, value) of the highest acknowledged id
    acks: int = 0
    statuses: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)  # (status, body) of each non-201 answer, first 20

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
            rows = conn.execute(
                sa.text(
                    "SELECT id, callsign, day, hour, period, report FROM reports "
                    "WHERE callsign LIKE 'Q%' OR callsign LIKE 'Z%'"
                )
            ).all()
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
    return {
        "acked_slots": len(ledger.acked),
        "stored": len(stored),
        "distinct_sent": len(ledger.sent),
        "missing": missing,
        "wrong": wrong,
        "later_unacked": later_unacked,
        "duplicates": len(duplicates),
        "unknown": len(unknown),
        "unacked_stored": unacked_stored,
        "examples": examples[:5],
    }
