-- the SQLite schema at revision 0008, as the migrations leave it; written by
-- `python migrations/write_head_sqlite.py`, not by hand

CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);

CREATE TABLE assessors (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, db_role VARCHAR, role VARCHAR, 
	CONSTRAINT pk_assessors PRIMARY KEY (id), 
	CONSTRAINT uq_assessors_name UNIQUE (name)
);

CREATE TABLE docnos (
	id INTEGER NOT NULL, 
	docno VARCHAR NOT NULL, 
	CONSTRAINT pk_docnos PRIMARY KEY (id), 
	CONSTRAINT uq_docnos_docno UNIQUE (docno)
);

CREATE TABLE pools (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	strategy VARCHAR NOT NULL, 
	params JSON NOT NULL, 
	judging_order VARCHAR NOT NULL, 
	seed INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	CONSTRAINT pk_pools PRIMARY KEY (id), 
	CONSTRAINT uq_pools_name UNIQUE (name)
);

CREATE TABLE runs (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	tag VARCHAR NOT NULL, 
	source_path VARCHAR, 
	source_sha256 VARCHAR, 
	imported_at DATETIME NOT NULL, 
	n_topics INTEGER NOT NULL, 
	n_entries INTEGER NOT NULL, 
	CONSTRAINT pk_runs PRIMARY KEY (id), 
	CONSTRAINT uq_runs_name UNIQUE (name)
);

CREATE TABLE scale (
	grade INTEGER NOT NULL, 
	label VARCHAR NOT NULL, 
	"key" VARCHAR NOT NULL, definition TEXT DEFAULT '' NOT NULL, 
	CONSTRAINT pk_scale PRIMARY KEY (grade), 
	CONSTRAINT uq_scale_key UNIQUE ("key")
);

CREATE TABLE settings (
	"key" VARCHAR NOT NULL, 
	value JSON, 
	CONSTRAINT pk_settings PRIMARY KEY ("key")
);

CREATE TABLE topics (
	qid VARCHAR NOT NULL, 
	title TEXT NOT NULL, 
	description TEXT NOT NULL, 
	narrative TEXT NOT NULL, 
	fields JSON NOT NULL, 
	source VARCHAR, 
	imported_at DATETIME NOT NULL, 
	CONSTRAINT pk_topics PRIMARY KEY (qid)
);

CREATE TABLE documents (
	doc_id INTEGER NOT NULL, 
	title TEXT NOT NULL, 
	text TEXT NOT NULL, 
	fields JSON NOT NULL, 
	source VARCHAR, 
	CONSTRAINT pk_documents PRIMARY KEY (doc_id), 
	CONSTRAINT fk_documents_doc_id_docnos FOREIGN KEY(doc_id) REFERENCES docnos (id) ON DELETE CASCADE
);

CREATE TABLE pool_docs (
	pool_id INTEGER NOT NULL, 
	qid VARCHAR NOT NULL, 
	doc_id INTEGER NOT NULL, 
	best_rank INTEGER NOT NULL, 
	n_runs INTEGER NOT NULL, 
	run_ids BLOB NOT NULL, 
	ranks BLOB NOT NULL, 
	inclusion_prob FLOAT NOT NULL, 
	added_at DATETIME NOT NULL, stratum INTEGER, 
	CONSTRAINT pk_pool_docs PRIMARY KEY (pool_id, qid, doc_id), 
	CONSTRAINT fk_pool_docs_doc_id_docnos FOREIGN KEY(doc_id) REFERENCES docnos (id), 
	CONSTRAINT fk_pool_docs_pool_id_pools FOREIGN KEY(pool_id) REFERENCES pools (id) ON DELETE CASCADE
);

CREATE TABLE pool_runs (
	pool_id INTEGER NOT NULL, 
	run_id INTEGER NOT NULL, 
	CONSTRAINT pk_pool_runs PRIMARY KEY (pool_id, run_id), 
	CONSTRAINT fk_pool_runs_pool_id_pools FOREIGN KEY(pool_id) REFERENCES pools (id) ON DELETE CASCADE, 
	CONSTRAINT fk_pool_runs_run_id_runs FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);

