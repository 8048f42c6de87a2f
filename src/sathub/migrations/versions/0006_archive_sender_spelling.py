"""Interface B: each email keeps its sender's address as that message spells it.

HyperKitty keys senders by the exact spelling, so `crocker@CAVS.MsState.Edu` and
`crocker@cavs.msstate.edu` are shown as written (spec/archive-api.md, Header rules 2), while
sathub keeps one sender row (one mailman_id) per address in any case. The spelling is a column of
the email; existing rows start with their sender's lowercase address, which a re-import of the
same files corrects (docs/archive-import.md).

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("emails", sa.Column("sender_address", sa.String(254), nullable=True))
    op.execute(
        "UPDATE emails SET sender_address = (SELECT senders.address FROM senders WHERE senders.id = emails.sender_id)"
    )
    with op.batch_alter_table("emails") as batch:
        batch.alter_column("sender_address", existing_type=sa.String(254), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("emails") as batch:
        batch.drop_column("sender_address")
