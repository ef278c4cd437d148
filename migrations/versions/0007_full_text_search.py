"""full-text search of the collection, and where a judged document was found: a search
index of the documents (SQLite FTS5; PostgreSQL a tsvector column with a GIN index), each
judgment's `found_by` (pool or search) and the query that found it, and the log of every
assessor's searches; on PostgreSQL a team member judges a document found by search, and
logs their own searches, through the server's functions (revision 0006's model: no table
write privileges), and reads their own searches only

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
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
QUERY = 65_536  # characters of a query (as of a note)
# only valid rows, on both back ends (as revision 0006's rules)
SEARCH_LOG_CHECKS = [
    ("scope", "scope IN ('collection', 'pool')"),
    ("query", f"length(query) <= {QUERY} AND (qid IS NULL OR length(qid) BETWEEN 1 AND 4096)"),
    ("results", "results >= 0"),
    ("at", "at >= '1970-01-01'"),
]

# PostgreSQL, team members (revision 0006: a member's role holds no INSERT, UPDATE or DELETE
# on any table; it writes through SECURITY DEFINER functions that check every argument, and
# reads through row-level security). judgeapp_judge takes where the document was found and
# the query; judgeapp_log_search logs one search of the member's own; the search log reads
# as each member's own searches only (never another's, blind or not); judgeapp_admit grants
# the new function. Written out whole, as they are at this revision.
FUNCTIONS = r"""
DROP FUNCTION judgeapp_judge(text, integer, integer, integer, text, boolean, integer, text,
                             boolean, double precision, text, text);

-- a member's judgment (the one way a member writes one): `expected` is the state the
-- program read before ('changed' is returned, nothing written, if it changed meanwhile); a
-- grade of NULL removes the judgment. A judgment made now takes `found_by` (search: found by
-- searching the collection for `query`); one that exists keeps its own. The change is logged
-- for other windows.
CREATE FUNCTION judgeapp_judge(
  p_qid text, p_doc_id integer, p_assessor_id integer,
  p_expected_grade integer, p_expected_note text, p_expected_flagged boolean,
  p_grade integer, p_note text, p_flagged boolean, p_time_spent double precision,
  p_origin text, p_writer text, p_found_by text, p_query text)
RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
DECLARE
  me integer := judgeapp_me();
  cur judgments%ROWTYPE;
  act text;
