"""Objects that live as long as the process, kept out of the cycle collector's passes.

Python's cycle collector walks every object it tracks in a full pass, holding the
interpreter lock throughout, on whichever thread allocated last. The window freezes what
it has loaded once it is built (`gc.freeze`, judgeapp.app), but some modules are imported
later, in a worker, the first time they are needed: `scipy.stats` for the dashboard's
intervals and the recall estimates, scikit-learn for an order that learns. Their objects
(some 50,000 for scipy) then stayed in the collector's care, and each full pass over them
held the lock for 35-45 ms of CPU in a worker while the GUI thread waited for it
(tests/ui/test_trec_scale.py, pinned to one core, load 2; 27 November 2026). Imported
through `import_for_good`, they are made with the collector paused and then frozen.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_depth = 0  # collector_paused blocks open, over every thread
_was_enabled = True


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Loading modules (SQLAlchemy, the store, scipy) or opening a project: Python's cycle
    collector is paused, as it would otherwise walk the hundreds of thousands of objects
    the modules make, again and again while they load (0.06 s of CPU in `import run`,
    measured; 136 passes while scipy.stats loads); after, they are frozen (gc.freeze: kept
    out of later collections, as they live until the process ends) and collection goes on.
    Safe from several threads at once: the collector runs again when the last one ends."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            gc.freeze()
            if _depth == 0 and _was_enabled:
                gc.enable()


def import_for_good(*names: str) -> None:
    """Import the modules `names` (in a worker: the first time, seconds of CPU) so that
    their objects are frozen, not walked by every later full pass of the collector. The
    young generations are collected first, so that little garbage is frozen with them.
    Returns once every module is imported whole: a module another thread is importing is
    in `sys.modules` already, half made, and is waited for (a worker that went on with it
    left the GUI thread to wait 0.7 s for the rest of scipy's import)."""
    missing = [name for name in names if name not in sys.modules]
    if missing:
        gc.collect(1)
        with collector_paused():
            for name in missing:
                importlib.import_module(name)
    for name in names:
        importlib.import_module(name)  # waits for another thread's import of it


# Young collections between two automatic full passes of the cycle collector (Python's
# default is 10). A full pass walks every object not frozen: in the window, once a project
# and its topic are open, 40-200 ms of the GUI thread each (gc.callbacks, in
# tests/ui/test_trec_scale.py's search scenario: a pass every few seconds there, the
# watchdog's worst stalls), where a young pass takes under 1 ms. After `gc.freeze` Python
# starts one at the tenth young pass whatever it finds; at 1,000 they come a hundred times
# less often, and cyclic garbage among older objects waits that much longer to be freed
# (objects freed by their count are freed at once, as ever).
YOUNG_PASSES_PER_FULL = 1000


def fewer_full_passes() -> None:
    """The window's process: automatic full passes of the cycle collector made rare
    (`YOUNG_PASSES_PER_FULL`); the young generations are collected as before."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, YOUNG_PASSES_PER_FULL)
