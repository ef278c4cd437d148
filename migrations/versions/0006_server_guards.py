"""the database guards a project by itself: only valid rows (grades on the scale, topics that
exist, assignments kept, finite times, bounded sizes, times from the server's clock, a history
that agrees with the judgments), and on PostgreSQL a team member's role reads only what their
window shows and writes only through functions, never holding a lock the team waits on

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27

Existing rows are looked at first: what can be set right without losing anything is (time
spent that is not a number, negative or over a year becomes 0; a time before 1970 or in the
future becomes the upgrade's; a score that is not finite is dropped; a judgment whose history
does not end in it gets the history event that does, origin `repair`); what cannot is kept and
reported (a grade off the scale, a topic the project lacks, an over-long note), in the
setting `checks.0006` (`info` lists it). From here on the database refuses such rows.

Written here as it is at this revision, not imported from the code: the rules a later
revision changes are changed by that revision. docs/team.md says why each part is built so.
"""

import json
import re
import uuid
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

GRADES = 1000  # a grade lies within -GRADES..GRADES (as the readers take them)
YEAR_S = 31_536_000  # time spent on one judgment, at most (seconds)
NOTE = 65_536  # characters of a note
TOKEN = 4096  # characters of a topic id or docno (the readers' longest token, in bytes)
NAME = 1024  # characters of an assessor's name
FUTURE = "+1 hour"  # how far ahead of the clock a time may be (clocks of two machines)

# Row rules: (table, name, PostgreSQL CHECK, SQLite CHECK, what the rule says), constraint
# ck_TABLE_NAME on both. SQLite stores anything in any column, so its conditions check the
# type too (a NaN arrives there as NULL, and NOT NULL refuses it). A CHECK is evaluated where
# the row is written, at a fraction of a trigger's cost (a bulk import of 128,000 judgments
# writes as many history events); what a CHECK cannot say (the clock, other tables) is said
# by triggers. SQLite's judgments and history get theirs by rebuilding the two tables;
# assessors and topics (small, and referred to) by triggers.
ROWS = [
    ("judgments", "grade", f"grade BETWEEN -{GRADES} AND {GRADES}",
     f"typeof(grade) = 'integer' AND grade BETWEEN -{GRADES} AND {GRADES}",
     f"a grade is a whole number from -{GRADES} to {GRADES}"),
    # (in SQLite a text or a blob compares greater than any number, and fails a range)
    ("judgments", "time_spent", f"time_spent >= 0 AND time_spent <= {YEAR_S}",
     f"time_spent BETWEEN 0 AND {YEAR_S}",
     "time spent is a number of seconds from 0 to a year"),
    ("judgments", "score", "score IS NULL OR (score >= -1e300 AND score <= 1e300)",
     "score IS NULL OR score BETWEEN -1e300 AND 1e300",
     "a score is a finite number"),
    ("judgments", "note", f"char_length(note) <= {NOTE}", f"length(note) <= {NOTE}",
     f"a note has at most {NOTE} characters"),
    ("judgments", "qid", f"char_length(qid) BETWEEN 1 AND {TOKEN}",
     f"length(qid) BETWEEN 1 AND {TOKEN}",
     f"a topic id has 1 to {TOKEN} characters"),
    # (an SQLite time is text: a number compares less than any text, and fails)
    ("judgments", "times", "created_at >= '1970-01-01' AND updated_at >= '1970-01-01'",
     "created_at >= '1970-01-01' AND updated_at >= '1970-01-01'",
     "a judgment's times lie between 1970 and now"),
    ("judgments", "flagged", None, "flagged = 0 OR flagged = 1", "flagged is true or false"),
    ("judgment_history", "grade", f"grade IS NULL OR grade BETWEEN -{GRADES} AND {GRADES}",
     f"grade IS NULL OR (typeof(grade) = 'integer' AND grade BETWEEN -{GRADES} AND {GRADES})",
     f"a grade is a whole number from -{GRADES} to {GRADES}"),
    ("judgment_history", "previous_grade",
     f"previous_grade IS NULL OR previous_grade BETWEEN -{GRADES} AND {GRADES}",
     "previous_grade IS NULL OR (typeof(previous_grade) = 'integer' AND "
     f"previous_grade BETWEEN -{GRADES} AND {GRADES})",
     f"a grade is a whole number from -{GRADES} to {GRADES}"),
    ("judgment_history", "action",
     "action IN ('create', 'update', 'delete') AND (action = 'delete') = (grade IS NULL)",
     # (ORs, not IN: SQLite builds a table for an IN list at each row a CHECK sees)
     "CASE action WHEN 'delete' THEN grade IS NULL WHEN 'create' THEN grade IS NOT NULL "
     "WHEN 'update' THEN grade IS NOT NULL ELSE 0 END",
     "an event creates, updates or deletes a judgment, and only a deletion has no grade"),
    ("judgment_history", "time_spent", f"time_spent >= -{YEAR_S} AND time_spent <= {YEAR_S}",
     f"time_spent BETWEEN -{YEAR_S} AND {YEAR_S}",
     "time spent is a number of seconds within a year"),
    ("judgment_history", "score", "score IS NULL OR (score >= -1e300 AND score <= 1e300)",
     "score IS NULL OR score BETWEEN -1e300 AND 1e300",
     "a score is a finite number"),
    ("judgment_history", "note", f"char_length(note) <= {NOTE}", f"length(note) <= {NOTE}",
     f"a note has at most {NOTE} characters"),
    ("judgment_history", "words",
     f"char_length(qid) BETWEEN 1 AND {TOKEN} AND char_length(origin) BETWEEN 1 AND 64 "
     "AND (uid IS NULL OR char_length(uid) <= 64)",
     f"length(qid) BETWEEN 1 AND {TOKEN} AND length(origin) BETWEEN 1 AND 64 AND "
     "(uid IS NULL OR length(uid) <= 64)",
     "a topic id, origin or event id of a sane length"),
    ("judgment_history", "at", "at >= '1970-01-01'", "at >= '1970-01-01'",
     "an event's time lies between 1970 and now"),
    ("assessors", "name",
     f"char_length(name) BETWEEN 1 AND {NAME} AND kind IN ('person', 'source', 'automatic', "
     "'adjudicator') AND (role IS NULL OR role IN ('owner', 'evaluator', 'assessor'))",
     f"typeof(name) = 'text' AND length(name) BETWEEN 1 AND {NAME} AND kind IN "
     "('person', 'source', 'automatic', 'adjudicator') AND (role IS NULL OR role IN "
     "('owner', 'evaluator', 'assessor'))",
     f"an assessor has a name of 1 to {NAME} characters, a known kind and role"),
    ("topics", "qid", f"char_length(qid) BETWEEN 1 AND {TOKEN}",
     f"typeof(qid) = 'text' AND length(qid) BETWEEN 1 AND {TOKEN}",
     f"a topic id has 1 to {TOKEN} characters"),
    ("docnos", "docno", f"char_length(docno) BETWEEN 1 AND {TOKEN}", None,
     f"a docno has 1 to {TOKEN} characters"),
]  # fmt: skip