BEGIN
  IF me IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      'judgeapp: role %s is not on the project''s team', session_user);
  END IF;
  IF p_assessor_id IS DISTINCT FROM me THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      'judgeapp: role %s judges as assessor %s only', session_user,
      (SELECT name FROM assessors WHERE id = me));
  END IF;
  IF p_origin IS NULL OR p_origin NOT IN ('judge', 'search', 'undo', 'redo', 'cli') THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: a judgment''s origin is judge, search, undo, redo or cli, not %s', p_origin);
  END IF;
  IF p_found_by IS NULL OR p_found_by NOT IN ('pool', 'search')
     OR (p_found_by = 'search') <> (p_query IS NOT NULL)
     OR char_length(p_query) > {query} THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE =
      'judgeapp: a judgment is found in a pool, or by a search with its query (at most '
      '{query} characters)';
  END IF;
  IF p_writer IS NULL OR char_length(p_writer) > 64 OR p_time_spent IS NULL
     OR NOT (p_time_spent >= -{year} AND p_time_spent <= {year}) THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE =
      'judgeapp: time spent is a number of seconds within a year';
  END IF;
  SELECT * INTO cur FROM judgments
    WHERE qid = p_qid AND doc_id = p_doc_id AND assessor_id = me FOR UPDATE;
  IF FOUND THEN
    IF cur.grade IS DISTINCT FROM p_expected_grade OR cur.note IS DISTINCT FROM p_expected_note
       OR cur.flagged IS DISTINCT FROM p_expected_flagged THEN
      RETURN 'changed';
    END IF;
  ELSIF p_expected_grade IS NOT NULL THEN
    RETURN 'changed';
  END IF;
  IF p_grade IS NULL THEN
    IF NOT FOUND THEN
      RETURN 'none';
    END IF;
    act := 'delete';
  ELSIF NOT FOUND THEN
    act := 'create';
  ELSE
    act := 'update';
  END IF;
  BEGIN
    -- the event first: the judgment then changes to what its newest event says
    INSERT INTO judgment_history (uid, qid, doc_id, assessor_id, action, origin, grade,
                                  previous_grade, note, flagged, time_spent, at, query)
    VALUES (replace(gen_random_uuid()::text, '-', ''), p_qid, p_doc_id, me, act, p_origin,
            p_grade, cur.grade, CASE WHEN p_grade IS NULL THEN '' ELSE COALESCE(p_note, '') END,
            CASE WHEN p_grade IS NULL THEN false ELSE COALESCE(p_flagged, false) END,
            p_time_spent, judgeapp_utc(), CASE WHEN p_origin = 'search' THEN p_query END);
    IF act = 'delete' THEN
      DELETE FROM judgments WHERE id = cur.id;
    ELSIF act = 'create' THEN
      INSERT INTO judgments (qid, doc_id, assessor_id, grade, note, flagged, time_spent,
                             created_at, updated_at, found_by, query)
      VALUES (p_qid, p_doc_id, me, p_grade, COALESCE(p_note, ''), COALESCE(p_flagged, false),
              GREATEST(p_time_spent, 0), judgeapp_utc(), judgeapp_utc(), p_found_by,
              CASE WHEN p_found_by = 'search' THEN p_query END);
    ELSE
      UPDATE judgments SET grade = p_grade, note = COALESCE(p_note, ''),
          flagged = COALESCE(p_flagged, false),
          time_spent = LEAST(GREATEST(time_spent + p_time_spent, 0), {year})
        WHERE id = cur.id;
    END IF;
  EXCEPTION WHEN unique_violation THEN  -- another window of hers was first: read again
    RETURN 'changed';
  END;
  INSERT INTO project_changes (at, writer, changes, db_role)
  VALUES (judgeapp_utc(), p_writer,
          json_build_object('topics', json_build_array(p_qid),
                            'judged', json_build_array(json_build_array(p_qid, p_doc_id))),
          session_user);
  RETURN act;
END $$;

-- one search of the member's own: of a topic they may read (or none), at the server's time
CREATE FUNCTION judgeapp_log_search(
  p_assessor_id integer, p_qid text, p_scope text, p_query text, p_results integer)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
DECLARE
  me integer := judgeapp_me();
  topics text[] := judgeapp_topics();
BEGIN
  IF me IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      'judgeapp: role %s is not on the project''s team', session_user);
  END IF;
  IF p_assessor_id IS DISTINCT FROM me THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      'judgeapp: role %s logs searches as assessor %s only', session_user,
      (SELECT name FROM assessors WHERE id = me));
  END IF;
  IF p_qid IS NOT NULL AND (NOT EXISTS (SELECT 1 FROM topics WHERE qid = p_qid)
                            OR NOT (topics IS NULL OR p_qid = ANY (topics))) THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: role %s searches no topic %s', session_user, p_qid);
  END IF;
  INSERT INTO search_log (assessor_id, qid, scope, query, results, at)
  VALUES (me, p_qid, p_scope, p_query, p_results, judgeapp_utc());
END $$;

-- what `team add` grants a member (revision 0006's, with judgeapp_log_search)
CREATE OR REPLACE FUNCTION judgeapp_admit(p_role text) RETURNS void LANGUAGE plpgsql
SET search_path = {schema}, pg_temp AS $$
DECLARE
  t text;
BEGIN
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), p_role);
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', current_schema(), p_role);
  EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM %I', current_schema(), p_role);
  EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM %I', current_schema(), p_role);
  EXECUTE format('REVOKE ALL ON ALL FUNCTIONS IN SCHEMA %I FROM %I', current_schema(), p_role);
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema()
           AND tablename NOT IN ('write_lock', 'pool_docs', 'pools') LOOP
    EXECUTE format('GRANT SELECT ON %I TO %I', t, p_role);
  END LOOP;
  EXECUTE format('GRANT SELECT (pool_id, qid, doc_id, inclusion_prob, stratum, added_at) '
                 'ON pool_docs TO %I', p_role);
  EXECUTE format('GRANT SELECT (id, name, strategy, judging_order, seed, created_at, '
                 'updated_at) ON pools TO %I', p_role);
  FOR t IN SELECT p.oid::regprocedure::text FROM pg_proc p
           WHERE p.pronamespace = current_schema()::regnamespace
           AND p.proname IN ('judgeapp_judge', 'judgeapp_intern', 'judgeapp_put_setting',
                             'judgeapp_log_search',
                             'judgeapp_pool_docs', 'judgeapp_pool_params', 'judgeapp_scope',
                             -- what the policies ask
                             'judgeapp_me', 'judgeapp_sees_all', 'judgeapp_topics',
                             'judgeapp_own_setting') LOOP
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', t, p_role);
  END LOOP;
