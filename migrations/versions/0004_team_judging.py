"""judging as a team: who judges which topic (assignments), each person's role, and a
real-valued score beside the grade (automatic judges: a probability of relevance)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "assignments",
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("assessor_id", sa.Integer(), nullable=False),
        sa.Column("shared", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assessor_id"], ["assessors.id"], name=op.f("fk_assignments_assessor_id_assessors")
        ),
        sa.PrimaryKeyConstraint("qid", "assessor_id", name=op.f("pk_assignments")),
    )
    # owner, evaluator or assessor (None: decided from the assignments, see judgeapp.services.team)
    op.add_column("assessors", sa.Column("role", sa.String(), nullable=True))
    op.add_column("judgments", sa.Column("score", sa.Float(), nullable=True))
    op.add_column("judgment_history", sa.Column("score", sa.Float(), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        # assessor roles read assignments (their own work list); only the owner writes them
        op.execute("ALTER TABLE assignments ENABLE ROW LEVEL SECURITY")
        op.execute("CREATE POLICY assignments_read ON assignments FOR SELECT USING (true)")


def downgrade() -> None:
    with op.batch_alter_table("judgment_history", schema=None) as batch_op:
        batch_op.drop_column("score")
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.drop_column("score")
    with op.batch_alter_table("assessors", schema=None) as batch_op:
        batch_op.drop_column("role")
    op.drop_table("assignments")