# What people's judgments (persons and adjudicators, not imported qrels or automatic judges)
# must also be, checked against other tables: SQLite conditions on NEW (the PostgreSQL trigger
# function below says the same in PL/pgSQL).
PERSON = (
    "coalesce((SELECT kind = 'person' OR kind = 'adjudicator' FROM assessors "
    "WHERE id = NEW.assessor_id), 0)"
)
ASSESSOR_ROLE = (
    "(SELECT CASE WHEN a.role IN ('owner', 'evaluator', 'assessor') THEN a.role "
    "WHEN EXISTS (SELECT 1 FROM assignments s WHERE s.assessor_id = a.id) THEN 'assessor' "
    "ELSE 'evaluator' END FROM assessors a WHERE a.id = NEW.assessor_id AND a.kind = 'person')"
)
PEOPLE = [
    ("NOT EXISTS (SELECT 1 FROM scale WHERE grade = NEW.grade)",
     "a person's grade is on the project's scale"),
    ("NOT EXISTS (SELECT 1 FROM topics WHERE qid = NEW.qid)",
     "a person judges a topic of the project"),
    (f"{ASSESSOR_ROLE} = 'assessor' AND EXISTS (SELECT 1 FROM assignments WHERE "
     "assessor_id = NEW.assessor_id) AND NOT EXISTS (SELECT 1 FROM assignments WHERE "
     "assessor_id = NEW.assessor_id AND qid = NEW.qid)",
     "an assessor with assignments judges their assigned topics"),
]  # fmt: skip

# A judgment changes only with the history event that says so: the newest event of its key
# (by time, then order) has its grade, or is a deletion when the judgment is removed. So the
# writers add the event first, then change the judgment, and a trigger on the judgment checks
# (on both back ends; found through the history's index on the key and time). An event added
# without a change of its judgment is not caught here (SQLite has no deferred triggers).
NEWEST = (
    "(SELECT h.grade FROM judgment_history h WHERE h.qid = {row}.qid AND h.doc_id = "
    "{row}.doc_id AND h.assessor_id = {row}.assessor_id ORDER BY h.at DESC, h.id DESC LIMIT 1)"
)
RECORDED = "a judgment changes only with the history event that says so"


def _raise(condition: str, says: str) -> str:
    return (
        f"SELECT RAISE(ABORT, 'judgeapp: {says.replace(chr(39), chr(39) * 2)}') WHERE {condition};"
    )


CHECKED = ("judgments", "judgment_history")  # SQLite: rebuilt with their CHECK constraints
LATER = f"datetime('now', '{FUTURE}')"
APPEND_ONLY = (
    "CREATE TRIGGER judgment_history_no_{verb} BEFORE {VERB} ON judgment_history "
    "BEGIN SELECT RAISE(ABORT, 'judgment_history is append-only'); END"
)


def sqlite_triggers() -> list[str]:
    """What SQLite's CHECK constraints cannot say, as triggers. Each trigger's WHEN holds the
    whole test, so a valid row costs one expression; the body says which rule it breaks."""
    statements = []
    for table in ("assessors", "topics"):  # small, and referred to: triggers, no rebuild
        rules = [(cond, says) for t, _n, _pg, cond, says in ROWS if t == table]
        for verb in ("INSERT", "UPDATE"):
            valid = " AND ".join(f"({_new(cond)})" for cond, _ in rules)
            body = [_raise(f"NOT ({_new(cond)})", says) for cond, says in rules]
            statements.append(
                f"CREATE TRIGGER {table}_valid_{verb.lower()} BEFORE {verb} ON {table} "
                f"WHEN NOT ({valid}) BEGIN\n  " + "\n  ".join(body) + "\nEND"
            )
    future = f"max(NEW.created_at, NEW.updated_at) > {LATER}"
    for verb in ("INSERT", "UPDATE"):
        changed = "" if verb == "INSERT" else (
            " AND (NEW.grade IS NOT OLD.grade OR NEW.qid IS NOT OLD.qid OR "
            "NEW.assessor_id IS NOT OLD.assessor_id)"
        )  # fmt: skip
        people = f"{PERSON}{changed} AND (" + " OR ".join(f"({c})" for c, _ in PEOPLE) + ")"
        unrecorded = f"{NEWEST.format(row='NEW')} IS NOT NEW.grade"
        body = [
            _raise(future, "a judgment's times lie between 1970 and now"),
            *(_raise(f"{PERSON}{changed} AND {c}", says) for c, says in PEOPLE),
            _raise(unrecorded, RECORDED),
        ]
        statements.append(
            f"CREATE TRIGGER judgments_rules_{verb.lower()} BEFORE {verb} ON judgments "
            f"WHEN {future} OR ({people}) OR {unrecorded} BEGIN\n  " + "\n  ".join(body) + "\nEND"
        )
    statements.append(
        "CREATE TRIGGER judgments_recorded_delete BEFORE DELETE ON judgments "
        f"WHEN {NEWEST.format(row='OLD')} IS NOT NULL BEGIN\n  " + _raise("1", RECORDED) + "\nEND"
    )
    # (the history's events are checked by its CHECKs alone: a trigger costs SQLite about
    # as much as the row it checks, and a bulk import writes an event per judgment. An
    # event's time ahead of the clock comes only from another project: `merge` refuses it)
    return statements


