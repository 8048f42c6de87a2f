"""Interface A: a session generation per administrator, so that logging out (or a password reset)
ends the user's sessions on the server, not only in the browser that logged out.

Admin sessions are signed cookies, valid for their lifetime wherever a copy of them went. Each
cookie now carries the generation it was issued in, and is only accepted while the user exists
and the generation is unchanged.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("session_generation", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("session_generation")
