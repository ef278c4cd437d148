"""each grade of the project's scale carries a definition (shown to assessors beside the
grade buttons and in the shortcut sheet)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # existing scales keep their grades; a definition is written by the owner later
    with op.batch_alter_table("scale", schema=None) as batch_op:
        batch_op.add_column(sa.Column("definition", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("scale", schema=None) as batch_op:
        batch_op.drop_column("definition")
