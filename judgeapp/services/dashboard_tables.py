"""The dashboard's runs x measures table as text: CSV, LaTeX, Markdown and trec_eval output
(no Qt). Significance marks, when given: ▲ significantly better than the baseline, ▼ worse
(Markdown and the GUI), an up or down arrow in LaTeX, p-value columns in CSV. Each mean over
topics comes with its 95% confidence interval (Student's t over the per-topic values): two
columns in CSV, ± the half-width in Markdown and LaTeX, the tooltip in the window."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable

import numpy as np

from judgeapp.measures import format_trec_runs
from judgeapp.services.baseline import TESTS, Significance
from judgeapp.services.live_eval import Snapshot

UP, DOWN = "▲", "▼"


LEVEL = 0.95


def mean_intervals(snapshot: Snapshot, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) [measure, run] of the `level` confidence interval of each mean over the
    snapshot's topics: mean ± t(level, n-1) · sd / sqrt(n) with the per-topic values (a run
    without a topic counts 0 there, as the mean does). NaN for measures that are not means
    (counts summed over topics) and below two topics."""
    from scipy import stats

    shape = snapshot.means.shape
    low, high = np.full(shape, np.nan), np.full(shape, np.nan)
    n = snapshot.num_topics
    if n < 2:
        return low, high
    values = snapshot.per_topic
    sd = values.std(axis=2, ddof=1)
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    for i, m in enumerate(snapshot.measures):
        if m.aggregate == "mean" and not m.is_count:
            low[i] = snapshot.means[i] - half[i]
            high[i] = snapshot.means[i] + half[i]
    return low, high


def _half_width(low: np.ndarray, high: np.ndarray, i: int, r: int, pm: str = "±") -> str:
    """' ± 0.0412' for a cell with an interval, else ''."""
    if not (math.isfinite(low[i, r]) and math.isfinite(high[i, r])):
        return ""
    return f" {pm} {(high[i, r] - low[i, r]) / 2:.4f}"


def _number(value: float, integer: bool, digits: int = 4) -> str:
    if not math.isfinite(value):
        return "–"
    return f"{value:.0f}" if integer else f"{value:.{digits}f}"


def _mark(sig: Significance | None, m: int, r: int) -> int:
    return 0 if sig is None else int(sig.sign[m, r])


def _usable(snapshot: Snapshot, sig: Significance | None) -> Significance | None:
    """The marks only if they belong to this table (same runs and measures)."""
    if sig is None:
        return None
    if sig.run_names != snapshot.run_names or sig.measures != tuple(
        str(m) for m in snapshot.measures
    ):
        return None
    return sig


def _legend(sig: Significance) -> str:
    corr = "" if sig.correction == "none" else f", {sig.correction} correction across runs"
    return (
        f"significantly better (up) or worse (down) than {sig.baseline}: "
        f"{TESTS[sig.test]}, p < {sig.alpha:g}{corr}"
    )


def to_csv(snapshot: Snapshot, sig: Significance | None = None) -> str:
    """One row per run; with marks, a `p(<measure>)` column (corrected p) per measure; then
    the 95% interval of each mean, `ci95_low(<measure>)` and `ci95_high(<measure>)`."""
    sig = _usable(snapshot, sig)
    low, high = mean_intervals(snapshot)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    names = [str(m) for m in snapshot.measures]
    header = ["run", *names]
    if sig is not None:
        header += [f"p({n})" for n in names]
    for n in names:
        header += [f"ci95_low({n})", f"ci95_high({n})"]
    writer.writerow(header)
    for r, run in enumerate(snapshot.run_names):
        row = [run] + [
            _number(snapshot.means[i, r], m.is_count, 6) for i, m in enumerate(snapshot.measures)
        ]
        if sig is not None:
            row += ["" if run == sig.baseline else f"{sig.p[i, r]:.6g}" for i in range(len(names))]
        for i in range(len(names)):
            finite = math.isfinite(low[i, r])
            row += [f"{low[i, r]:.6f}", f"{high[i, r]:.6f}"] if finite else ["", ""]
        writer.writerow(row)
    return buf.getvalue()


