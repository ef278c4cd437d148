"""A whole project copied into an empty one, row for row (ids kept): a laptop's working copy
of the team's PostgreSQL project, or a throwaway copy to take pictures of. Merging the
copy's judgments back later is `merge`."""

from __future__ import annotations

from sqlalchemy import func, select, text

from judgeapp.store import models as m
from judgeapp.store.base import StoreError
from judgeapp.store.db import Db
from judgeapp.store.search import rebuild_index

BATCH = 5000


def copy_project(source: Db, target: Db) -> int:
    """Copy every row of `source` into `target`, which must be an empty project (just
    created), in one transaction. Returns the number of rows copied."""
    tables = [
        t for t in m.metadata.sorted_tables if t.name not in ("project_changes", "write_lock")
    ]
    # (sorted so that what a row refers to comes first: the scale, topics and assignments
    # before the judgments, the history before the judgments it records: schema 0006 checks)
    assert [t.name for t in tables].index("judgment_history") < [t.name for t in tables].index(
        "judgments"
    )
    copied = 0
    with source.read() as src, target.begin() as dst:
        if dst.dialect.name == "postgresql":  # the copied times, not the server's clock
            dst.exec_driver_sql("SET LOCAL judgeapp.keep_times = 'on'")
        for table in tables:
            if table.name in ("settings", "scale"):
                dst.execute(table.delete())  # the new project's defaults give way
            elif dst.execute(select(func.count()).select_from(table)).scalar():
                raise StoreError(f"the target project is not empty ({table.name})")
        for table in tables:
            result = src.execute(select(table).order_by(*table.primary_key.columns))
            while rows := result.fetchmany(BATCH):
                dst.execute(table.insert(), [dict(r._mapping) for r in rows])
                copied += len(rows)
        rebuild_index(dst)  # the documents' search index (PostgreSQL: its postings)
        if dst.dialect.name == "postgresql":  # serial ids continue after the copied ones
            for table in tables:
                for column in table.primary_key.columns:
                    sequence = dst.execute(
                        text("SELECT pg_get_serial_sequence(:t, :c)"),
                        {"t": table.name, "c": column.name},
                    ).scalar()
                    if sequence is not None:
                        dst.execute(
                            text(
                                f"SELECT setval('{sequence}', coalesce(max({column.name}), 0) + 1,"
                                f" false) FROM {table.name}"
                            )
                        )
    return copied
