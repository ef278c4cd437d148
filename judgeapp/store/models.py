"""The SQLAlchemy schema of a judgeapp project.

Ranked lists are the bulk of the data (TREC-8: 5.75M entries), so a run keeps one row per
topic holding two little-endian arrays (document ids as int32, scores as float64) already in
trec_eval order. Loading every list of a project is then a few thousand BLOB reads turned into
numpy arrays without copying, instead of millions of ORM rows.

Documents are interned: `docnos` gives every document identifier a dense integer id the
first time a run, qrels file, pool or collection mentions it; only imported collections have a
row in `documents` (with the text). Topics are referenced by their qid text, not a foreign
key, because runs and qrels may name topics the project lacks (`info` reports such gaps).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

# Stable constraint names so Alembic batch operations on SQLite can find them.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Core tables, no ORM: the store writes and reads through statements, never mapped objects,
# and SQLAlchemy's ORM with declarative classes cost every command 0.08 s of CPU to load.
# Columns are `Run.c.name`.
metadata = MetaData(naming_convention=NAMING)


# Project-wide key/value settings (name, creation time, preferences) as JSON values.
Setting = Table(
    "settings",
    metadata,
    Column("key", String, primary_key=True),
    Column("value", JSON, nullable=True),
)


# One step of the project's relevance scale: the number stored in judgments and qrels, the label
# shown on the button and the key that records it.
Grade = Table(
    "scale",
    metadata,
    Column("grade", Integer, primary_key=True, autoincrement=False),
    Column("label", String, nullable=False),
    Column("key", String, nullable=False, unique=True),
    Column("definition", Text, nullable=False, server_default=""),
)


Topic = Table(
    "topics",
    metadata,
    Column("qid", String, primary_key=True),
    Column("title", Text, nullable=False, default=""),
    Column("description", Text, nullable=False, default=""),
    Column("narrative", Text, nullable=False, default=""),
    Column("fields", JSON, nullable=False, default=dict),
    Column("source", String, nullable=True),
    Column("imported_at", DateTime, nullable=False),
)


# Every document identifier the project has seen, with its dense integer id.
Docno = Table(
    "docnos",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("docno", String, nullable=False, unique=True),
)


Document = Table(
    "documents",
    metadata,
    Column(
        "doc_id",
        Integer,
        ForeignKey("docnos.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    ),
    Column("title", Text, nullable=False, default=""),
    Column("text", Text, nullable=False, default=""),
    Column("fields", JSON, nullable=False, default=dict),
    Column("source", String, nullable=True),
)


Run = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String, nullable=False, unique=True),
    Column("tag", String, nullable=False),
    Column("source_path", String, nullable=True),
    Column("source_sha256", String, nullable=True),
    Column("imported_at", DateTime, nullable=False),
    Column("n_topics", Integer, nullable=False),
    Column("n_entries", Integer, nullable=False),
)


# One topic of one run: `doc_ids` (int32 LE) and `scores` (float64 LE), rank order.
RankedList = Table(
    "ranked_lists",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("qid", String, primary_key=True),
    Column("n", Integer, nullable=False),
    Column("doc_ids", LargeBinary, nullable=False),
    Column("scores", LargeBinary, nullable=False),
)


Pool = Table(
    "pools",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String, nullable=False, unique=True),
    Column("strategy", String, nullable=False),  # depth, take, rbp, rrf, ...
    Column("params", JSON, nullable=False, default=dict),
    Column("judging_order", String, nullable=False, default="blind"),
    Column("seed", Integer, nullable=False, default=0),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
)


PoolRun = Table(
    "pool_runs",
    metadata,
    Column("pool_id", Integer, ForeignKey("pools.id", ondelete="CASCADE"), primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
)


# A pooled document of one topic: its best rank over the contributing runs, and those runs with
# the rank each gave it (two int32 LE arrays). `inclusion_prob` is the probability with which a
# sampling pool drew it (1.0 for depth pools).
PoolDoc = Table(
    "pool_docs",
    metadata,
    Column("pool_id", Integer, ForeignKey("pools.id", ondelete="CASCADE"), primary_key=True),
    Column("qid", String, primary_key=True),
    Column("doc_id", Integer, ForeignKey("docnos.id"), primary_key=True),
    Column("best_rank", Integer, nullable=False),
    Column("n_runs", Integer, nullable=False),
    Column("run_ids", LargeBinary, nullable=False),
    Column("ranks", LargeBinary, nullable=False),
    Column("inclusion_prob", Float, nullable=False, default=1.0),
    # sample pools (judgeapp.pooling.estimate): 0 for documents judged before the draw, else
    # the best-rank stratum the document was drawn from; NULL in other pools (schema 0002)
    Column("stratum", Integer, nullable=True),
    Column("added_at", DateTime, nullable=False),
)


# Who made judgments: a person, or a named source for imported qrels (kind 'source').
Assessor = Table(
    "assessors",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String, nullable=False, unique=True),
    Column("kind", String, nullable=False, default="person"),
    Column("created_at", DateTime, nullable=False),
    # PostgreSQL: the database role this assessor connects as (row-level security lets a
    # role write only its own assessor's judgments); None on SQLite and for sources
    Column("db_role", String, nullable=True),
    # owner, evaluator or assessor; None: an assessor if they have assignments, else an
    # evaluator (judgeapp.services.team)
    Column("role", String, nullable=True),
    Index("ix_assessors_db_role", "db_role", unique=True),
)


# The current judgment of one assessor for one (topic, document).
Judgment = Table(
    "judgments",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("qid", String, nullable=False),
    Column("doc_id", Integer, ForeignKey("docnos.id"), nullable=False),
    Column("assessor_id", Integer, ForeignKey("assessors.id"), nullable=False),
    Column("grade", Integer, nullable=False),
    Column("note", Text, nullable=False, default=""),
    Column("flagged", Boolean, nullable=False, default=False),
    Column("time_spent", Float, nullable=False, default=0.0),  # seconds
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    # automatic judges: a real-valued score beside the grade (a probability of relevance)
    Column("score", Float, nullable=True),
    # how the document came to be judged: "pool" (a pool, the command line, an imported
    # file) or "search" (found by searching the collection, with `query`); kept from the
    # judgment's creation on (schema 0007)
    Column("found_by", String, nullable=False, server_default="pool"),
    Column("query", Text, nullable=True),
    UniqueConstraint("qid", "doc_id", "assessor_id"),
    Index("ix_judgments_assessor_qid", "assessor_id", "qid"),
)


# Append-only history: one row per change to a judgment (triggers refuse UPDATE and DELETE on this
# table). `grade` is NULL when the change removed the judgment.
JudgmentEvent = Table(
    "judgment_history",
    metadata,
    Column("id", Integer, primary_key=True),
    # the event's identity across projects (a merge copies it and never adds it twice)
    Column("uid", String, nullable=True),
    Column("qid", String, nullable=False),
    Column("doc_id", Integer, ForeignKey("docnos.id"), nullable=False),
    Column("assessor_id", Integer, ForeignKey("assessors.id"), nullable=False),
    Column("action", String, nullable=False),  # create, update, delete
    Column("origin", String, nullable=False),  # judge, search, undo, redo, import, cli
    Column("grade", Integer, nullable=True),
    Column("previous_grade", Integer, nullable=True),
    Column("note", Text, nullable=False, default=""),
    Column("flagged", Boolean, nullable=False, default=False),
    Column("time_spent", Float, nullable=False, default=0.0),
    Column("at", DateTime, nullable=False),
    Column("score", Float, nullable=True),
    Column("query", Text, nullable=True),  # origin "search": the query that found the document
    # (schema 0006: with the time, so a judgment's newest event is the last of its key)
    Index("ix_judgment_history_key", "qid", "doc_id", "assessor_id", "at"),
    Index("ix_judgment_history_uid", "uid", unique=True),
)


# One committed write transaction, described as the `Changes` it made (JSON): other processes
# showing the project read the rows newer than the last they saw.
ProjectChange = Table(
    "project_changes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", DateTime, nullable=False),
    Column("writer", String, nullable=False),  # the writing Store's token
    Column("changes", JSON, nullable=False),
    # PostgreSQL: the team member's role whose judgment this logs (schema 0006: a blind
    # assessor reads only their own and the project's other changes); None for the owner's
    Column("db_role", String, nullable=True),
)


# PostgreSQL: the owner's writers queue on this table's one row (SELECT ... FOR UPDATE), which
# no team member may read or lock (schema 0006); SQLite's writers queue on a lock file instead
WriteLock = Table(
    "write_lock",
    metadata,
    Column("id", Integer, primary_key=True),
)


# Topic `qid` is assessor's work; `shared` when more than the topic's usual number of assessors
# judge it (for agreement).
Assignment = Table(
    "assignments",
    metadata,
    Column("qid", String, primary_key=True),
    Column("assessor_id", Integer, ForeignKey("assessors.id"), primary_key=True),
    Column("shared", Boolean, nullable=False, default=False),
    Column("created_at", DateTime, nullable=False),
)


# Every search an assessor made (TREC keeps the search log with the collection): over the
# whole collection (scope "collection") or within a topic's pool ("pool"), with the topic
# open at the time and how many documents it found (schema 0007).
SearchLog = Table(
    "search_log",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("assessor_id", Integer, ForeignKey("assessors.id"), nullable=False),
    Column("qid", String, nullable=True),
    Column("scope", String, nullable=False),
    Column("query", Text, nullable=False),
    Column("results", Integer, nullable=False),
    Column("at", DateTime, nullable=False),
    Index("ix_search_log_assessor_id", "assessor_id"),
)


# The full-text index lives outside these tables: on SQLite an FTS5 virtual table
# (`documents_fts` and the tables FTS5 keeps for it) with triggers on `documents`, on
# PostgreSQL a generated tsvector column `documents.search` and its GIN index (schema
# 0007), and PostgreSQL's term statistics for BM25 (schema 0008, judgeapp.store.postings).
# Schema comparisons (Alembic's autogenerate, the tests) leave them out.
FTS_TABLE = "documents_fts"
UNMODELLED_TABLES = {"search_segments", "search_postings"}
UNMODELLED_COLUMNS = {("documents", "search")}
UNMODELLED_INDEXES = {"ix_documents_search"}


def modelled(
    obj: object, name: str | None, type_: str, reflected: bool, compare_to: object
) -> bool:
    """Alembic's `include_object`: False for the parts of the full-text index above."""
    if (
        type_ == "table"
        and name is not None
        and (name.startswith(FTS_TABLE) or name in UNMODELLED_TABLES)
    ):
        return False
    if type_ == "column" and (getattr(getattr(obj, "table", None), "name", None), name) in (
        UNMODELLED_COLUMNS
    ):
        return False
    return not (type_ == "index" and name in UNMODELLED_INDEXES)