END $$;
"""


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
        *(sa.CheckConstraint(c, name=op.f(f"ck_search_log_{n}")) for n, c in SEARCH_LOG_CHECKS),
    )
    op.create_index(op.f("ix_search_log_assessor_id"), "search_log", ["assessor_id"])
    if postgres:
        op.execute(PG_SEARCH)
        op.execute(PG_INDEX)
        _postgres_members(op.get_bind())
    else:
        op.execute(SQLITE_FTS)
        # the documents already in the project
        op.execute(f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}) VALUES ('rebuild')")


def _plain(bind: sa.Connection, sql: str) -> None:
    """Statements run by the driver as written (psycopg would read format()'s % as its own
    placeholders if given parameters)."""
    with bind.connection.driver_connection.cursor() as cursor:
        cursor.execute(sql)


def _postgres_members(bind: sa.Connection) -> None:
    schema = bind.execute(sa.text("SELECT current_schema()")).scalar_one()
    quoted = bind.dialect.identifier_preparer.quote(schema)
    _plain(bind, FUNCTIONS.format(schema=quoted, year=31_536_000, query=QUERY))
    # each member reads their own searches only; writes through judgeapp_log_search
    op.execute("ALTER TABLE search_log ENABLE ROW LEVEL SECURITY")
    op.execute(
        "CREATE POLICY search_log_members_read ON search_log FOR SELECT "
        "USING (assessor_id = (SELECT judgeapp_me()))"
    )
    _readmit(bind)


def _readmit(bind: sa.Connection) -> None:
    """The members made before: their grants as judgeapp_admit now gives them."""
    for (signature,) in bind.execute(
        sa.text(
            "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = "
            "current_schema()::regnamespace AND p.proname IN ('judgeapp_judge', "
            "'judgeapp_log_search')"
        )
    ):  # (EXECUTE is PUBLIC's by default)
        op.execute(f"REVOKE ALL ON FUNCTION {signature} FROM PUBLIC")
    for (role,) in bind.execute(
        sa.text("SELECT db_role FROM assessors WHERE db_role IS NOT NULL ORDER BY id")
    ):
        if bind.execute(sa.text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first():
            bind.execute(sa.text("SELECT judgeapp_admit(:r)"), {"r": role})


def _revision_0006_functions() -> str:
    """Revision 0006's judgeapp_judge and judgeapp_admit, as that revision wrote them (a
    downgrade puts them back)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).with_name("0006_server_guards.py")
    spec = importlib.util.spec_from_file_location("judgeapp_revision_0006", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parts = module.FUNCTIONS.split("\nCREATE FUNCTION ")
    wanted = [p for p in parts if p.startswith(("judgeapp_judge(", "judgeapp_admit("))]
    return "".join(
        "\nCREATE OR REPLACE FUNCTION " + p.split("\n\n--")[0].split("\n\nCREATE")[0] + "\n"
        for p in wanted
    )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        schema = bind.execute(sa.text("SELECT current_schema()")).scalar_one()
        quoted = bind.dialect.identifier_preparer.quote(schema)
        op.execute(
            "DROP FUNCTION IF EXISTS judgeapp_log_search(integer, text, text, text, integer)"
        )
        op.execute(
            "DROP FUNCTION IF EXISTS judgeapp_judge(text, integer, integer, integer, text, "
            "boolean, integer, text, boolean, double precision, text, text, text, text)"
        )
        _plain(bind, _revision_0006_functions().format(schema=quoted, year=31_536_000))
        _readmit(bind)
        op.execute("DROP POLICY IF EXISTS search_log_members_read ON search_log")
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
