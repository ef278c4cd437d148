"""Alembic environment for judgeapp.

The program passes its own open connection in `config.attributes["connection"]` so that an
upgrade runs inside the connection the store already configured (pragmas, file). Developers
running the `alembic` command get a fresh engine from `sqlalchemy.url` instead.
"""

from alembic import context
from sqlalchemy import engine_from_config, pool

from judgeapp.store.models import metadata, modelled

config = context.config
target_metadata = metadata


def _run(connection) -> None:
    # render_as_batch: SQLite cannot ALTER most things, so Alembic rebuilds tables instead.
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        include_object=modelled,  # the full-text index is not in the models
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    engine = engine_from_config(
        config.get_section(config.config_ini_section, {}),
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.connect() as conn:
        _run(conn)
