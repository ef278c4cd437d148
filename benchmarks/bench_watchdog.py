"""What the GUI-thread watchdog of the tests (tests/ui/watchdog.py) costs the process it
watches: CPU time per second of an idle event loop with 14 idle threads beside it (a
window's worker pools), with no watchdog, with this checkout's and with another
revision's (--peer, a git revision: its tests/ui/watchdog.py), in one process, the three
alternated round by round. Printed: the process's CPU over the run without a watchdog, the
GUI thread's and the watchdog's side thread's (the one that takes turns with the GUI thread
for the interpreter lock), medians of the rounds, and this checkout's against the peer's.

    python benchmarks/bench_watchdog.py [--peer main] [--rounds 5] [--seconds 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IDLE_THREADS = 14


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def cpu_ms(tid: int) -> float:
    try:
        with open(f"/proc/self/task/{tid}/schedstat") as fh:
            return int(fh.read().split()[0]) / 1e6
    except OSError:
        return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", default="main", help="a git revision (default: main)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])  # noqa: F841 (kept alive)
    peer_source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{args.peer}:tests/ui/watchdog.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    with tempfile.TemporaryDirectory() as folder:
        peer_path = Path(folder) / "peer_watchdog.py"
        peer_path.write_text(peer_source)
        sides = {
            "none": None,
            "peer": load(peer_path, "peer_watchdog"),
            "this": load(ROOT / "tests" / "ui" / "watchdog.py", "this_watchdog"),
        }
    idle = threading.Event()
    for _ in range(IDLE_THREADS):
        threading.Thread(target=idle.wait, daemon=True).start()

    figures: dict[str, dict[str, list[float]]] = {
        side: {"process": [], "gui": [], "side thread": []} for side in sides
    }
    load_before = os.getloadavg()[0]
    for r in range(args.rounds):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for side in order:
            module = sides[side]
            dog = module.GuiWatchdog() if module is not None else None
            if dog is not None:
                dog.start()
            QTest.qWait(100)
            helpers = [t.native_id for t in threading.enumerate() if t.name == "watchdog"]
            s0 = sum(cpu_ms(t) for t in helpers if t)
            c0, g0, w0 = time.process_time(), time.thread_time(), time.perf_counter()
            QTest.qWait(int(args.seconds * 1000))
            c1, g1, w1 = time.process_time(), time.thread_time(), time.perf_counter()
            s1 = sum(cpu_ms(t) for t in helpers if t)
            if dog is not None:
                dog.stop()
            wall = w1 - w0
            figures[side]["process"].append((c1 - c0) * 1000 / wall)
            figures[side]["gui"].append((g1 - g0) * 1000 / wall)
            figures[side]["side thread"].append((s1 - s0) / wall)
    idle.set()

    med = {side: {k: statistics.median(v) for k, v in f.items()} for side, f in figures.items()}
    base = med["none"]["process"]
    print(
        f"CPU ms per second, medians of {args.rounds} rounds of {args.seconds:.0f} s "
        f"(load {load_before:.2f} -> {os.getloadavg()[0]:.2f}); peer = {args.peer}"
    )
    print(f"{'':6s} {'process':>9s} {'over none':>10s} {'GUI thread':>11s} {'side thread':>12s}")
    for side in sides:
        m = med[side]
        print(
            f"{side:6s} {m['process']:9.1f} {m['process'] - base:10.1f} {m['gui']:11.1f} "
            f"{m['side thread']:12.1f}"
        )
    this, peer = med["this"], med["peer"]
    over_this, over_peer = this["process"] - base, peer["process"] - base
    if over_this > 0 and this["side thread"] > 0:
        print(
            f"this / peer: over none {over_this / over_peer:.2f}x, "
            f"side thread {this['side thread'] / peer['side thread']:.2f}x"
        )


if __name__ == "__main__":
    main()
