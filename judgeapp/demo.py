"""The built-in demo project: the Cranfield collection with seven runs.

Its inputs ship compressed in `resources/demo/` (see the README there for their source and
for how Cleverdon's relevance codes become grades 0..3). The project database is built on
first use into the user's data directory (`JUDGEAPP_DATA_DIR` overrides it), in a temporary
file renamed into place at the end, so an interrupted build never leaves half a demo.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

from judgeapp.services import imports
from judgeapp.services.pools import PoolService
from judgeapp.services.progress import ProgressFn, no_progress
from judgeapp.store import Store

DEMO_INPUTS = Path(__file__).resolve().parent.parent / "resources" / "demo"
# Bump when the demo's content changes: an older demo database is then rebuilt.
DEMO_VERSION = 1
QRELS_SOURCE = "cranqrel (Cleverdon)"
DEMO_POOL = "depth-10"  # every run's top 10 per query, judged in the blind (shuffled) order
DEMO_SEED = 2026


def data_dir() -> Path:
    override = os.environ.get("JUDGEAPP_DATA_DIR")
    path = Path(override) if override else Path(user_data_dir("judgeapp", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def demo_project_path() -> Path:
    return data_dir() / "demo-cranfield.db"


def _is_current(path: Path) -> bool:
    if not path.exists():
        return False
    try:
        with Store.open(path, create=False) as store:
            return store.settings.get("demo_version") == DEMO_VERSION
    except Exception:
        return False


def build_demo_project(path: Path, progress: ProgressFn = no_progress) -> Path:
    """Build the demo project at `path` (replacing what is there)."""
    tmp = path.with_name(path.name + ".building")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        leftover.unlink(missing_ok=True)
    steps = 6
    with Store.open(tmp) as store:
        progress(0, steps, "topics")
        imports.import_topics(store, [DEMO_INPUTS / "cran.qry.gz"])
        progress(1, steps, "documents")
        imports.import_documents(store, [DEMO_INPUTS / "cran.all.1400.gz"])
        progress(2, steps, "runs")
        imports.import_runs(store, sorted((DEMO_INPUTS / "runs").glob("*.run.gz")))
        progress(3, steps, "judgments")
        imports.import_qrels(store, [DEMO_INPUTS / "cranqrel.gz"], [QRELS_SOURCE])
        progress(4, steps, "pool")
        PoolService(store).create_pool(
            DEMO_POOL, strategy="depth", params={"depth": 10}, seed=DEMO_SEED
        )
        progress(5, steps, "settings")
        store.settings.put("project_name", "Cranfield demo")
        store.settings.put("demo_version", DEMO_VERSION)
    progress(steps, steps, "done")
    os.replace(tmp, path)
    return path


def ensure_demo_project(progress: ProgressFn = no_progress) -> Path:
    """The demo project's path, building it first if it is missing or outdated."""
    path = demo_project_path()
    if not _is_current(path):
        for stale in (Path(f"{path}-wal"), Path(f"{path}-shm")):
            stale.unlink(missing_ok=True)
        build_demo_project(path, progress)
    return path
