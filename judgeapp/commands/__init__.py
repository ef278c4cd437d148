"""One module per CLI subcommand; each defines `register(subparsers)` and sets
`handler=` on its parser with `set_defaults`. Errors users can fix are reported by raising
`CommandError` (printed as `judgeapp: error: ...`, exit 2) or a `FormatError` (exit 1 with
the file, line and problem). Heavy imports belong inside handlers."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from judgeapp.errors import UserError

if TYPE_CHECKING:
    from judgeapp.services.progress import ProgressFn
    from judgeapp.store import Store


# the judgment policies of judgeapp.services.policy, named here so that `--help` needs no
# heavy import (a test keeps the two in step)
POLICY_HELP = (
    "which judgment counts where a document has several: newest (the default: the most "
    "recently changed), adjudicated (an adjudicator's decision, else the majority), majority "
    "(ties to the lower grade), max, min, median (the lower middle one), or assessor:NAME "
    "(one assessor's or qrels source's judgments only)"
)


def plural(n: int, word: str, words: str | None = None) -> str:
    """'1 topic', '2 topics', '1,000 documents'."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


class CommandError(UserError):
    """A problem with what the user asked for; printed without a traceback."""


def open_store(
    db: str, *, create: bool = False, build: bool = False, owner: str | None = None
) -> Store:
    """Open the project at `db` (a path or an SQLAlchemy URL) with user-facing errors.
    `build` (with `create`), for a command that fills the project: a project file that
    does not exist yet is built apart (`Store.build`), and the command publishes it when
    it has succeeded; on failure no project is left at `db`. `owner` names a command that
    changes the project: a team member's URL is refused at once, in one line, before any
    work. A write that waits for another writer says whom for after a second (stderr)."""
    from judgeapp.store import SchemaError, Store, StoreError

    try:
        if create and build and Store.is_new_file(db):
            store = Store.build(db)
        else:
            store = Store.open(db, create=create)
    except (SchemaError, StoreError) as exc:
        raise CommandError(f"{db}: {exc}") from exc
    store.on_wait = _say_waiting
    scope = store.scope
    if scope is not None and owner is not None:
        store.close()
        raise CommandError(
            f"{owner} changes the project, which only its owner may (role {scope.owner}): "
            f"this URL connects as {scope.who}, who may judge only; run it with the owner's URL"
        )
    if scope is not None and (scope.blind or scope.assessor is None):
        print(f"judgeapp: note: {scope.describe()}", file=sys.stderr)
    return store


def _say_waiting(whom: str) -> None:
    print(f"judgeapp: {whom}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def progress_bar(desc: str, unit: str = "file") -> Iterator[ProgressFn]:
    """A ProgressFn drawing a tqdm bar on stderr (none when stderr is not a terminal)."""
    from tqdm import tqdm

    # disable=None: no bar when stderr is not a terminal, so that a script reading stderr
    # sees the messages (and an error's one line) alone
    bar = tqdm(desc=desc, unit=unit, file=sys.stderr, leave=False, mininterval=0.2, disable=None)
    try:

        def update(done: int, total: int | None, message: str) -> None:
            if total is not None and bar.total != total:
                bar.total = total
            bar.set_postfix_str(message, refresh=False)
            bar.update(done - bar.n)

        yield update
    finally:
        bar.close()