def _new(condition: str) -> str:
    """A CHECK condition on a table's columns as a trigger's condition on NEW's."""
    return re.sub(
        r"(?<![.\w'])([a-z_]+)(?=\s*(?:[<>=!]|IS |BETWEEN |IN |\)|$))", r"NEW.\1", condition
    )


# the two tables as revision 0005 left them, rebuilt with their CHECKs (written out here, not
# reflected: a new project's schema must be this one, statement for statement)
REBUILT = {
    "judgments": (
        "id INTEGER NOT NULL, qid VARCHAR NOT NULL, doc_id INTEGER NOT NULL, "
        "assessor_id INTEGER NOT NULL, grade INTEGER NOT NULL, note TEXT NOT NULL, "
        "flagged BOOLEAN NOT NULL, time_spent FLOAT NOT NULL, created_at DATETIME NOT NULL, "
        "updated_at DATETIME NOT NULL, score FLOAT",
        "CONSTRAINT pk_judgments PRIMARY KEY (id), CONSTRAINT "
        "fk_judgments_assessor_id_assessors FOREIGN KEY(assessor_id) REFERENCES assessors (id), "
        "CONSTRAINT fk_judgments_doc_id_docnos FOREIGN KEY(doc_id) REFERENCES docnos (id), "
        "CONSTRAINT uq_judgments_qid_doc_id_assessor_id UNIQUE (qid, doc_id, assessor_id)",
        ["CREATE INDEX ix_judgments_assessor_qid ON judgments (assessor_id, qid)"],
    ),
    "judgment_history": (
        "id INTEGER NOT NULL, qid VARCHAR NOT NULL, doc_id INTEGER NOT NULL, "
        "assessor_id INTEGER NOT NULL, action VARCHAR NOT NULL, origin VARCHAR NOT NULL, "
        "grade INTEGER, previous_grade INTEGER, note TEXT NOT NULL, flagged BOOLEAN NOT NULL, "
        "time_spent FLOAT NOT NULL, at DATETIME NOT NULL, uid VARCHAR, score FLOAT",
        "CONSTRAINT pk_judgment_history PRIMARY KEY (id), CONSTRAINT "
        "fk_judgment_history_assessor_id_assessors FOREIGN KEY(assessor_id) REFERENCES "
        "assessors (id), CONSTRAINT fk_judgment_history_doc_id_docnos FOREIGN KEY(doc_id) "
        "REFERENCES docnos (id)",
        [
            "CREATE INDEX ix_judgment_history_key ON judgment_history "
            "(qid, doc_id, assessor_id, at)",
            "CREATE UNIQUE INDEX ix_judgment_history_uid ON judgment_history (uid)",
            *(APPEND_ONLY.format(verb=v, VERB=v.upper()) for v in ("update", "delete")),
        ],
    ),
}


def _sqlite_checks(bind: sa.Connection, report: dict) -> None:
    """Rebuild judgments and judgment_history with their CHECK constraints (a new table, the
    rows copied, the old dropped and the new renamed, as Alembic's batch mode does), with
    their indexes and the history's append-only triggers. SQLite cannot keep a row that a
    CHECK refuses (PostgreSQL keeps it, the constraint NOT VALID): such rows, which only a
    script can have written, are first moved whole to TABLE_kept_0006 and reported."""
    for verb in ("update", "delete"):  # (rows may move out of the history, below)
        op.execute(f"DROP TRIGGER IF EXISTS judgment_history_no_{verb}")
    for table, (columns, constraints, after) in REBUILT.items():
        rules = [(name, cond) for t, name, _pg, cond, _w in ROWS if t == table]
        valid = " AND ".join(f"({cond})" for _name, cond in rules)
        broken = _count(bind, f"SELECT count(*) FROM {table} WHERE NOT ({valid})")
        if broken:
            op.execute(
                f"CREATE TABLE {table}_kept_0006 AS SELECT * FROM {table} WHERE NOT ({valid})"
            )
            op.execute(f"DELETE FROM {table} WHERE NOT ({valid})")
            report["kept"][f"{table} rows a CHECK refuses, moved to {table}_kept_0006"] = broken
        checks = ", ".join(f"CONSTRAINT ck_{table}_{name} CHECK ({cond})" for name, cond in rules)
        names = ", ".join(part.split()[0] for part in columns.split(", "))
        op.execute(f"CREATE TABLE _new_{table} ({columns}, {constraints}, {checks})")
        op.execute(f"INSERT INTO _new_{table} ({names}) SELECT {names} FROM {table}")
        op.execute(f"DROP TABLE {table}")
        op.execute(f"ALTER TABLE _new_{table} RENAME TO {table}")
        for statement in after:
            op.execute(statement)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