CREATE TABLE ranked_lists (
	run_id INTEGER NOT NULL, 
	qid VARCHAR NOT NULL, 
	n INTEGER NOT NULL, 
	doc_ids BLOB NOT NULL, 
	scores BLOB NOT NULL, 
	CONSTRAINT pk_ranked_lists PRIMARY KEY (run_id, qid), 
	CONSTRAINT fk_ranked_lists_run_id_runs FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);

CREATE TABLE project_changes (
	id INTEGER NOT NULL, 
	at DATETIME NOT NULL, 
	writer VARCHAR NOT NULL, 
	changes JSON NOT NULL, db_role VARCHAR, 
	CONSTRAINT pk_project_changes PRIMARY KEY (id)
);

CREATE UNIQUE INDEX ix_assessors_db_role ON assessors (db_role);

CREATE TABLE assignments (
	qid VARCHAR NOT NULL, 
	assessor_id INTEGER NOT NULL, 
	shared BOOLEAN NOT NULL, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT pk_assignments PRIMARY KEY (qid, assessor_id), 
	CONSTRAINT fk_assignments_assessor_id_assessors FOREIGN KEY(assessor_id) REFERENCES assessors (id)
);

CREATE TABLE write_lock (
	id INTEGER NOT NULL, 
	CONSTRAINT pk_write_lock PRIMARY KEY (id)
);

CREATE TABLE "judgments" (id INTEGER NOT NULL, qid VARCHAR NOT NULL, doc_id INTEGER NOT NULL, assessor_id INTEGER NOT NULL, grade INTEGER NOT NULL, note TEXT NOT NULL, flagged BOOLEAN NOT NULL, time_spent FLOAT NOT NULL, created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL, score FLOAT, found_by VARCHAR DEFAULT 'pool' NOT NULL, "query" TEXT, CONSTRAINT pk_judgments PRIMARY KEY (id), CONSTRAINT fk_judgments_assessor_id_assessors FOREIGN KEY(assessor_id) REFERENCES assessors (id), CONSTRAINT fk_judgments_doc_id_docnos FOREIGN KEY(doc_id) REFERENCES docnos (id), CONSTRAINT uq_judgments_qid_doc_id_assessor_id UNIQUE (qid, doc_id, assessor_id), CONSTRAINT ck_judgments_grade CHECK (typeof(grade) = 'integer' AND grade BETWEEN -1000 AND 1000), CONSTRAINT ck_judgments_time_spent CHECK (time_spent BETWEEN 0 AND 31536000), CONSTRAINT ck_judgments_score CHECK (score IS NULL OR score BETWEEN -1e300 AND 1e300), CONSTRAINT ck_judgments_note CHECK (length(note) <= 65536), CONSTRAINT ck_judgments_qid CHECK (length(qid) BETWEEN 1 AND 4096), CONSTRAINT ck_judgments_times CHECK (created_at >= '1970-01-01' AND updated_at >= '1970-01-01'), CONSTRAINT ck_judgments_flagged CHECK (flagged = 0 OR flagged = 1));

CREATE INDEX ix_judgments_assessor_qid ON judgments (assessor_id, qid);

CREATE TABLE "judgment_history" (id INTEGER NOT NULL, qid VARCHAR NOT NULL, doc_id INTEGER NOT NULL, assessor_id INTEGER NOT NULL, action VARCHAR NOT NULL, origin VARCHAR NOT NULL, grade INTEGER, previous_grade INTEGER, note TEXT NOT NULL, flagged BOOLEAN NOT NULL, time_spent FLOAT NOT NULL, at DATETIME NOT NULL, uid VARCHAR, score FLOAT, "query" TEXT, CONSTRAINT pk_judgment_history PRIMARY KEY (id), CONSTRAINT fk_judgment_history_assessor_id_assessors FOREIGN KEY(assessor_id) REFERENCES assessors (id), CONSTRAINT fk_judgment_history_doc_id_docnos FOREIGN KEY(doc_id) REFERENCES docnos (id), CONSTRAINT ck_judgment_history_grade CHECK (grade IS NULL OR (typeof(grade) = 'integer' AND grade BETWEEN -1000 AND 1000)), CONSTRAINT ck_judgment_history_previous_grade CHECK (previous_grade IS NULL OR (typeof(previous_grade) = 'integer' AND previous_grade BETWEEN -1000 AND 1000)), CONSTRAINT ck_judgment_history_action CHECK (CASE action WHEN 'delete' THEN grade IS NULL WHEN 'create' THEN grade IS NOT NULL WHEN 'update' THEN grade IS NOT NULL ELSE 0 END), CONSTRAINT ck_judgment_history_time_spent CHECK (time_spent BETWEEN -31536000 AND 31536000), CONSTRAINT ck_judgment_history_score CHECK (score IS NULL OR score BETWEEN -1e300 AND 1e300), CONSTRAINT ck_judgment_history_note CHECK (length(note) <= 65536), CONSTRAINT ck_judgment_history_words CHECK (length(qid) BETWEEN 1 AND 4096 AND length(origin) BETWEEN 1 AND 64 AND (uid IS NULL OR length(uid) <= 64)), CONSTRAINT ck_judgment_history_at CHECK (at >= '1970-01-01'));

