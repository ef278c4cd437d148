"""PostgreSQL: term statistics for ranking a search of the collection by BM25 without
reading the documents' vectors: per batch of documents written (a segment) their ids and
lengths, and per lexeme of a segment the ids of its documents holding it and how often
(judgeapp.store.postings says how they are used and kept current); filled from the
documents a project holds. SQLite: nothing (FTS5 ranks by BM25 from its own index).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE search_segments (
  segment serial CONSTRAINT pk_search_segments PRIMARY KEY,
  documents integer NOT NULL,
  length bigint NOT NULL,
  doc_ids int4[] NOT NULL,
  lengths int4[] NOT NULL
);
CREATE INDEX ix_search_segments_doc_ids ON search_segments USING gin (doc_ids);
CREATE TABLE search_postings (
  lexeme text COLLATE "C" NOT NULL,
  segment integer NOT NULL,  -- of search_segments, written and taken out with it by the
                             -- store (no foreign key: its check per row cost 0.24 s of
                             -- 2,000 documents' 1.2 s)
  doc_ids int4[] NOT NULL,
  tfs int2[] NOT NULL,
  CONSTRAINT pk_search_postings PRIMARY KEY (lexeme, segment)
);
-- members read them as they read every document (a member judging blind reads only the
-- documents of the pools and of their own judgments, and ranks by ts_rank over those)
ALTER TABLE search_segments ENABLE ROW LEVEL SECURITY;
ALTER TABLE search_postings ENABLE ROW LEVEL SECURITY;
CREATE POLICY search_segments_members_read ON search_segments FOR SELECT
  USING ((SELECT judgeapp_sees_all()));
CREATE POLICY search_postings_members_read ON search_postings FOR SELECT
  USING ((SELECT judgeapp_sees_all()));
"""

# the documents already in the project, SEGMENT at a time in doc id order: each batch's
# lexemes and how often each document holds them, read from the stored vectors (schema
# 0007's `search` column), as judgeapp.store.postings writes them at an import
SEGMENT = 2000
FILL = """
WITH batch AS (
  SELECT doc_id FROM documents WHERE doc_id >= :first ORDER BY doc_id LIMIT :size
), terms AS MATERIALIZED (
  SELECT d.doc_id, t.lexeme, coalesce(array_length(t.positions, 1), 1) AS tf
  FROM documents AS d JOIN batch USING (doc_id), unnest(d.search) AS t
), segment AS (
  INSERT INTO search_segments (documents, length, doc_ids, lengths)
  SELECT count(*), coalesce(sum(l.n), 0), array_agg(b.doc_id ORDER BY b.doc_id),
         array_agg(coalesce(l.n, 0)::int4 ORDER BY b.doc_id)
  FROM batch AS b LEFT JOIN (SELECT doc_id, sum(tf) AS n FROM terms GROUP BY doc_id) AS l
       USING (doc_id)
  HAVING count(*) > 0
  RETURNING segment, doc_ids[array_upper(doc_ids, 1)] AS last
), postings AS (
  INSERT INTO search_postings (lexeme, segment, doc_ids, tfs)
  SELECT t.lexeme, s.segment, array_agg(t.doc_id), array_agg(least(t.tf, 32767)::int2)
  FROM terms AS t CROSS JOIN segment AS s GROUP BY t.lexeme, s.segment
)
SELECT last FROM segment
"""


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    for statement in TABLES.split(";"):  # (no ; inside a statement)
        if statement.strip():
            op.execute(statement)
    first = 0
    while True:
        last = bind.execute(sa.text(FILL), {"first": first, "size": SEGMENT}).scalar()
        if last is None:
            break
        first = int(last) + 1
    op.execute("ANALYZE search_segments")
    op.execute("ANALYZE search_postings")
    # the members made before read them as judgeapp_admit (schema 0006) now grants
    for (role,) in bind.execute(
        sa.text("SELECT db_role FROM assessors WHERE db_role IS NOT NULL ORDER BY id")
    ):
        if bind.execute(sa.text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first():
            bind.execute(sa.text("SELECT judgeapp_admit(:r)"), {"r": role})


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TABLE IF EXISTS search_postings")
        op.execute("DROP TABLE IF EXISTS search_segments")
