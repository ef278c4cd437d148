"""What building the window's heaviest views costs: the team view, the judging view, the
dashboard and the whole main window, each built, shown (polished by the style), laid out at
1366x768 and drawn once, on the GUI thread: CPU time of each step and of the whole, wall time
of the whole. The theme is applied first, as `main.py` does.

    python benchmarks/bench_widgets.py [--peer OTHER_CHECKOUT] [--rounds 5] [--builds 5]

Each round is one process per side that builds every view --builds times after one
warm-up build (imports, font caches) and reports the median CPU time (user+sys of the
process, the GUI thread being the only busy one) and wall time per view. With --peer the
same is run on another checkout of judgeapp (say, the commit before a change), alternating
the sides round by round; the medians of the rounds are printed side by side with their
ratio, with the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
VIEWS = ("team view", "judging view", "dashboard", "main window")
# CPU time: the constructor; show (polish, layout); one drawing; all three. Wall: all three.
KINDS = ("cpu construct", "cpu show", "cpu draw", "cpu total", "wall total")


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(builds: int) -> dict[str, list[float]]:
    """In a process of its own (the checkout to measure first on sys.path)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QWidget

    from judgeapp.app import build_main_window, ensure_app
    from judgeapp.ui.dashboard.view import DashboardView
    from judgeapp.ui.judging_view import JudgingView
    from judgeapp.ui.team_view import TeamView

    app = ensure_app()  # the theme as main.py applies it
    settings_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-widgets-{os.getpid()}.ini"
    settings = QSettings(str(settings_path), QSettings.Format.IniFormat)

    def main_window() -> QWidget:
        window, _controller = build_main_window(settings)
        return window

    makers = {
        "team view": TeamView,
        "judging view": JudgingView,
        "dashboard": DashboardView,
        "main window": main_window,
    }
    out: dict[str, list[float]] = {f"{v} {k}": [] for v in VIEWS for k in KINDS}
    for n in range(builds + 1):  # the first is a warm-up
        for name in VIEWS:
            c0, t0 = cpu(), time.perf_counter()
            widget = makers[name]()
            c1 = cpu()
            widget.resize(1366, 768)
            widget.show()
            app.processEvents()
            c2 = cpu()
            widget.grab()  # drawn once
            c3, t3 = cpu(), time.perf_counter()
            widget.close()
            widget.deleteLater()
            app.processEvents()
            if n:
                for kind, took in zip(
                    KINDS, (c1 - c0, c2 - c1, c3 - c2, c3 - c0, t3 - t0), strict=True
                ):
                    out[f"{name} {kind}"].append(took)
    settings_path.unlink(missing_ok=True)
    return out


def run_side(root: Path, builds: int) -> dict[str, float]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(root)}
    proc = subprocess.run(
        [sys.executable, str(HERE), "--child", "--builds", str(builds)],
        capture_output=True, text=True, cwd=root, env=env, check=True,
    )  # fmt: skip
    measured = json.loads(proc.stdout.strip().splitlines()[-1])
    return {k: statistics.median(v) for k, v in measured.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=5, help="processes per side (5)")
    parser.add_argument("--builds", type=int, default=5, help="builds per view per process (5)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(child(args.builds)))
        return 0
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    sides = {"this checkout": HERE.parent.parent}
    if args.peer is not None:
        sides["peer " + str(args.peer)] = args.peer.resolve()
    rounds: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    for r in range(args.rounds):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for side in order:
            rounds[side].append(run_side(sides[side], args.builds))
    print(
        f"built, shown at 1366x768 and drawn once; medians of {args.rounds} alternated "
        f"rounds of {args.builds} builds each (after a warm-up build)"
    )
    names = list(sides)
    header = f"{'':20s}" + "".join(f"{n[:26]:>30s}" for n in names)
    print(header + ("   ratio (peer / this)" if len(names) == 2 else ""))
    for view in VIEWS:
        for kind in KINDS:
            key = f"{view} {kind}"
            values = [statistics.median(x[key] for x in rounds[side]) for side in names]
            line = f"{view + ' ' + kind:30s}" + "".join(f"{v * 1000:17.1f} ms" for v in values)
            if len(values) == 2 and values[0] > 0:
                line += f"   {values[1] / values[0]:5.2f}x"
            print(line)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
