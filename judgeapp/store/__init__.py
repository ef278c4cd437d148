"""The project database: schema (models, Alembic upgrades) and the `Store` of repositories.

The store persists and queries; what stored data means (which judgment counts, how pools
are built and judged) is decided in `judgeapp.services`."""

from judgeapp.records import (
    DEFAULT_SCALE,
    AssessorInfo,
    Changes,
    DocumentRecord,
    GradeInfo,
    JudgmentChange,
    JudgmentRecord,
    JudgmentRows,
    JudgmentState,
    PoolInfo,
    PoolRows,
    RankedLists,
    RunInfo,
    TopicRecord,
)
from judgeapp.store.base import StoreError
from judgeapp.store.runs import RunImport
from judgeapp.store.schema import SchemaError
from judgeapp.store.store import Store

__all__ = [
    "DEFAULT_SCALE",
    "AssessorInfo",
    "Changes",
    "DocumentRecord",
    "GradeInfo",
    "JudgmentChange",
    "JudgmentRecord",
    "JudgmentRows",
    "JudgmentState",
    "PoolInfo",
    "PoolRows",
    "RankedLists",
    "RunImport",
    "RunInfo",
    "SchemaError",
    "Store",
    "StoreError",
    "TopicRecord",
]
