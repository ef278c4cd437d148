"""full-text search of the collection, and where a judged document was found: a search
index of the documents (SQLite FTS5; PostgreSQL a tsvector column with a GIN index), each
judgment's `found_by` (pool or search) and the query that found it, and the log of every
assessor's searches

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# SQLite: an FTS5 index over the documents table's title and text ("external content":
# the index holds no second copy of the text). The store keeps it current itself where it
# writes documents (judgeapp.store.search.index_documents), a batch at a time: triggers
# would flush FTS5's pending terms at every row's statement savepoint, and made an import
# of documents 3.5 times the CPU time (20,000 documents of 2.9 KB: 7.0 s against 1.9 s).
# Porter stemming over Unicode words, as PostgreSQL's `english` configuration stems.
FTS_TABLE = "documents_fts"
SQLITE_FTS = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(title, text, content='documents', "
    "content_rowid='doc_id', tokenize='porter unicode61 remove_diacritics 2')"
)
# PostgreSQL: the document's words as a stored, generated tsvector (the title weighted
# above the text), indexed by GIN; the server keeps it current.
PG_SEARCH = (
    "ALTER TABLE documents ADD COLUMN search tsvector GENERATED ALWAYS AS "
    "(setweight(to_tsvector('english', coalesce(title, '')), 'A') || "
    "to_tsvector('english', coalesce(text, ''))) STORED"
)
PG_INDEX = "CREATE INDEX ix_documents_search ON documents USING gin (search)"
# an assessor's role logs its own searches only (as revision 0003 lets it write its own
# judgments only)
OWN = "assessor_id IN (SELECT id FROM assessors WHERE db_role = current_user)"


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    # pool: judged from a pool, the command line or an imported file; search: found by
    # searching the collection, with the query that found it
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("found_by", sa.String(), nullable=False, server_default="pool")
        )
        batch_op.add_column(sa.Column("query", sa.Text(), nullable=True))
    op.add_column("judgment_history", sa.Column("query", sa.Text(), nullable=True))
    op.create_table(
        "search_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assessor_id", sa.Integer(), nullable=False),
        sa.Column("qid", sa.String(), nullable=True),
        sa.Column("scope", sa.String(), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("results", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assessor_id"], ["assessors.id"], name=op.f("fk_search_log_assessor_id_assessors")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_search_log")),
    )
    op.create_index(op.f("ix_search_log_assessor_id"), "search_log", ["assessor_id"])
    if postgres:
        op.execute(PG_SEARCH)
        op.execute(PG_INDEX)
        op.execute("ALTER TABLE search_log ENABLE ROW LEVEL SECURITY")
        op.execute("CREATE POLICY search_log_read ON search_log FOR SELECT USING (true)")
        op.execute(
            f"CREATE POLICY search_log_append_own ON search_log FOR INSERT WITH CHECK ({OWN})"
        )
        # roles made before this revision (team add) may log their searches too
        op.execute(
            "DO $$ DECLARE r text; BEGIN FOR r IN SELECT db_role FROM assessors "
            "WHERE db_role IS NOT NULL LOOP "
            "EXECUTE format('GRANT INSERT ON search_log TO %I', r); "
            "EXECUTE format('GRANT USAGE ON SEQUENCE search_log_id_seq TO %I', r); "
            "END LOOP; END $$"
        )
    else:
        op.execute(SQLITE_FTS)
        # the documents already in the project
        op.execute(f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}) VALUES ('rebuild')")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_documents_search")
        op.execute("ALTER TABLE documents DROP COLUMN IF EXISTS search")
    else:
        op.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
    op.drop_index(op.f("ix_search_log_assessor_id"), table_name="search_log")
    op.drop_table("search_log")
    with op.batch_alter_table("judgment_history", schema=None) as batch_op:
        batch_op.drop_column("query")
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.drop_column("query")
        batch_op.drop_column("found_by")
