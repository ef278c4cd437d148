"""initial schema: topics, documents, runs as per-topic arrays, pools, assessors, judgments
with an append-only history

Revision ID: 0001
Revises:
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "assessors",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assessors")),
        sa.UniqueConstraint("name", name=op.f("uq_assessors_name")),
    )
    op.create_table(
        "docnos",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("docno", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_docnos")),
        sa.UniqueConstraint("docno", name=op.f("uq_docnos_docno")),
    )
    op.create_table(
        "pools",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("strategy", sa.String(), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("judging_order", sa.String(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pools")),
        sa.UniqueConstraint("name", name=op.f("uq_pools_name")),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("tag", sa.String(), nullable=False),
        sa.Column("source_path", sa.String(), nullable=True),
        sa.Column("source_sha256", sa.String(), nullable=True),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.Column("n_topics", sa.Integer(), nullable=False),
        sa.Column("n_entries", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
        sa.UniqueConstraint("name", name=op.f("uq_runs_name")),
    )
    op.create_table(
        "scale",
        sa.Column("grade", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("grade", name=op.f("pk_scale")),
        sa.UniqueConstraint("key", name=op.f("uq_scale_key")),
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("value", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_settings")),
    )
    op.create_table(
        "topics",
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("narrative", sa.Text(), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(), nullable=True),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("qid", name=op.f("pk_topics")),
    )
    op.create_table(
        "documents",
        sa.Column("doc_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(
            ["doc_id"], ["docnos.id"], name=op.f("fk_documents_doc_id_docnos"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("doc_id", name=op.f("pk_documents")),
    )
    op.create_table(
        "judgment_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("doc_id", sa.Integer(), nullable=False),
        sa.Column("assessor_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("origin", sa.String(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=True),
        sa.Column("previous_grade", sa.Integer(), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.Column("time_spent", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assessor_id"],
            ["assessors.id"],
            name=op.f("fk_judgment_history_assessor_id_assessors"),
        ),
        sa.ForeignKeyConstraint(
            ["doc_id"], ["docnos.id"], name=op.f("fk_judgment_history_doc_id_docnos")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judgment_history")),
    )
    with op.batch_alter_table("judgment_history", schema=None) as batch_op:
        batch_op.create_index(
            "ix_judgment_history_key", ["qid", "doc_id", "assessor_id"], unique=False
        )
    # The history is evidence of what assessors did: the database itself refuses to rewrite it.
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION judgment_history_append_only() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION 'judgment_history is append-only'; END $$"
        )
    for verb in ("UPDATE", "DELETE"):
        if op.get_bind().dialect.name == "postgresql":
            op.execute(
                f"CREATE TRIGGER judgment_history_no_{verb.lower()} BEFORE {verb} "
                "ON judgment_history FOR EACH ROW EXECUTE FUNCTION judgment_history_append_only()"
            )
        else:
            op.execute(
                f"CREATE TRIGGER judgment_history_no_{verb.lower()} BEFORE {verb} "
                "ON judgment_history BEGIN SELECT RAISE(ABORT, 'judgment_history is append-only'); END"
            )

    op.create_table(
        "judgments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("doc_id", sa.Integer(), nullable=False),
        sa.Column("assessor_id", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.Column("time_spent", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assessor_id"], ["assessors.id"], name=op.f("fk_judgments_assessor_id_assessors")
        ),
        sa.ForeignKeyConstraint(["doc_id"], ["docnos.id"], name=op.f("fk_judgments_doc_id_docnos")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judgments")),
        sa.UniqueConstraint(
            "qid", "doc_id", "assessor_id", name=op.f("uq_judgments_qid_doc_id_assessor_id")
        ),
    )
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.create_index("ix_judgments_assessor_qid", ["assessor_id", "qid"], unique=False)

    op.create_table(
        "pool_docs",
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("doc_id", sa.Integer(), nullable=False),
        sa.Column("best_rank", sa.Integer(), nullable=False),
        sa.Column("n_runs", sa.Integer(), nullable=False),
        sa.Column("run_ids", sa.LargeBinary(), nullable=False),
        sa.Column("ranks", sa.LargeBinary(), nullable=False),
        sa.Column("inclusion_prob", sa.Float(), nullable=False),
        sa.Column("added_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["doc_id"], ["docnos.id"], name=op.f("fk_pool_docs_doc_id_docnos")),
        sa.ForeignKeyConstraint(
            ["pool_id"], ["pools.id"], name=op.f("fk_pool_docs_pool_id_pools"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("pool_id", "qid", "doc_id", name=op.f("pk_pool_docs")),
    )
    op.create_table(
        "pool_runs",
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["pool_id"], ["pools.id"], name=op.f("fk_pool_runs_pool_id_pools"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_pool_runs_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("pool_id", "run_id", name=op.f("pk_pool_runs")),
    )
    op.create_table(
        "ranked_lists",
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("doc_ids", sa.LargeBinary(), nullable=False),
        sa.Column("scores", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_ranked_lists_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("run_id", "qid", name=op.f("pk_ranked_lists")),
    )


def downgrade() -> None:
    op.drop_table("ranked_lists")
    op.drop_table("pool_runs")
    op.drop_table("pool_docs")
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.drop_index("ix_judgments_assessor_qid")

    op.drop_table("judgments")
    on = " ON judgment_history" if op.get_bind().dialect.name == "postgresql" else ""
    op.execute(f"DROP TRIGGER IF EXISTS judgment_history_no_update{on}")
    op.execute(f"DROP TRIGGER IF EXISTS judgment_history_no_delete{on}")
    if on:
        op.execute("DROP FUNCTION IF EXISTS judgment_history_append_only()")
    with op.batch_alter_table("judgment_history", schema=None) as batch_op:
        batch_op.drop_index("ix_judgment_history_key")

    op.drop_table("judgment_history")
    op.drop_table("documents")
    op.drop_table("topics")
    op.drop_table("settings")
    op.drop_table("scale")
    op.drop_table("runs")
    op.drop_table("pools")
    op.drop_table("docnos")
    op.drop_table("assessors")