def _best(snapshot: Snapshot) -> list[int | None]:
    """Per measure the row of the highest mean (None for counts or no values)."""
    out: list[int | None] = []
    for i, m in enumerate(snapshot.measures):
        col = snapshot.means[i]
        if m.is_count or not np.isfinite(col).any():
            out.append(None)
        else:
            out.append(int(np.nanargmax(col)))
    return out


def _styled_rows(
    snapshot: Snapshot,
    sig: Significance | None,
    escape: Callable[[str], str],
    bold: str,
    marks: tuple[str, str],
    pm: str = "±",
) -> list[list[str]]:
    """The table's rows as text: run name escaped, the best value of each measure in
    `bold` (a format string), ± the half-width of its 95% interval, significance `marks`
    (better, worse) after the value."""
    best = _best(snapshot)
    low, high = mean_intervals(snapshot)
    rows = []
    for r, run in enumerate(snapshot.run_names):
        cells = [escape(run)]
        for i, m in enumerate(snapshot.measures):
            text = _number(snapshot.means[i, r], m.is_count)
            if best[i] == r:
                text = bold.format(text)
            text += _half_width(low, high, i, r, pm)
            mark = _mark(sig, i, r)
            if mark:
                text += marks[0] if mark > 0 else marks[1]
            cells.append(text)
        rows.append(cells)
    return rows


_LATEX_MARKS = ("$^{\\uparrow}$", "$^{\\downarrow}$")
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(snapshot: Snapshot, sig: Significance | None = None) -> str:
    """A booktabs tabular; the best value of each measure in bold."""
    sig = _usable(snapshot, sig)
    cols = "l" + "r" * len(snapshot.measures)
    lines = [
        f"% {len(snapshot.qids)} topics; judgments: {snapshot.config.judgments.describe()}",
        f"\\begin{{tabular}}{{{cols}}}",
        "\\toprule",
        " & ".join(["Run"] + [latex_escape(str(m)) for m in snapshot.measures]) + " \\\\",
        "\\midrule",
    ]
    for row in _styled_rows(
        snapshot, sig, latex_escape, "\\textbf{{{}}}", _LATEX_MARKS, pm="$\\pm$"
    ):
        lines.append(" & ".join(row) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    lines.append(f"% +-: half-width of the {LEVEL:.0%} confidence interval (t over topics)")
    if sig is not None:
        lines.append(f"% {_legend(sig)}")
    return "\n".join(lines) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(snapshot: Snapshot, sig: Significance | None = None) -> str:
    """A GitHub-flavoured Markdown table; the best value of each measure in bold."""
    sig = _usable(snapshot, sig)
    head = ["Run"] + [_md_escape(str(m)) for m in snapshot.measures]
    lines = [
        "| " + " | ".join(head) + " |",
        "|" + "|".join([":---"] + ["---:"] * len(snapshot.measures)) + "|",
    ]
    for row in _styled_rows(snapshot, sig, _md_escape, "**{}**", (f" {UP}", f" {DOWN}")):
        lines.append("| " + " | ".join(row) + " |")
    notes = [
        f"{len(snapshot.qids)} topics; judgments: {snapshot.config.judgments.describe()}; "
        f"±: half-width of the {LEVEL:.0%} confidence interval (t over topics)."
    ]
    if sig is not None:
        notes.append(f"{UP}/{DOWN}: {_legend(sig)}.")
    return "\n".join(lines) + "\n\n" + " ".join(notes) + "\n"


def to_trec_eval(snapshot: Snapshot) -> str:
    """What `evaluate -c -l LEVEL -m ...` prints for the table's measures, run by run
    (trec_eval's lines; with several runs each block opens with its runid line)."""
    return format_trec_runs(snapshot.results)


FORMATS = {"csv": to_csv, "latex": to_latex, "markdown": to_markdown}
