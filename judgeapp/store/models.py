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

from datetime import datetime
from typing import cast

from sqlalchemy import (
    JSON,
    Boolean,
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
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names so Alembic batch operations on SQLite can find them.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def table(model: type[Base]) -> Table:
    """A model's table, typed as one (a type checker sees `__table__` as any FROM clause)."""
    return cast(Table, model.__table__)


class Setting(Base):
    """Project-wide key/value settings (name, creation time, preferences) as JSON values."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[object] = mapped_column(JSON, nullable=True)


class Grade(Base):
    """One step of the project's relevance scale: the number stored in judgments and qrels,
    the label shown on the button and the key that records it."""

    __tablename__ = "scale"
    grade: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    label: Mapped[str] = mapped_column(String, nullable=False)
    key: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    definition: Mapped[str] = mapped_column(Text, nullable=False, server_default="")


class Topic(Base):
    __tablename__ = "topics"
    qid: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(Text, nullable=False, default="")
    description: Mapped[str] = mapped_column(Text, nullable=False, default="")
    narrative: Mapped[str] = mapped_column(Text, nullable=False, default="")
    fields: Mapped[dict] = mapped_column(JSON, nullable=False, default=dict)
    source: Mapped[str | None] = mapped_column(String)
    imported_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class Docno(Base):
    """Every document identifier the project has seen, with its dense integer id."""

    __tablename__ = "docnos"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    docno: Mapped[str] = mapped_column(String, nullable=False, unique=True)


class Document(Base):
    __tablename__ = "documents"
    doc_id: Mapped[int] = mapped_column(
        ForeignKey("docnos.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    title: Mapped[str] = mapped_column(Text, nullable=False, default="")
    text: Mapped[str] = mapped_column(Text, nullable=False, default="")
    fields: Mapped[dict] = mapped_column(JSON, nullable=False, default=dict)
    source: Mapped[str | None] = mapped_column(String)


class Run(Base):
    __tablename__ = "runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    tag: Mapped[str] = mapped_column(String, nullable=False)
    source_path: Mapped[str | None] = mapped_column(String)
    source_sha256: Mapped[str | None] = mapped_column(String)
    imported_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    n_topics: Mapped[int] = mapped_column(Integer, nullable=False)
    n_entries: Mapped[int] = mapped_column(Integer, nullable=False)


class RankedList(Base):
    """One topic of one run: `doc_ids` (int32 LE) and `scores` (float64 LE), rank order."""

    __tablename__ = "ranked_lists"
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    qid: Mapped[str] = mapped_column(String, primary_key=True)
    n: Mapped[int] = mapped_column(Integer, nullable=False)
    doc_ids: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    scores: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)


class Pool(Base):
    __tablename__ = "pools"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    strategy: Mapped[str] = mapped_column(String, nullable=False)  # depth, take, rbp, rrf, ...
    params: Mapped[dict] = mapped_column(JSON, nullable=False, default=dict)
    judging_order: Mapped[str] = mapped_column(String, nullable=False, default="blind")
    seed: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class PoolRun(Base):
    __tablename__ = "pool_runs"
    pool_id: Mapped[int] = mapped_column(
        ForeignKey("pools.id", ondelete="CASCADE"), primary_key=True
    )
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)


class PoolDoc(Base):
    """A pooled document of one topic: its best rank over the contributing runs, and those
    runs with the rank each gave it (two int32 LE arrays). `inclusion_prob` is the
    probability with which a sampling pool drew it (1.0 for depth pools)."""

    __tablename__ = "pool_docs"
    pool_id: Mapped[int] = mapped_column(
        ForeignKey("pools.id", ondelete="CASCADE"), primary_key=True
    )
    qid: Mapped[str] = mapped_column(String, primary_key=True)
    doc_id: Mapped[int] = mapped_column(ForeignKey("docnos.id"), primary_key=True)
    best_rank: Mapped[int] = mapped_column(Integer, nullable=False)
    n_runs: Mapped[int] = mapped_column(Integer, nullable=False)
    run_ids: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    ranks: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    inclusion_prob: Mapped[float] = mapped_column(Float, nullable=False, default=1.0)
    # sample pools (judgeapp.pooling.estimate): 0 for documents judged before the draw, else
    # the best-rank stratum the document was drawn from; NULL in other pools (schema 0002)
    stratum: Mapped[int | None] = mapped_column(Integer, nullable=True)
    added_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class Assessor(Base):
    """Who made judgments: a person, or a named source for imported qrels (kind 'source')."""

    __tablename__ = "assessors"
    __table_args__ = (Index("ix_assessors_db_role", "db_role", unique=True),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    kind: Mapped[str] = mapped_column(String, nullable=False, default="person")
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    # PostgreSQL: the database role this assessor connects as (row-level security lets a
    # role write only its own assessor's judgments); None on SQLite and for sources
    db_role: Mapped[str | None] = mapped_column(String, nullable=True)
    # owner, evaluator or assessor; None: an assessor if they have assignments, else an
    # evaluator (judgeapp.services.team)
    role: Mapped[str | None] = mapped_column(String, nullable=True)


class Judgment(Base):
    """The current judgment of one assessor for one (topic, document)."""

    __tablename__ = "judgments"
    __table_args__ = (
        UniqueConstraint("qid", "doc_id", "assessor_id"),
        Index("ix_judgments_assessor_qid", "assessor_id", "qid"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    qid: Mapped[str] = mapped_column(String, nullable=False)
    doc_id: Mapped[int] = mapped_column(ForeignKey("docnos.id"), nullable=False)
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessors.id"), nullable=False)
    grade: Mapped[int] = mapped_column(Integer, nullable=False)
    note: Mapped[str] = mapped_column(Text, nullable=False, default="")
    flagged: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    time_spent: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)  # seconds
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    # automatic judges: a real-valued score beside the grade (a probability of relevance)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)


class JudgmentEvent(Base):
    """Append-only history: one row per change to a judgment (triggers refuse UPDATE and
    DELETE on this table). `grade` is NULL when the change removed the judgment."""

    __tablename__ = "judgment_history"
    __table_args__ = (
        Index("ix_judgment_history_key", "qid", "doc_id", "assessor_id"),
        Index("ix_judgment_history_uid", "uid", unique=True),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # the event's identity across projects (a merge copies it and never adds it twice)
    uid: Mapped[str | None] = mapped_column(String, nullable=True)
    qid: Mapped[str] = mapped_column(String, nullable=False)
    doc_id: Mapped[int] = mapped_column(ForeignKey("docnos.id"), nullable=False)
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessors.id"), nullable=False)
    action: Mapped[str] = mapped_column(String, nullable=False)  # create, update, delete
    origin: Mapped[str] = mapped_column(String, nullable=False)  # judge, undo, redo, import, cli
    grade: Mapped[int | None] = mapped_column(Integer)
    previous_grade: Mapped[int | None] = mapped_column(Integer)
    note: Mapped[str] = mapped_column(Text, nullable=False, default="")
    flagged: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    time_spent: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)


class ProjectChange(Base):
    """One committed write transaction, described as the `Changes` it made (JSON): other
    processes showing the project read the rows newer than the last they saw."""

    __tablename__ = "project_changes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    writer: Mapped[str] = mapped_column(String, nullable=False)  # the writing Store's token
    changes: Mapped[dict] = mapped_column(JSON, nullable=False)


class Assignment(Base):
    """Topic `qid` is assessor's work; `shared` when more than the topic's usual number of
    assessors judge it (for agreement)."""

    __tablename__ = "assignments"
    qid: Mapped[str] = mapped_column(String, primary_key=True)
    assessor_id: Mapped[int] = mapped_column(ForeignKey("assessors.id"), primary_key=True)
    shared: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
