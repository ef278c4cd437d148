"""The judging view's line on the relevant documents left in the open topic: the
estimate with its interval, whether the interval is calibrated, and the stopping advice
(docs/estimators.md), with a tooltip that says how the advice is reached."""

from __future__ import annotations

from judgeapp.pooling.estimate import STOP_TAIL, Estimate


def estimate_text(estimate: Estimate) -> tuple[str, str]:
    """The judging view's estimate line and its tooltip: the relevant documents left with
    their interval, whether the interval is calibrated, and the stopping advice."""
    low, high = estimate.missing_interval
    left = (
        f"After {estimate.judged:,} judged: about {estimate.missing:.0f} relevant left, "
        f"{estimate.level:.0%} interval {low:.0f}-{high:.0f}"
        + ("" if estimate.calibrated else " (uncalibrated, conservative)")
        + "."
    )
    lines, detail = [left], [left]
    if estimate.note:
        detail.append(estimate.note[0].upper() + estimate.note[1:] + ".")
    a = estimate.advice
    if a is not None:
        lines.append(a.text())
        detail.append(
            f"Stopping rule: stop once found / (found + U) >= {a.target:.0%}, U the relevant "
            f"left at one-sided confidence {1 - (1 - a.confidence) * STOP_TAIL:.1%} (now "
            f"{a.found} found and U = {a.bound}: recall at least {a.recall_low:.0%}), checked "
            "after every fiftieth of the pool. On topics whose truth was known it stopped at "
            f"{a.target:.0%} recall or more in at least {a.confidence:.0%} of them "
            "(docs/estimators.md)." + ("" if a.calibrated else f" Conservative bound: {a.reason}.")
        )
    return " ".join(lines), "\n".join(detail)
