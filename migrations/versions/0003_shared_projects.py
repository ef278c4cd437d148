"""shared projects: a log of committed changes that other processes follow, a stable id per
history event (merging projects judged elsewhere), and the database role of each assessor

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26
"""

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _event_uid(row) -> str:
    """Events recorded before this revision get an id derived from what they say (the
    docno and the assessor's name, not the project's own ids), so two copies of a project
    upgraded apart give the same event the same id and a merge recognises it."""
    text = "\x1f".join("" if v is None else str(v) for v in row)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def upgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    op.create_table(
        "project_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("writer", sa.String(), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project_changes")),
    )
    op.add_column("assessors", sa.Column("db_role", sa.String(), nullable=True))
    op.create_index(op.f("ix_assessors_db_role"), "assessors", ["db_role"], unique=True)
    op.add_column("judgment_history", sa.Column("uid", sa.String(), nullable=True))
    rows = bind.execute(
        sa.text(
            "SELECT h.id, h.qid, d.docno, a.name, h.action, h.origin, h.grade, "
            "h.previous_grade, h.note, h.flagged, h.time_spent, h.at "
            "FROM judgment_history AS h JOIN docnos AS d ON d.id = h.doc_id "
            "JOIN assessors AS a ON a.id = h.assessor_id ORDER BY h.id"
        )
    ).all()
    if rows:
        # the history refuses updates (append-only): lifted for this one fill
        table = " ON judgment_history" if postgres else ""
        op.execute(f"DROP TRIGGER judgment_history_no_update{table}")
        bind.execute(
            sa.text("UPDATE judgment_history SET uid = :uid WHERE id = :id"),
            [{"uid": _event_uid(r[1:]), "id": r[0]} for r in rows],
        )
        if postgres:
            op.execute(
                "CREATE TRIGGER judgment_history_no_update BEFORE UPDATE ON judgment_history "
                "FOR EACH ROW EXECUTE FUNCTION judgment_history_append_only()"
            )
        else:
            op.execute(
                "CREATE TRIGGER judgment_history_no_update BEFORE UPDATE ON judgment_history "
                "BEGIN SELECT RAISE(ABORT, 'judgment_history is append-only'); END"
            )
    op.create_index(op.f("ix_judgment_history_uid"), "judgment_history", ["uid"], unique=True)
    if postgres:
        _row_level_security()
        # the change log tells listeners itself, at commit, with no round trip of its own
        op.execute(
            "CREATE FUNCTION judgeapp_changes_notify() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN PERFORM pg_notify('judgeapp_changes', ''); RETURN NULL; END $$"
        )
        op.execute(
            "CREATE TRIGGER project_changes_notify AFTER INSERT ON project_changes "
            "FOR EACH STATEMENT EXECUTE FUNCTION judgeapp_changes_notify()"
        )


# PostgreSQL: each assessor connects as a database role of their own (`team add`); these
# policies let such a role write only its own assessor's judgments and history events, and
# only the `ui.` settings (its place in the work). The project's owner owns the tables, so
# the policies do not bind it; roles get no other write grant (runs, pools, the scale, other
# tables stay read-only to them).
OWN = "assessor_id IN (SELECT id FROM assessors WHERE db_role = current_user)"
POLICIES = (
    ("judgments", "read", "SELECT", "USING (true)"),
    ("judgments", "insert_own", "INSERT", f"WITH CHECK ({OWN})"),
    ("judgments", "update_own", "UPDATE", f"USING ({OWN}) WITH CHECK ({OWN})"),
    ("judgments", "delete_own", "DELETE", f"USING ({OWN})"),
    ("judgment_history", "read", "SELECT", "USING (true)"),
    ("judgment_history", "append_own", "INSERT", f"WITH CHECK ({OWN})"),
    ("settings", "read", "SELECT", "USING (true)"),
    ("settings", "ui_insert", "INSERT", "WITH CHECK (key LIKE 'ui.%')"),
    ("settings", "ui_update", "UPDATE", "USING (key LIKE 'ui.%') WITH CHECK (key LIKE 'ui.%')"),
    ("settings", "ui_delete", "DELETE", "USING (key LIKE 'ui.%')"),
)


def _row_level_security() -> None:
    for table in sorted({t for t, *_ in POLICIES}):
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
    for table, name, command, clause in POLICIES:
        op.execute(f"CREATE POLICY {table}_{name} ON {table} FOR {command} {clause}")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS project_changes_notify ON project_changes")
        op.execute("DROP FUNCTION IF EXISTS judgeapp_changes_notify()")
        for table, name, *_ in POLICIES:
            op.execute(f"DROP POLICY IF EXISTS {table}_{name} ON {table}")
        for table in sorted({t for t, *_ in POLICIES}):
            op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    op.drop_index(op.f("ix_judgment_history_uid"), table_name="judgment_history")
    with op.batch_alter_table("judgment_history", schema=None) as batch_op:
        batch_op.drop_column("uid")
    op.drop_index(op.f("ix_assessors_db_role"), table_name="assessors")
    with op.batch_alter_table("assessors", schema=None) as batch_op:
        batch_op.drop_column("db_role")
    op.drop_table("project_changes")
