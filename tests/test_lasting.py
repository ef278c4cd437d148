"""judgeapp.lasting: modules imported late (in a worker) are made with the cycle
collector paused and frozen, so that its later full passes do not walk them while the GUI
thread waits for the interpreter lock."""

from __future__ import annotations

import gc
import sys
import threading

import pytest

from judgeapp.lasting import collector_paused, import_for_good


@pytest.fixture
def late_module(tmp_path, monkeypatch):
    """A module nobody has imported, which makes 5,000 objects the collector tracks."""
    name = "judgeapp_late_module_for_test"
    (tmp_path / f"{name}.py").write_text("MADE = [[i] for i in range(5000)]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)
    gc.unfreeze()


def test_a_late_import_is_frozen_and_the_collector_runs_again(late_module):
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    import_for_good(late_module)
    made = sys.modules[late_module].MADE
    assert gc.get_freeze_count() >= frozen + len(made)
    tracked = {id(o) for o in gc.get_objects()}
    assert not any(id(o) in tracked for o in made[:50])  # out of the collector's passes
    assert gc.isenabled()
    before = gc.get_freeze_count()
    import_for_good(late_module)  # imported already: nothing frozen again
    assert gc.get_freeze_count() == before


def test_the_collector_runs_again_only_when_every_thread_is_done():
    """Two workers import at once: the first to finish leaves the collector paused for
    the other."""
    second_in, first_out = threading.Event(), threading.Event()
    seen = {}

    def second():
        with collector_paused():
            second_in.set()
            first_out.wait(10)
            seen["second, after the first ended"] = gc.isenabled()
        seen["after both"] = gc.isenabled()

    thread = threading.Thread(target=second)
    try:
        with collector_paused():
            thread.start()
            second_in.wait(10)
        first_out.set()
        thread.join(10)
    finally:
        gc.unfreeze()
        gc.enable()
    assert seen == {"second, after the first ended": False, "after both": True}


def test_a_module_another_thread_is_importing_is_waited_for(tmp_path, monkeypatch):
    """Two workers need the same module: the second returns only once the first has
    imported it whole (it is in sys.modules, half made, meanwhile)."""
    import time

    name = "judgeapp_slow_module_for_test"
    (tmp_path / f"{name}.py").write_text(
        "import time\nSTARTED = True\ntime.sleep(0.3)\nDONE = True\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    first = threading.Thread(target=import_for_good, args=(name,))
    try:
        first.start()
        while name not in sys.modules:
            time.sleep(0.001)
        import_for_good(name)
        assert getattr(sys.modules[name], "DONE", False)
    finally:
        first.join(10)
        sys.modules.pop(name, None)
        gc.unfreeze()
