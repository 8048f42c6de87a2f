"""What `sathub status import-legacy` reads: the old deployment's MariaDB/MySQL database, or a
CSV export of its report table (`mysql --batch` tab-separated output works too).

Reports come in batches in the order they were made (upstream id order), never all at once:
real tables hold millions of rows."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa

from sathub import db
from sathub.status.migrate.rows import REPORT_COLUMNS

# Upstream's tables, as far as we read them (spec/status-api.md sections 3 and 9).
_reports = sa.table("satellite", sa.column("id"), *(sa.column(name) for name in REPORT_COLUMNS))
_catalog = sa.table(
    "satellite_name", sa.column("id"), sa.column("name"), sa.column("html_element_name"), sa.column("website")
)
_users = sa.table("users", sa.column("id"), sa.column("username"), sa.column("password"), sa.column("email"))

# How exports write NULL: phpMyAdmin and `mysql --batch` write NULL, SELECT ... INTO OUTFILE \N.
_CSV_NULLS = frozenset({"NULL", "\\N"})


class SourceError(Exception):
    """The source cannot be read: unreachable, a table or column missing, no such file."""


def open_source(source: str) -> MariaDBSource | CSVSource:
    """A MariaDB/MySQL URL (mysql://user:pass@host/db) or the path of a CSV export."""
    if "://" in source:
        return MariaDBSource(source)
    return CSVSource(Path(source))


class MariaDBSource:
    """The old database itself; reports are read by id ranges (keyset pagination), so each query
    is a short primary-key range scan and the whole read sees one InnoDB snapshot."""

    def __init__(self, url: str) -> None:
        parsed = db.normalize_url(url)
        if parsed.get_backend_name() != "mysql":
            raise SourceError(f"{parsed.drivername}: the source database must be MariaDB or MySQL (mysql://...).")
        self.label = sa.make_url(url).render_as_string(hide_password=True)
        self._engine = db.create_engine(url)
        try:
            self._conn = self._engine.connect()
        except sa.exc.DBAPIError as exc:
            self._engine.dispose()
            raise SourceError(f"Cannot connect to {self.label}: {exc.orig}") from exc
        inspector = sa.inspect(self._conn)
        self._tables = {
            name: {column["name"].lower() for column in inspector.get_columns(name)}
            for name in inspector.get_table_names()
        }
        if "satellite" not in self._tables:
            self.close()
            raise SourceError(f"{self.label} has no table `satellite` (upstream's reports).")
        missing = set(_reports.c.keys()) - self._tables["satellite"]
        if missing:
            self.close()
            raise SourceError(f"{self.label}: the table `satellite` lacks the columns {', '.join(sorted(missing))}.")

    def count_reports(self) -> int:
        return self._conn.execute(sa.select(sa.func.count()).select_from(_reports)).scalar_one()

    def catalog(self) -> list[dict]:
        """Upstream's catalog as store.load_catalog rows; [] when there is no satellite_name table."""
        if "satellite_name" not in self._tables:
            return []
        rows = self._conn.execute(sa.select(_catalog).order_by(_catalog.c.id)).mappings()
        return [
            {"name": row["html_element_name"], "display_name": row["name"], "website": row["website"]} for row in rows
        ]

    def users(self) -> list[dict]:
        """Upstream's admin accounts (username, password hash, email); [] when there are none."""
        columns = self._tables.get("users", set())
        if not {"username", "password"} <= columns:
            return []
        selected = [_users.c.username, _users.c.password] + ([_users.c.email] if "email" in columns else [])
        rows = self._conn.execute(sa.select(*selected).order_by(_users.c.id)).mappings()
        return [{"username": row["username"], "password": row["password"], "email": row.get("email")} for row in rows]

    def report_batches(self, size: int) -> Iterator[list[dict]]:
        after = None
        while True:
            query = sa.select(_reports).order_by(_reports.c.id).limit(size)
            if after is not None:
                query = query.where(_reports.c.id > after)
            batch = [dict(row) for row in self._conn.execute(query).mappings()]
            if not batch:
                return
            after = batch[-1]["id"]
            yield batch

    def close(self) -> None:
        self._conn.close()
        self._engine.dispose()


class CSVSource:
    """A CSV export of the report table, header row first, applied in file order (export it
    ordered by id). Header names are matched case-insensitively; other columns are ignored.
    Tab-separated `mysql --batch` output is recognised by its header."""

    def __init__(self, path: Path) -> None:
        self.label = str(path)
        self._path = path
        try:
            # Kept open while the rows are read; closed by close() (the source is a context manager).
            self._file = open(path, newline="", encoding="utf-8-sig", errors="replace")  # noqa: SIM115
        except OSError as exc:
            raise SourceError(f"Cannot read {path}: {exc.strerror}.") from exc
        header_line = self._file.readline()
        self._file.seek(0)
        self._reader = csv.reader(self._file, **_dialect(header_line))
        header = [name.strip().lower() for name in next(self._reader, [])]
        missing = [name for name in REPORT_COLUMNS if name not in header]
        if missing:
            self.close()
            raise SourceError(
                f"{path}: the header row lacks the columns {', '.join(missing)} "
                f"(expected at least {', '.join(REPORT_COLUMNS)})."
            )
        self._positions = {name: header.index(name) for name in REPORT_COLUMNS}

    def count_reports(self) -> int:
        """Lines after the header: exact unless a quoted value spans lines (only a progress total)."""
        lines = 0
        with open(self._path, "rb") as raw:
            while chunk := raw.read(1 << 20):
                lines += chunk.count(b"\n")
        return max(lines - 1, 0)

    def catalog(self) -> list[dict]:
        return []  # an export of the report table carries no catalog

    def users(self) -> list[dict]:
        return []

    def report_batches(self, size: int) -> Iterator[list[dict]]:
        batch = []
        for fields in self._reader:
            if not fields:
                continue  # blank line
            batch.append({name: _csv_value(fields, position) for name, position in self._positions.items()})
            if len(batch) == size:
                yield batch
                batch = []
        if batch:
            yield batch

    def close(self) -> None:
        self._file.close()


def _dialect(header_line: str) -> dict:
    if "\t" in header_line:
        # mysql --batch: no quoting, special characters escaped with a backslash.
        return {"delimiter": "\t", "quoting": csv.QUOTE_NONE, "escapechar": "\\"}
    if ";" in header_line and "," not in header_line:
        return {"delimiter": ";"}  # spreadsheets in locales with a decimal comma
    return {"delimiter": ","}


def _csv_value(fields: list[str], position: int) -> str | None:
    if position >= len(fields) or fields[position] in _CSV_NULLS:
        return None
    return fields[position]
