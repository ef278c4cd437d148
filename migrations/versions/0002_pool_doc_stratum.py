"""pool documents drawn by stratified sampling record their stratum

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a nullable column: existing pools keep every row as it was (NULL: not a sample)
    with op.batch_alter_table("pool_docs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stratum", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("pool_docs", schema=None) as batch_op:
        batch_op.drop_column("stratum")