CREATE INDEX ix_judgment_history_key ON judgment_history (qid, doc_id, assessor_id, at);

CREATE UNIQUE INDEX ix_judgment_history_uid ON judgment_history (uid);

CREATE TRIGGER judgment_history_no_update BEFORE UPDATE ON judgment_history BEGIN SELECT RAISE(ABORT, 'judgment_history is append-only'); END;

CREATE TRIGGER judgment_history_no_delete BEFORE DELETE ON judgment_history BEGIN SELECT RAISE(ABORT, 'judgment_history is append-only'); END;

CREATE TRIGGER assessors_valid_insert BEFORE INSERT ON assessors WHEN NOT ((typeof(NEW.name) = 'text' AND length(NEW.name) BETWEEN 1 AND 1024 AND NEW.kind IN ('person', 'source', 'automatic', 'adjudicator') AND (NEW.role IS NULL OR NEW.role IN ('owner', 'evaluator', 'assessor')))) BEGIN
  SELECT RAISE(ABORT, 'judgeapp: an assessor has a name of 1 to 1024 characters, a known kind and role') WHERE NOT (typeof(NEW.name) = 'text' AND length(NEW.name) BETWEEN 1 AND 1024 AND NEW.kind IN ('person', 'source', 'automatic', 'adjudicator') AND (NEW.role IS NULL OR NEW.role IN ('owner', 'evaluator', 'assessor')));
END;

CREATE TRIGGER assessors_valid_update BEFORE UPDATE ON assessors WHEN NOT ((typeof(NEW.name) = 'text' AND length(NEW.name) BETWEEN 1 AND 1024 AND NEW.kind IN ('person', 'source', 'automatic', 'adjudicator') AND (NEW.role IS NULL OR NEW.role IN ('owner', 'evaluator', 'assessor')))) BEGIN
  SELECT RAISE(ABORT, 'judgeapp: an assessor has a name of 1 to 1024 characters, a known kind and role') WHERE NOT (typeof(NEW.name) = 'text' AND length(NEW.name) BETWEEN 1 AND 1024 AND NEW.kind IN ('person', 'source', 'automatic', 'adjudicator') AND (NEW.role IS NULL OR NEW.role IN ('owner', 'evaluator', 'assessor')));
END;

CREATE TRIGGER topics_valid_insert BEFORE INSERT ON topics WHEN NOT ((typeof(NEW.qid) = 'text' AND length(NEW.qid) BETWEEN 1 AND 4096)) BEGIN
  SELECT RAISE(ABORT, 'judgeapp: a topic id has 1 to 4096 characters') WHERE NOT (typeof(NEW.qid) = 'text' AND length(NEW.qid) BETWEEN 1 AND 4096);
END;

CREATE TRIGGER topics_valid_update BEFORE UPDATE ON topics WHEN NOT ((typeof(NEW.qid) = 'text' AND length(NEW.qid) BETWEEN 1 AND 4096)) BEGIN
  SELECT RAISE(ABORT, 'judgeapp: a topic id has 1 to 4096 characters') WHERE NOT (typeof(NEW.qid) = 'text' AND length(NEW.qid) BETWEEN 1 AND 4096);
END;