# -- existing rows -----------------------------------------------------------------------------
def repair_and_report(bind: sa.Connection) -> dict:
    """Set right what can be without losing anything; count what cannot (kept as it is)."""
    postgres = bind.dialect.name == "postgresql"
    now = _now()
    ahead = (
        "now() AT TIME ZONE 'UTC' + interval '1 hour'"
        if postgres
        else f"datetime('now', '{FUTURE}')"
    )
    bad_time = "NOT (time_spent >= 0 AND time_spent <= :year)" if postgres else (
        "typeof(time_spent) NOT IN ('integer', 'real') OR time_spent < 0 OR time_spent > :year"
    )  # fmt: skip
    bad_score = "NOT (score >= -1e300 AND score <= 1e300)" if postgres else (
        "typeof(score) NOT IN ('integer', 'real') OR abs(score) > 1e300"
    )  # fmt: skip
    repaired = {
        "time spent set to 0 (not a number, negative or over a year)": bind.execute(
            sa.text(f"UPDATE judgments SET time_spent = 0 WHERE {bad_time}"), {"year": YEAR_S}
        ).rowcount,
        "scores dropped (not finite)": bind.execute(
            sa.text(f"UPDATE judgments SET score = NULL WHERE score IS NOT NULL AND ({bad_score})")
        ).rowcount,
    }
    times = 0
    for column in ("created_at", "updated_at"):
        times += bind.execute(
            sa.text(
                f"UPDATE judgments SET {column} = :now WHERE {column} < '1970-01-01' "
                f"OR {column} > {ahead}"
            ),
            {"now": now},
        ).rowcount
    repaired["judgment times set to the upgrade's (before 1970 or in the future)"] = times
    if postgres:
        owner = "(SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'judgments'::regclass)"
        repaired["the owner's own role unlinked from an assessor"] = bind.execute(
            sa.text(f"UPDATE assessors SET db_role = NULL WHERE db_role = {owner}")
        ).rowcount
    repaired["history events added where the history did not end in the judgment"] = _mend_history(
        bind, now
    )
    people = "a.kind IN ('person', 'adjudicator')"
    kept = {
        "judgments with a grade outside -1000..1000": _count(
            bind, f"SELECT count(*) FROM judgments WHERE NOT (grade BETWEEN -{GRADES} AND {GRADES})"
        ),
        "people's judgments with a grade off the project's scale": _count(
            bind,
            "SELECT count(*) FROM judgments j JOIN assessors a ON a.id = j.assessor_id "
            f"WHERE {people} AND j.grade NOT IN (SELECT grade FROM scale)",
        ),
        "people's judgments of a topic the project lacks": _count(
            bind,
            "SELECT count(*) FROM judgments j JOIN assessors a ON a.id = j.assessor_id "
            f"WHERE {people} AND j.qid NOT IN (SELECT qid FROM topics)",
        ),
    }
    if postgres:  # (SQLite moves such rows aside: _sqlite_checks)
        history = " AND ".join(f"({pg})" for t, _n, pg, _s, _w in ROWS if t == "judgment_history")
        kept[f"judgments with a note over {NOTE} characters"] = _count(
            bind, f"SELECT count(*) FROM judgments WHERE char_length(note) > {NOTE}"
        )
        kept["history events that break the rules (kept: the history is never rewritten)"] = _count(
            bind, f"SELECT count(*) FROM judgment_history WHERE NOT ({history})"
        )
    return {
        "repaired": {k: v for k, v in repaired.items() if v},
        "kept": {k: v for k, v in kept.items() if v},
    }


def _count(bind: sa.Connection, sql: str) -> int:
    return int(bind.execute(sa.text(sql)).scalar() or 0)


def _mend_history(bind: sa.Connection, now: datetime) -> int:
    """Append, for each judgment whose newest event does not say what it is, the event that
    does (origin `repair`); and a deletion where the newest event leaves a judgment that is
    not there. The history keeps every event it had."""
    newest: dict[tuple, tuple] = {}
    for qid, doc, who, grade, at, _id in bind.execute(
        sa.text(
            "SELECT qid, doc_id, assessor_id, grade, at, id FROM judgment_history ORDER BY at, id"
        )
    ):
        newest[(qid, doc, who)] = (grade, at)
    current = {
        (q, d, a): (g, n, f, s)
        for q, d, a, g, n, f, s in bind.execute(
            sa.text("SELECT qid, doc_id, assessor_id, grade, note, flagged, score FROM judgments")
        )
    }
    events = []
    for key in current.keys() | newest.keys():
        judged = current.get(key)
        last = newest.get(key)
        last_grade = None if last is None else last[0]
        if judged is not None and (last is None or last_grade != judged[0]):
            action = "create" if last_grade is None else "update"
            grade, note, flagged, score = judged
        elif judged is None and last is not None and last_grade is not None:
            action, grade, note, flagged, score = "delete", None, "", False, None
        else:
            continue
        events.append(
            {
                "uid": uuid.uuid4().hex,
                "qid": key[0],
                "doc_id": key[1],
                "assessor_id": key[2],
                "action": action,
                "grade": grade,
                "previous": last_grade,
                "note": note or "",
                "flagged": bool(flagged),
                "score": score,
                # after the newest event even if that one's time is ahead of the clock
                "at": max(now, last[1]) if last is not None and last[1] is not None else now,
            }
        )
    if events:
        bind.execute(
            sa.text(
                "INSERT INTO judgment_history (uid, qid, doc_id, assessor_id, action, origin, "
                "grade, previous_grade, note, flagged, time_spent, at, score) VALUES (:uid, "
                ":qid, :doc_id, :assessor_id, :action, 'repair', :grade, :previous, :note, "
                ":flagged, 0, :at, :score)"
            ),
            events,
        )
    return len(events)


