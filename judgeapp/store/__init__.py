"""The project database: schema (models, Alembic upgrades) and the `Store` facade."""

from judgeapp.store.records import (
    DEFAULT_SCALE,
    AssessorInfo,
    Changes,
    DocumentRecord,
    GradeInfo,
    JudgmentArrays,
    JudgmentChange,
    JudgmentRecord,
    JudgmentState,
    ProjectInfo,
    RankedLists,
    RunInfo,
    TopicCounts,
    TopicRecord,
)
from judgeapp.store.schema import SchemaError
from judgeapp.store.store import RunImport, Store, StoreError

__all__ = [
    "DEFAULT_SCALE",
    "AssessorInfo",
    "Changes",
    "DocumentRecord",
    "GradeInfo",
    "JudgmentArrays",
    "JudgmentChange",
    "JudgmentRecord",
    "JudgmentState",
    "ProjectInfo",
    "RankedLists",
    "RunImport",
    "RunInfo",
    "SchemaError",
    "Store",
    "StoreError",
    "TopicCounts",
    "TopicRecord",
]