CREATE TRIGGER judgments_rules_insert BEFORE INSERT ON judgments WHEN max(NEW.created_at, NEW.updated_at) > datetime('now', '+1 hour') OR (coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors WHERE id = NEW.assessor_id), 0) AND ((NOT EXISTS (SELECT 1 FROM scale WHERE grade = NEW.grade)) OR (NOT EXISTS (SELECT 1 FROM topics WHERE qid = NEW.qid)) OR ((SELECT CASE WHEN a.role IN ('owner', 'evaluator', 'assessor') THEN a.role WHEN EXISTS (SELECT 1 FROM assignments s WHERE s.assessor_id = a.id) THEN 'assessor' ELSE 'evaluator' END FROM assessors a WHERE a.id = NEW.assessor_id AND a.kind = 'person') = 'assessor' AND EXISTS (SELECT 1 FROM assignments WHERE assessor_id = NEW.assessor_id) AND NOT EXISTS (SELECT 1 FROM assignments WHERE assessor_id = NEW.assessor_id AND qid = NEW.qid)))) OR (SELECT h.grade FROM judgment_history h WHERE h.qid = NEW.qid AND h.doc_id = NEW.doc_id AND h.assessor_id = NEW.assessor_id ORDER BY h.at DESC, h.id DESC LIMIT 1) IS NOT NEW.grade BEGIN
  SELECT RAISE(ABORT, 'judgeapp: a judgment''s times lie between 1970 and now') WHERE max(NEW.created_at, NEW.updated_at) > datetime('now', '+1 hour');
  SELECT RAISE(ABORT, 'judgeapp: a person''s grade is on the project''s scale') WHERE coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors WHERE id = NEW.assessor_id), 0) AND NOT EXISTS (SELECT 1 FROM scale WHERE grade = NEW.grade);
  SELECT RAISE(ABORT, 'judgeapp: a person judges a topic of the project') WHERE coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors WHERE id = NEW.assessor_id), 0) AND NOT EXISTS (SELECT 1 FROM topics WHERE qid = NEW.qid);
  SELECT RAISE(ABORT, 'judgeapp: an assessor with assignments judges their assigned topics') WHERE coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors WHERE id = NEW.assessor_id), 0) AND (SELECT CASE WHEN a.role IN ('owner', 'evaluator', 'assessor') THEN a.role WHEN EXISTS (SELECT 1 FROM assignments s WHERE s.assessor_id = a.id) THEN 'assessor' ELSE 'evaluator' END FROM assessors a WHERE a.id = NEW.assessor_id AND a.kind = 'person') = 'assessor' AND EXISTS (SELECT 1 FROM assignments WHERE assessor_id = NEW.assessor_id) AND NOT EXISTS (SELECT 1 FROM assignments WHERE assessor_id = NEW.assessor_id AND qid = NEW.qid);
  SELECT RAISE(ABORT, 'judgeapp: a judgment changes only with the history event that says so') WHERE (SELECT h.grade FROM judgment_history h WHERE h.qid = NEW.qid AND h.doc_id = NEW.doc_id AND h.assessor_id = NEW.assessor_id ORDER BY h.at DESC, h.id DESC LIMIT 1) IS NOT NEW.grade;
END;