# -- PostgreSQL: the server guards reads and writes --------------------------------------------
# Each team member connects as a role of their own (`team add`). Such a role may SELECT the
# tables (row-level security then shows it what its window would show: judgeapp_sees_all
# and judgeapp_topics below) and EXECUTE the functions that write (judgeapp_judge,
# judgeapp_intern, judgeapp_put_setting), which run as the owner and check every argument.
# It holds no INSERT, UPDATE, DELETE or TRUNCATE privilege on any table, so it can take no
# lock that blocks a writer (LOCK TABLE beyond ACCESS SHARE and SELECT ... FOR UPDATE need
# one). The owner's writers queue on the one row of write_lock, which no member may read or
# lock; members' writes need no common lock (each touches its own rows). docs/team.md.
FUNCTIONS = r"""
CREATE FUNCTION judgeapp_me() RETURNS integer LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
  SELECT id FROM assessors WHERE db_role = session_user::text AND kind = 'person'
$$;

CREATE FUNCTION judgeapp_role_of(p_id integer) RETURNS text LANGUAGE sql STABLE
SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
  SELECT CASE WHEN a.role IN ('owner', 'evaluator', 'assessor') THEN a.role
              WHEN EXISTS (SELECT 1 FROM assignments s WHERE s.assessor_id = a.id) THEN 'assessor'
              ELSE 'evaluator' END
  FROM assessors a WHERE a.id = p_id
$$;

CREATE FUNCTION judgeapp_blind_mode() RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
  SELECT COALESCE(
    (SELECT CASE WHEN value IS NULL OR value::text = 'null' THEN NULL
                 ELSE value::text NOT IN ('false', '0', '0.0', '""', '[]', '{{}}') END
     FROM settings WHERE key = 'team.blind'),
    EXISTS (SELECT 1 FROM assignments))
$$;

-- the whole project: the owner and evaluators, and assessors who do not judge blind
CREATE FUNCTION judgeapp_sees_all() RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
  SELECT CASE WHEN judgeapp_me() IS NULL THEN false
              WHEN judgeapp_role_of(judgeapp_me()) <> 'assessor' THEN true
              ELSE NOT judgeapp_blind_mode() END
$$;

-- the topics a member may read: NULL for every topic (the whole project, or a blind
-- assessor without assignments), else a blind assessor's assigned topics
CREATE FUNCTION judgeapp_topics() RETURNS text[] LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
  SELECT CASE WHEN judgeapp_me() IS NULL THEN '{{}}'::text[]
              WHEN judgeapp_sees_all() THEN NULL
              WHEN EXISTS (SELECT 1 FROM assignments WHERE assessor_id = judgeapp_me())
                THEN ARRAY(SELECT qid FROM assignments WHERE assessor_id = judgeapp_me())
              ELSE NULL END
$$;

-- the settings a member writes (and reads while blind): their own place in the work
CREATE FUNCTION judgeapp_own_setting(p_key text) RETURNS boolean LANGUAGE sql STABLE
SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
  SELECT a.name IS NOT NULL AND (
    p_key IN ('ui.pool.' || a.name, 'ui.last_topic.' || a.name, 'ui.dashboard.' || a.name)
    OR starts_with(p_key, 'ui.terms.' || a.name || '.'))
  FROM (SELECT (SELECT name FROM assessors WHERE id = judgeapp_me()) AS name) a
$$;

-- what the session may see, for the program (one call when a member opens the project)
CREATE FUNCTION judgeapp_scope() RETURNS json LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
  SELECT json_build_object(
    'assessor', (SELECT name FROM assessors WHERE id = judgeapp_me()),
    'role', judgeapp_role_of(judgeapp_me()),
    'sees_all', judgeapp_sees_all(),
    'topics', judgeapp_topics(),
    'owner', (SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'judgments'::regclass))
$$;

-- a pool's documents as a member may read them: without best ranks and runs while blind
CREATE FUNCTION judgeapp_pool_docs(p_pool integer) RETURNS TABLE (
  qid varchar, doc_id integer, best_rank integer, n_runs integer, run_ids bytea,
  ranks bytea, inclusion_prob double precision, stratum integer)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
DECLARE
  topics text[] := judgeapp_topics();
  everything boolean := judgeapp_sees_all();
BEGIN
  IF judgeapp_me() IS NULL THEN RETURN; END IF;
  RETURN QUERY SELECT p.qid, p.doc_id,
      CASE WHEN everything THEN p.best_rank ELSE 0 END,
      CASE WHEN everything THEN p.n_runs ELSE 0 END,
      CASE WHEN everything THEN p.run_ids ELSE ''::bytea END,
      CASE WHEN everything THEN p.ranks ELSE ''::bytea END,
      p.inclusion_prob, p.stratum
    FROM pool_docs p
    WHERE p.pool_id = p_pool AND (topics IS NULL OR p.qid = ANY (topics));
END $$;

CREATE FUNCTION judgeapp_pool_params(p_pool integer) RETURNS json LANGUAGE sql STABLE
SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
  SELECT CASE WHEN judgeapp_sees_all() THEN params ELSE '{{}}'::json END
  FROM pools WHERE id = p_pool
$$;

-- a session of the owner writing times it was given (imports, merges): `judgeapp.keep_times`
CREATE FUNCTION judgeapp_keeps_times() RETURNS boolean LANGUAGE plpgsql STABLE
SET search_path = {schema}, pg_temp AS $$
BEGIN
  IF COALESCE(current_setting('judgeapp.keep_times', true), '') <> 'on' THEN
    RETURN false;  -- (every row of a bulk import asks: the owner is looked up only if asked)
  END IF;
  RETURN session_user = (SELECT pg_get_userbyid(relowner) FROM pg_class
                         WHERE oid = 'judgments'::regclass);
END $$;

CREATE FUNCTION judgeapp_utc() RETURNS timestamp LANGUAGE sql STABLE AS $$
  SELECT (now() AT TIME ZONE 'UTC')::timestamp
$$;

-- a judgment's times: the server's clock (a row trigger: it sets them)
CREATE FUNCTION judgeapp_judgment_clock() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
BEGIN
  IF judgeapp_keeps_times() THEN
    IF NEW.created_at > judgeapp_utc() + interval '1 hour'
       OR NEW.updated_at > judgeapp_utc() + interval '1 hour' THEN
      RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
        'judgeapp: judgment of topic %s: a time in the future (%s)', NEW.qid, NEW.updated_at);
    END IF;
  ELSE
    NEW.updated_at := judgeapp_utc();
    NEW.created_at := CASE WHEN TG_OP = 'INSERT' THEN judgeapp_utc() ELSE OLD.created_at END;
  END IF;
  RETURN NEW;
END $$;

-- the judgments a statement wrote (`written`; of an UPDATE, those whose grade, topic or
-- assessor changed), checked together, once per statement (a bulk import writes 128,000 at
-- once): the history's newest event of each says what it now is (written first); a person's
-- grade is on the scale, of a topic of the project, and an assessor's of an assigned topic.
-- The rows read are locked FOR KEY SHARE before they are looked for, so the owner cannot
-- take the grade, the topic or the assignment away until the writer commits.
CREATE FUNCTION judgeapp_judgments_checked() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
DECLARE
  bad record;
BEGIN
  -- (a table of this session's, made once, emptied at each commit and by each statement)
  IF to_regclass('pg_temp.judgeapp_written') IS NULL THEN
    CREATE TEMP TABLE judgeapp_written (
      qid text, doc_id integer, assessor_id integer, grade integer, person boolean,
      changed boolean) ON COMMIT DELETE ROWS;
  END IF;
  DELETE FROM judgeapp_written;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO judgeapp_written SELECT n.qid, n.doc_id, n.assessor_id, n.grade, false, true
      FROM written n;
  ELSE
    INSERT INTO judgeapp_written SELECT n.qid, n.doc_id, n.assessor_id, n.grade, false,
        (n.grade, n.qid, n.assessor_id) IS DISTINCT FROM (o.grade, o.qid, o.assessor_id)
      FROM written n JOIN previous o ON o.id = n.id;
  END IF;
  SELECT w.qid, w.doc_id INTO bad FROM judgeapp_written w
    WHERE (SELECT h.grade FROM judgment_history h WHERE h.qid = w.qid AND h.doc_id = w.doc_id
           AND h.assessor_id = w.assessor_id ORDER BY h.at DESC, h.id DESC LIMIT 1)
          IS DISTINCT FROM w.grade
    LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: the judgment of topic %s, document %s changes only with the history event '
      'that says so', bad.qid, bad.doc_id);
  END IF;
  UPDATE judgeapp_written w SET person = true FROM assessors a
    WHERE a.id = w.assessor_id AND a.kind IN ('person', 'adjudicator') AND w.changed;
  IF NOT EXISTS (SELECT 1 FROM judgeapp_written WHERE person) THEN
    RETURN NULL;
  END IF;
  PERFORM 1 FROM scale WHERE grade IN (SELECT grade FROM judgeapp_written WHERE person)
    FOR KEY SHARE;
  SELECT w.grade INTO bad FROM judgeapp_written w
    WHERE w.person AND NOT EXISTS (SELECT 1 FROM scale s WHERE s.grade = w.grade) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: grade %s is not on the project''s scale (%s)', bad.grade,
      (SELECT string_agg(grade::text, ', ' ORDER BY grade) FROM scale));
  END IF;
  PERFORM 1 FROM topics WHERE qid IN (SELECT qid FROM judgeapp_written WHERE person)
    FOR KEY SHARE;
  SELECT w.qid INTO bad FROM judgeapp_written w
    WHERE w.person AND NOT EXISTS (SELECT 1 FROM topics t WHERE t.qid = w.qid) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: topic %s is not in the project', bad.qid);
  END IF;
  PERFORM 1 FROM assignments s JOIN judgeapp_written w
      ON w.person AND s.assessor_id = w.assessor_id AND s.qid = w.qid
    FOR KEY SHARE OF s;
  SELECT w.qid, a.name INTO bad FROM judgeapp_written w JOIN assessors a ON a.id = w.assessor_id
    WHERE w.person AND a.kind = 'person' AND judgeapp_role_of(a.id) = 'assessor'
      AND EXISTS (SELECT 1 FROM assignments s WHERE s.assessor_id = a.id)
      AND NOT EXISTS (SELECT 1 FROM assignments s WHERE s.assessor_id = a.id AND s.qid = w.qid)
    LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: topic %s is not assigned to %s', bad.qid, bad.name);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION judgeapp_event_guard() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
BEGIN
  IF NOT judgeapp_keeps_times() THEN
    -- the server's clock, and never before the judgment's newest event (one merged from a
    -- machine whose clock ran ahead): the newest event says what the judgment is
    NEW.at := GREATEST(judgeapp_utc(), (SELECT max(h.at) FROM judgment_history h
      WHERE h.qid = NEW.qid AND h.doc_id = NEW.doc_id AND h.assessor_id = NEW.assessor_id));
  ELSIF NEW.at > judgeapp_utc() + interval '1 hour' THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: an event of topic %s in the future (%s)', NEW.qid, NEW.at);
  END IF;
  RETURN NEW;
END $$;

-- a judgment is removed only after the event that says so
CREATE FUNCTION judgeapp_judgment_removed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = {schema}, pg_temp AS $$
BEGIN
  IF (SELECT h.grade FROM judgment_history h WHERE h.qid = OLD.qid AND h.doc_id = OLD.doc_id
      AND h.assessor_id = OLD.assessor_id ORDER BY h.at DESC, h.id DESC LIMIT 1)
     IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: the judgment of topic %s, document %s is removed only with the history '
      'event that says so', OLD.qid, OLD.doc_id);
  END IF;
  RETURN OLD;
END $$;

-- a member's judgment (the one way a member writes one): `expected` is the state the
-- program read before (false is returned, nothing written, if it changed meanwhile); a grade
-- of NULL removes the judgment. The change is logged for other windows.
CREATE FUNCTION judgeapp_judge(
  p_qid text, p_doc_id integer, p_assessor_id integer,
  p_expected_grade integer, p_expected_note text, p_expected_flagged boolean,
  p_grade integer, p_note text, p_flagged boolean, p_time_spent double precision,
  p_origin text, p_writer text)
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
  IF p_origin IS NULL OR p_origin NOT IN ('judge', 'undo', 'redo', 'cli') THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = format(
      'judgeapp: a judgment''s origin is judge, undo, redo or cli, not %s', p_origin);
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
                                  previous_grade, note, flagged, time_spent, at)
    VALUES (replace(gen_random_uuid()::text, '-', ''), p_qid, p_doc_id, me, act, p_origin,
            p_grade, cur.grade, CASE WHEN p_grade IS NULL THEN '' ELSE COALESCE(p_note, '') END,
            CASE WHEN p_grade IS NULL THEN false ELSE COALESCE(p_flagged, false) END,
            p_time_spent, judgeapp_utc());
    IF act = 'delete' THEN
      DELETE FROM judgments WHERE id = cur.id;
    ELSIF act = 'create' THEN
      INSERT INTO judgments (qid, doc_id, assessor_id, grade, note, flagged, time_spent,
                             created_at, updated_at)
      VALUES (p_qid, p_doc_id, me, p_grade, COALESCE(p_note, ''), COALESCE(p_flagged, false),
              GREATEST(p_time_spent, 0), judgeapp_utc(), judgeapp_utc());
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

-- ids of docnos a member judges before the project has seen them (`judge --allow-unpooled`)
CREATE FUNCTION judgeapp_intern(p_docnos text[]) RETURNS TABLE (docno varchar, id integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
BEGIN
  IF judgeapp_me() IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      'judgeapp: role %s is not on the project''s team', session_user);
  END IF;
  IF cardinality(p_docnos) > 1000 THEN
    RAISE EXCEPTION USING ERRCODE = 'program_limit_exceeded', MESSAGE =
      'judgeapp: at most 1000 docnos at a time';
  END IF;
  INSERT INTO docnos (docno) SELECT DISTINCT x FROM unnest(p_docnos) AS x
    ON CONFLICT DO NOTHING;
  RETURN QUERY SELECT d.docno, d.id FROM docnos d WHERE d.docno = ANY (p_docnos);
END $$;

CREATE FUNCTION judgeapp_put_setting(p_key text, p_value json) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
BEGIN
  IF NOT COALESCE(judgeapp_own_setting(p_key), false) THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      'judgeapp: role %s may change only its own place in the work (ui.pool.NAME, '
      'ui.last_topic.NAME, ui.terms.NAME.TOPIC, ui.dashboard.NAME), not %s', session_user, p_key);
  END IF;
  IF octet_length(p_value::text) > 65536 THEN
    RAISE EXCEPTION USING ERRCODE = 'program_limit_exceeded', MESSAGE =
      'judgeapp: a setting''s value is at most 64 KiB';
  END IF;
  INSERT INTO settings (key, value) VALUES (p_key, p_value)
    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
END $$;

-- what `team add` grants a member, and `team remove` takes back (both run by the owner)
CREATE FUNCTION judgeapp_admit(p_role text) RETURNS void LANGUAGE plpgsql
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
                             'judgeapp_pool_docs', 'judgeapp_pool_params', 'judgeapp_scope',
                             -- what the policies ask
                             'judgeapp_me', 'judgeapp_sees_all', 'judgeapp_topics',
                             'judgeapp_own_setting') LOOP
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', t, p_role);
  END LOOP;
END $$;

CREATE FUNCTION judgeapp_dismiss(p_role text) RETURNS void LANGUAGE plpgsql
SET search_path = {schema}, pg_temp AS $$
BEGIN
  EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM %I', current_schema(), p_role);
  EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM %I', current_schema(), p_role);
  EXECUTE format('REVOKE ALL ON ALL FUNCTIONS IN SCHEMA %I FROM %I', current_schema(), p_role);
  EXECUTE format('REVOKE ALL ON SCHEMA %I FROM %I', current_schema(), p_role);
  EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM %I', current_database(), p_role);
END $$;
"""

