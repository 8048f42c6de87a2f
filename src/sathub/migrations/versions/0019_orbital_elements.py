"""Interface A knows where the satellites are (docs/orbits.md).

- `satellites.norad_id`: the satellite's NORAD catalog number; modes of one satellite share it.
- `orbital_elements`: every element set loaded, keyed by (norad_id, epoch); a satellite's newest
  epoch is its current set, the older ones its history. The columns are SGP4's own inputs, so a
  set loaded from a TLE and one loaded from an OMM record propagate the same way.
- `data_revision.elements_revision`: moved by every load that changes a current set, what pass
  predictions are cached against.
- `orbit_refresh`: one row, the lease by which one process at a time refreshes the elements from
  `SATHUB_ELEMENTS_URL`, with the outcome of the last attempt.
- `reports.visible`: whether the satellite was above the report's grid square during its
  quarter-hour (NULL: no grid square, no elements, or elements too old to tell).

Columns are added with ALTER TABLE ADD COLUMN, never a batch rebuild: on SQLite a rebuild would drop
the triggers of migrations 0001, 0007 and 0009 on `satellites` and `reports`.

Revision ID: 0019
Revises: 0018
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

_ELEMENTS = ("bstar", "ndot", "nddot", "ecco", "argpo", "inclo", "mo", "no_kozai", "nodeo")


def upgrade() -> None:
    op.add_column("satellites", sa.Column("norad_id", sa.Integer, nullable=True))
    op.create_index("satellites_norad_id", "satellites", ["norad_id"])
    op.add_column("reports", sa.Column("visible", sa.Boolean, nullable=True))
    op.add_column("data_revision", sa.Column("elements_revision", sa.BigInteger, nullable=False, server_default="0"))
    op.create_table(
        "orbital_elements",
        sa.Column("norad_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("epoch", sa.Float(precision=53), primary_key=True),  # Unix seconds, UTC
        sa.Column("object_name", sa.String(255), nullable=False, server_default=""),
        *(sa.Column(name, sa.Float(precision=53), nullable=False) for name in _ELEMENTS),
        sa.Column("source", sa.String(8), nullable=False),  # 'tle' or 'omm'
        sa.Column("loaded_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "orbit_refresh",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("next_due", sa.BigInteger, nullable=False),
        sa.Column("last_success", sa.BigInteger, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("failures", sa.Integer, nullable=False, server_default="0"),
    )
    op.execute("INSERT INTO orbit_refresh (id, next_due, failures) VALUES (1, 0, 0)")


def downgrade() -> None:
    op.drop_table("orbit_refresh")
    op.drop_table("orbital_elements")
    op.drop_index("satellites_norad_id", table_name="satellites")
    # In place, as migration 0009's downgrade does: SQLite 3.35+ drops a column without a rebuild.
    op.drop_column("data_revision", "elements_revision")
    op.drop_column("reports", "visible")
    op.drop_column("satellites", "norad_id")