CREATE TRIGGER judgments_rules_update BEFORE UPDATE ON judgments WHEN max(NEW.created_at, NEW.updated_at) > datetime('now', '+1 hour') OR (coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors WHERE id = NEW.assessor_id), 0) AND (NEW.grade IS NOT OLD.grade OR NEW.qid IS NOT OLD.qid OR NEW.assessor_id IS NOT OLD.assessor_id) AND ((NOT EXISTS (SELECT 1 FROM scale WHERE grade = NEW.grade)) OR (NOT EXISTS (SELECT 1 FROM topics WHERE qid = NEW.qid)) OR ((SELECT CASE WHEN a.role IN ('owner', 'evaluator', 'assessor') THEN a.role WHEN EXISTS (SELECT 1 FROM assignments s WHERE s.assessor_id = a.id) THEN 'assessor' ELSE 'evaluator' END FROM assessors a WHERE a.id = NEW.assessor_id AND a.kind = 'person') = 'assessor' AND EXISTS (SELECT 1 FROM assignments WHERE assessor_id = NEW.assessor_id) AND NOT EXISTS (SELECT 1 FROM assignments WHERE assessor_id = NEW.assessor_id AND qid = NEW.qid)))) OR (SELECT h.grade FROM judgment_history h WHERE h.qid = NEW.qid AND h.doc_id = NEW.doc_id AND h.assessor_id = NEW.assessor_id ORDER BY h.at DESC, h.id DESC LIMIT 1) IS NOT NEW.grade BEGIN
  SELECT RAISE(ABORT, 'judgeapp: a judgment''s times lie between 1970 and now') WHERE max(NEW.created_at, NEW.updated_at) > datetime('now', '+1 hour');
  SELECT RAISE(ABORT, 'judgeapp: a person''s grade is on the project''s scale') WHERE coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors WHERE id = NEW.assessor_id), 0) AND (NEW.grade IS NOT OLD.grade OR NEW.qid IS NOT OLD.qid OR NEW.assessor_id IS NOT OLD.assessor_id) AND NOT EXISTS (SELECT 1 FROM scale WHERE grade = NEW.grade);
  SELECT RAISE(ABORT, 'judgeapp: a person judges a topic of the project') WHERE coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors WHERE id = NEW.assessor_id), 0) AND (NEW.grade IS NOT OLD.grade OR NEW.qid IS NOT OLD.qid OR NEW.assessor_id IS NOT OLD.assessor_id) AND NOT EXISTS (SELECT 1 FROM topics WHERE qid = NEW.qid);
  SELECT RAISE(ABORT, 'judgeapp: an assessor with assignments judges their assigned topics') WHERE coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors WHERE id = NEW.assessor_id), 0) AND (NEW.grade IS NOT OLD.grade OR NEW.qid IS NOT OLD.qid OR NEW.assessor_id IS NOT OLD.assessor_id) AND (SELECT CASE WHEN a.role IN ('owner', 'evaluator', 'assessor') THEN a.role WHEN EXISTS (SELECT 1 FROM assignments s WHERE s.assessor_id = a.id) THEN 'assessor' ELSE 'evaluator' END FROM assessors a WHERE a.id = NEW.assessor_id AND a.kind = 'person') = 'assessor' AND EXISTS (SELECT 1 FROM assignments WHERE assessor_id = NEW.assessor_id) AND NOT EXISTS (SELECT 1 FROM assignments WHERE assessor_id = NEW.assessor_id AND qid = NEW.qid);
  SELECT RAISE(ABORT, 'judgeapp: a judgment changes only with the history event that says so') WHERE (SELECT h.grade FROM judgment_history h WHERE h.qid = NEW.qid AND h.doc_id = NEW.doc_id AND h.assessor_id = NEW.assessor_id ORDER BY h.at DESC, h.id DESC LIMIT 1) IS NOT NEW.grade;
END;

CREATE TRIGGER judgments_recorded_delete BEFORE DELETE ON judgments WHEN (SELECT h.grade FROM judgment_history h WHERE h.qid = OLD.qid AND h.doc_id = OLD.doc_id AND h.assessor_id = OLD.assessor_id ORDER BY h.at DESC, h.id DESC LIMIT 1) IS NOT NULL BEGIN
  SELECT RAISE(ABORT, 'judgeapp: a judgment changes only with the history event that says so') WHERE 1;
END;

CREATE TABLE search_log (
	id INTEGER NOT NULL, 
	assessor_id INTEGER NOT NULL, 
	qid VARCHAR, 
	scope VARCHAR NOT NULL, 
	"query" TEXT NOT NULL, 
	results INTEGER NOT NULL, 
	at DATETIME NOT NULL, 
	CONSTRAINT pk_search_log PRIMARY KEY (id), 
	CONSTRAINT fk_search_log_assessor_id_assessors FOREIGN KEY(assessor_id) REFERENCES assessors (id), 
	CONSTRAINT ck_search_log_scope CHECK (scope IN ('collection', 'pool')), 
	CONSTRAINT ck_search_log_query CHECK (length(query) <= 65536 AND (qid IS NULL OR length(qid) BETWEEN 1 AND 4096)), 
	CONSTRAINT ck_search_log_results CHECK (results >= 0), 
	CONSTRAINT ck_search_log_at CHECK (at >= '1970-01-01')
);

CREATE INDEX ix_search_log_assessor_id ON search_log (assessor_id);

CREATE VIRTUAL TABLE documents_fts USING fts5(title, text, content='documents', content_rowid='doc_id', tokenize='porter unicode61 remove_diacritics 2');