TRIGGERS = """
DROP TRIGGER project_changes_notify ON project_changes;
-- each logged change tells its id to the windows that LISTEN, in the order of commit
CREATE OR REPLACE FUNCTION judgeapp_changes_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_notify('judgeapp_changes', NEW.id::text); RETURN NULL; END $$;
CREATE TRIGGER project_changes_notify AFTER INSERT ON project_changes
  FOR EACH ROW EXECUTE FUNCTION judgeapp_changes_notify();
CREATE TRIGGER judgments_clock BEFORE INSERT OR UPDATE ON judgments
  FOR EACH ROW EXECUTE FUNCTION judgeapp_judgment_clock();
CREATE TRIGGER judgments_inserted AFTER INSERT ON judgments
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT
  EXECUTE FUNCTION judgeapp_judgments_checked();
CREATE TRIGGER judgments_updated AFTER UPDATE ON judgments
  REFERENCING OLD TABLE AS previous NEW TABLE AS written FOR EACH STATEMENT
  EXECUTE FUNCTION judgeapp_judgments_checked();
CREATE TRIGGER judgment_history_guard BEFORE INSERT ON judgment_history
  FOR EACH ROW EXECUTE FUNCTION judgeapp_event_guard();
CREATE TRIGGER judgments_removed BEFORE DELETE ON judgments
  FOR EACH ROW EXECUTE FUNCTION judgeapp_judgment_removed();
"""

