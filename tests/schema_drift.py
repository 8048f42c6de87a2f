"""Comparing a migrated database with a tables.py (tests/status/test_tables.py and
tests/archive/test_tables.py)."""


def same_default(context, inspected_column, metadata_column, inspected, metadata_default, rendered) -> bool:
    """Compare the default values themselves: SQLite reflects DEFAULT '' as "('')", PostgreSQL
    as "''::character varying"."""

    def bare(text):
        return None if text is None else str(text).split("::")[0].strip("()'\" ")

    return bare(inspected) != bare(rendered)
