"""Write migrations/head_sqlite.sql, the schema a new SQLite project is made from:
`python migrations/write_head_sqlite.py` after adding a migration (a test says when)."""

from __future__ import annotations

from judgeapp.store.locking import begin_write
from judgeapp.store.schema import (
    HEAD_SQLITE,
    SCHEMA_HEAD,
    create_project_engine,
    migrate,
    schema_rows,
)


def main() -> None:
    engine = create_project_engine("sqlite://")
    try:
        with begin_write(engine) as conn:
            migrate(conn)
            rows = schema_rows(conn)
    finally:
        engine.dispose()
    # a virtual table (FTS5) makes its own tables when it is created: theirs are left out
    virtual = [name for _, name, _, sql in rows if sql and sql.startswith("CREATE VIRTUAL")]
    statements = [
        sql
        for kind, name, _, sql in rows
        if sql is not None
        and not (kind == "table" and any(name.startswith(f"{v}_") for v in virtual))
    ]
    HEAD_SQLITE.write_text(
        f"-- the SQLite schema at revision {SCHEMA_HEAD}, as the migrations leave it; written by\n"
        "-- `python migrations/write_head_sqlite.py`, not by hand\n\n"
        + "".join(f"{sql};\n\n" for sql in statements),
        encoding="utf-8",
    )
    print(f"wrote {HEAD_SQLITE}")


if __name__ == "__main__":
    main()