# row-level security on reads (FOR SELECT: members write through the functions only); the
# table owner is not bound by them. (SELECT f()) is evaluated once per query, not per row.
ALL = "(SELECT judgeapp_sees_all())"
TOPIC = "((SELECT judgeapp_topics()) IS NULL OR qid = ANY ((SELECT judgeapp_topics())::text[]))"
MINE = "(SELECT judgeapp_me())"
SEEN_DOC = (
    f"({ALL} OR EXISTS (SELECT 1 FROM pool_docs p WHERE p.doc_id = {{id}}) OR EXISTS (SELECT 1 "
    f"FROM judgments j WHERE j.assessor_id = {MINE} AND j.doc_id = {{id}}))"
)
READS = {
    "settings": f"{ALL} OR NOT starts_with(key, 'ui.') OR key = 'ui.pool' OR judgeapp_own_setting(key)",
    "scale": "true",
    "topics": TOPIC,
    "docnos": SEEN_DOC.format(id="docnos.id"),
    "documents": SEEN_DOC.format(id="documents.doc_id"),
    "runs": ALL,
    "ranked_lists": ALL,
    "pools": "true",
    "pool_runs": ALL,
    "pool_docs": TOPIC,
    "assessors": f"{ALL} OR id = {MINE}",
    "judgments": f"{ALL} OR assessor_id = {MINE}",
    "judgment_history": f"{ALL} OR assessor_id = {MINE}",
    "assignments": f"{ALL} OR assessor_id = {MINE}",
    "project_changes": (
        f"{ALL} OR db_role = session_user::text OR (changes::jsonb -> 'judged') IS NULL"
    ),
    "write_lock": "false",
}
# the policies of revisions 0003 and 0004 (reads open to every member, writes by RLS)
OLD_POLICIES = {
    "judgments": ("read", "insert_own", "update_own", "delete_own"),
    "judgment_history": ("read", "append_own"),
    "settings": ("read", "ui_insert", "ui_update", "ui_delete"),
    "assignments": ("read",),
}


