"""The dashboard's runs x measures table as text: CSV, LaTeX, Markdown and trec_eval output
(no Qt). Significance marks, when given: ▲ significantly better than the baseline, ▼ worse
(Markdown and the GUI), an up or down arrow in LaTeX, p-value columns in CSV."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable

import numpy as np

from judgeapp.measures import format_trec_runs
from judgeapp.services.live_eval import TESTS, Significance, Snapshot

UP, DOWN = "▲", "▼"


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
    """One row per run; with marks, a `p(<measure>)` column (corrected p) per measure."""
    sig = _usable(snapshot, sig)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    names = [str(m) for m in snapshot.measures]
    header = ["run", *names]
    if sig is not None:
        header += [f"p({n})" for n in names]
    writer.writerow(header)
    for r, run in enumerate(snapshot.run_names):
        row = [run] + [
            _number(snapshot.means[i, r], m.is_count, 6) for i, m in enumerate(snapshot.measures)
        ]
        if sig is not None:
            row += ["" if run == sig.baseline else f"{sig.p[i, r]:.6g}" for i in range(len(names))]
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
) -> list[list[str]]:
    """The table's rows as text: run name escaped, the best value of each measure in
    `bold` (a format string), significance `marks` (better, worse) after the value."""
    best = _best(snapshot)
    rows = []
    for r, run in enumerate(snapshot.run_names):
        cells = [escape(run)]
        for i, m in enumerate(snapshot.measures):
            text = _number(snapshot.means[i, r], m.is_count)
            if best[i] == r:
                text = bold.format(text)
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
    for row in _styled_rows(snapshot, sig, latex_escape, "\\textbf{{{}}}", _LATEX_MARKS):
        lines.append(" & ".join(row) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
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
    notes = [f"{len(snapshot.qids)} topics; judgments: {snapshot.config.judgments.describe()}."]
    if sig is not None:
        notes.append(f"{UP}/{DOWN}: {_legend(sig)}.")
    return "\n".join(lines) + "\n\n" + " ".join(notes) + "\n"


def to_trec_eval(snapshot: Snapshot) -> str:
    """What `evaluate -c -l LEVEL -m ...` prints for the table's measures, run by run
    (trec_eval's lines; with several runs each block opens with its runid line)."""
    return format_trec_runs(snapshot.results)


FORMATS = {"csv": to_csv, "latex": to_latex, "markdown": to_markdown}