def _plain(bind: sa.Connection, sql: str) -> None:
    """Statements run by the driver as written (psycopg would read format()'s % as its own
    placeholders if given parameters, even none)."""
    with bind.connection.driver_connection.cursor() as cursor:
        cursor.execute(sql)


def _postgres(bind: sa.Connection, report: dict) -> None:
    schema = bind.execute(sa.text("SELECT current_schema()")).scalar_one()
    quoted = bind.dialect.identifier_preparer.quote(schema)
    for table, names in OLD_POLICIES.items():
        for name in names:
            op.execute(f"DROP POLICY IF EXISTS {table}_{name} ON {table}")
    _plain(bind, FUNCTIONS.format(schema=quoted, year=YEAR_S))
    # nobody but the owner and the members it grants may call them
    for (signature,) in bind.execute(
        sa.text(
            "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = "
            "current_schema()::regnamespace AND p.proname LIKE 'judgeapp%'"
        )
    ):
        op.execute(f"REVOKE ALL ON FUNCTION {signature} FROM PUBLIC")
    kept = report["kept"]
    for table, name, pg, _sqlite, says in ROWS:
        if pg is None:
            continue
        constraint = f"ck_{table}_{name}"
        op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {constraint} CHECK ({pg}) NOT VALID")
        broken = _count(bind, f"SELECT count(*) FROM {table} WHERE NOT ({pg})")
        if broken:  # kept, and reported: the rule binds new rows only
            kept[f"{table}: {broken} rows break the rule '{says}'"] = broken
        else:
            op.execute(f"ALTER TABLE {table} VALIDATE CONSTRAINT {constraint}")
    _plain(bind, TRIGGERS)
    for table, using in READS.items():
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        op.execute(f"CREATE POLICY {table}_members_read ON {table} FOR SELECT USING ({using})")
    # the docnos and documents policies look a document up in the pools
    op.execute("CREATE INDEX ix_pool_docs_doc_id ON pool_docs (doc_id)")
    # members of revisions 0003-0005 held INSERT, UPDATE and DELETE grants: now only reads
    for (role,) in bind.execute(
        sa.text("SELECT db_role FROM assessors WHERE db_role IS NOT NULL ORDER BY id")
    ):
        if bind.execute(sa.text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first():
            bind.execute(sa.text("SELECT judgeapp_admit(:r)"), {"r": role})


def upgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    op.add_column("project_changes", sa.Column("db_role", sa.String(), nullable=True))
    # a judgment's newest event, asked for by the triggers at every write of a judgment, is
    # the last entry of its key in this index (no sort)
    op.drop_index("ix_judgment_history_key", table_name="judgment_history")
    op.create_index(
        "ix_judgment_history_key", "judgment_history", ["qid", "doc_id", "assessor_id", "at"]
    )
    op.create_table(
        "write_lock",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_write_lock")),
    )
    bind.execute(sa.text("INSERT INTO write_lock (id) VALUES (1)"))
    report = repair_and_report(bind)
    if postgres:
        _postgres(bind, report)
    else:
        _sqlite_checks(bind, report)
        for statement in sqlite_triggers():
            op.execute(statement)
    if report["repaired"] or report["kept"]:
        bind.execute(
            sa.text("INSERT INTO settings (key, value) VALUES ('checks.0006', :value)"),
            {"value": json.dumps(report)},
        )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for table in READS:
            op.execute(f"DROP POLICY IF EXISTS {table}_members_read ON {table}")
        for trigger in ("judgments_clock", "judgments_inserted", "judgments_updated"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON judgments")
        op.execute("DROP TRIGGER IF EXISTS judgments_removed ON judgments")
        op.execute("DROP TRIGGER IF EXISTS judgment_history_guard ON judgment_history")
        for table, name, pg, _s, _w in ROWS:
            if pg is not None:
                op.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS ck_{table}_{name}")
        for (signature,) in bind.execute(
            sa.text(
                "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = "
                "current_schema()::regnamespace AND p.proname LIKE 'judgeapp\\_%' "
                "AND p.proname <> 'judgeapp_changes_notify'"
            )
        ):
            op.execute(f"DROP FUNCTION {signature}")
        op.execute("DROP INDEX IF EXISTS ix_pool_docs_doc_id")
        op.execute("DROP TRIGGER project_changes_notify ON project_changes")
        op.execute(
            "CREATE OR REPLACE FUNCTION judgeapp_changes_notify() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN PERFORM pg_notify('judgeapp_changes', ''); RETURN NULL; END $$"
        )
        op.execute(
            "CREATE TRIGGER project_changes_notify AFTER INSERT ON project_changes "
            "FOR EACH STATEMENT EXECUTE FUNCTION judgeapp_changes_notify()"
        )
    else:
        for statement in sqlite_triggers():
            name = statement.split()[2]
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    bind.execute(sa.text("DELETE FROM settings WHERE key = 'checks.0006'"))
    op.drop_index("ix_judgment_history_key", table_name="judgment_history")
    op.create_index("ix_judgment_history_key", "judgment_history", ["qid", "doc_id", "assessor_id"])
    op.drop_table("write_lock")
    with op.batch_alter_table("project_changes", schema=None) as batch_op:
        batch_op.drop_column("db_role")
