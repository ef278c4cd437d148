"""Run comparisons as tables: text and machine formats with every statistic, and the table
papers print (a run per row, a measure per column) in Markdown or LaTeX.

In the paper table each cell is the run's mean; against a baseline a dagger marks a run
whose corrected p-value (the chosen test) is below alpha; over all pairs (Tukey's HSD)
each run gets a letter and its cells list, as superscripts, the letters of the runs it is
significantly better than. With bootstrap intervals the cell adds them in brackets.
"""

from __future__ import annotations

import csv
import io
import string
from collections.abc import Sequence

import numpy as np

from judgeapp.outputs import json_text
from judgeapp.statistics.significance import AllPairs, Comparison


def _letters(n: int) -> list[str]:
    return [string.ascii_lowercase[i % 26] * (1 + i // 26) for i in range(n)]


def _ci(ci: np.ndarray | None, r: int, digits: int = 4) -> str:
    if ci is None:
        return ""
    return f"[{ci[r, 0]:.{digits}f}, {ci[r, 1]:.{digits}f}]"


def _grid(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return (
        "\n".join(
            "  ".join(cell.ljust(widths[k]) for k, cell in enumerate(row)).rstrip() for row in rows
        )
        + "\n"
    )


# -- against a baseline: every statistic ----------------------------------------------------


def _tests_of(c: Comparison) -> list[str]:
    out = ["t", "rand"]
    if c.p_wilcoxon is not None:
        out.append("wilcoxon")
    if c.p_sign is not None:
        out.append("sign")
    return out


def _p(c: Comparison, test: str) -> tuple[np.ndarray, np.ndarray]:
    raw = {"t": c.p_t, "rand": c.p_rand, "wilcoxon": c.p_wilcoxon, "sign": c.p_sign}[test]
    assert raw is not None
    return raw, c.adjusted(test)


def full_table(comparisons: Sequence[Comparison], alpha: float, marks: str) -> str:
    c0 = comparisons[0]
    tests = _tests_of(c0)
    head = ["measure", "run", "mean", "delta", "d"]
    if c0.ci_mean is not None:
        head += ["mean CI", "delta CI", "d CI"]
    for t in tests:
        head += [f"p({t})", f"p({t},adj)"]
    rows = [(*head, "")]
    for c in comparisons:
        sig = c.significant(alpha, test=marks)
        for r, name in enumerate(c.runs):
            base = r == c.baseline
            cells = [c.measure, name + (" (baseline)" if base else ""), f"{c.mean[r]:.4f}"]
            cells += ["", ""] if base else [f"{c.delta[r]:+.4f}", f"{c.effect_size[r]:+.3f}"]
            if c.ci_mean is not None:
                cells += [_ci(c.ci_mean, r)]
                cells += ["", ""] if base else [_ci(c.ci_delta, r), _ci(c.ci_effect, r, 3)]
            for t in tests:
                raw, adj = _p(c, t)
                cells += ["", ""] if base else [f"{raw[r]:.4f}", f"{adj[r]:.4f}"]
            rows.append((*cells, "*" if sig[r] else ""))
    note = (
        f"# {c0.topics} topics; tests: {', '.join(tests)}; correction: {c0.correction} across "
        f"{len(c0.runs) - 1} run(s); * = corrected {marks} p < {alpha}"
    )
    if c0.ci_mean is not None:
        note += (
            f"; {c0.confidence:.0%} {c0.ci_method} bootstrap intervals, {c0.resamples} "
            f"resamples, seed {c0.seed}"
        )
    return _grid(rows) + note + "\n"


def _records(comparisons: Sequence[Comparison], alpha: float, marks: str) -> list[dict]:
    out = []
    for c in comparisons:
        sig = c.significant(alpha, test=marks)
        for r, name in enumerate(c.runs):
            rec: dict[str, object] = {
                "measure": c.measure,
                "run": name,
                "baseline": c.runs[c.baseline],
                "topics": c.topics,
                "mean": float(c.mean[r]),
                "delta": float(c.delta[r]),
                "cohens_d": float(c.effect_size[r]),
            }
            for t in _tests_of(c):
                raw, adj = _p(c, t)
                rec[f"p_{t}"], rec[f"p_{t}_adjusted"] = float(raw[r]), float(adj[r])
            for key, ci in (("mean", c.ci_mean), ("delta", c.ci_delta), ("cohens_d", c.ci_effect)):
                if ci is not None:
                    rec[f"{key}_ci_low"], rec[f"{key}_ci_high"] = float(ci[r, 0]), float(ci[r, 1])
            rec["significant"] = bool(sig[r])
            out.append(rec)
    return out


def full_csv(comparisons: Sequence[Comparison], alpha: float, marks: str) -> str:
    records = _records(comparisons, alpha, marks)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return buf.getvalue()


def full_json(comparisons: Sequence[Comparison], alpha: float, marks: str) -> str:
    c0 = comparisons[0]
    meta = {
        "comparison": "baseline",
        "baseline": c0.runs[c0.baseline],
        "tukey": None,
        "correction": c0.correction,
        "permutations": c0.permutations,
        "seed": c0.seed,
        "alpha": alpha,
        "marks": marks,
        "interval": c0.ci_method or None,
        "confidence": c0.confidence if c0.ci_mean is not None else None,
        "resamples": c0.resamples or None,
    }
    return json_text({**meta, "rows": _records(comparisons, alpha, marks)}, indent=2) + "\n"


# -- the paper table ------------------------------------------------------------------------


def _paper(
    runs: Sequence[str],
    measures: Sequence[str],
    cells: list[list[tuple[float, str, str]]],  # [run][measure] = (mean, marks, interval)
    latex: bool,
    caption: str,
) -> str:
    if latex:

        def esc(text: str) -> str:
            return (
                text.replace("\\", r"\textbackslash{}")
                .replace("_", r"\_")
                .replace("&", r"\&")
                .replace("%", r"\%")
                .replace("#", r"\#")
            )

        lines = [
            r"\begin{tabular}{l" + "r" * len(measures) + "}",
            r"\toprule",
            "Run & " + " & ".join(esc(m) for m in measures) + r" \\",
            r"\midrule",
        ]
        for r, run in enumerate(runs):
            row = []
            for mean, marks, ci in cells[r]:
                cell = f"{mean:.4f}" + (f"$^{{{marks}}}$" if marks else "")
                row.append(cell + (f" {ci}" if ci else ""))
            lines.append(esc(run) + " & " + " & ".join(row) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", "% " + caption]
        return "\n".join(lines) + "\n"
    lines = ["| Run | " + " | ".join(measures) + " |", "|---|" + "---:|" * len(measures)]
    for r, run in enumerate(runs):
        row = []
        for mean, marks, ci in cells[r]:
            cell = f"{mean:.4f}" + (f"<sup>{marks}</sup>" if marks else "")
            row.append(cell + (f" {ci}" if ci else ""))
        lines.append(f"| {run} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n\n" + caption + "\n"


def _paper_baseline(
    comparisons: Sequence[Comparison], alpha: float, marks: str, latex: bool
) -> str:
    c0 = comparisons[0]
    dagger = r"\dagger" if latex else "†"
    cells = [
        [
            (
                float(c.mean[r]),
                dagger if c.significant(alpha, test=marks)[r] else "",
                _ci(c.ci_mean, r),
            )
            for c in comparisons
        ]
        for r in range(len(c0.runs))
    ]
    runs = [name + (" (baseline)" if r == c0.baseline else "") for r, name in enumerate(c0.runs)]
    names = {
        "t": "paired t-test",
        "rand": "randomization test",
        "wilcoxon": "Wilcoxon signed-rank test",
        "sign": "sign test",
    }
    caption = (
        f"{'†' if not latex else 'Dagger'}: {names[marks]} against the baseline, {c0.correction}-"
        f"corrected p < {alpha}; {c0.topics} topics"
    )
    if c0.ci_mean is not None:
        caption += f"; brackets: {c0.confidence:.0%} {c0.ci_method} bootstrap interval"
    return _paper(runs, [c.measure for c in comparisons], cells, latex, caption)


def paper_markdown(comparisons: Sequence[Comparison], alpha: float, marks: str) -> str:
    return _paper_baseline(comparisons, alpha, marks, latex=False)


def paper_latex(comparisons: Sequence[Comparison], alpha: float, marks: str) -> str:
    return _paper_baseline(comparisons, alpha, marks, latex=True)


# -- all pairs ------------------------------------------------------------------------------


def _paper_pairs(pairs: Sequence[AllPairs], alpha: float, latex: bool) -> str:
    p0 = pairs[0]
    letters = _letters(len(p0.runs))
    better = [p.better_than(alpha) for p in pairs]
    cells = [
        [
            (float(p.mean[r]), "".join(letters[j] for j in better[k][r]), _ci(p.ci_mean, r))
            for k, p in enumerate(pairs)
        ]
        for r in range(len(p0.runs))
    ]
    runs = [f"({letters[r]}) {name}" for r, name in enumerate(p0.runs)]
    caption = (
        f"Superscripts: the runs a run is significantly better than (Tukey's HSD, p < {alpha}); "
        f"{p0.topics} topics"
    )
    return _paper(runs, [p.measure for p in pairs], cells, latex, caption)


def pairs_markdown(pairs: Sequence[AllPairs], alpha: float) -> str:
    return _paper_pairs(pairs, alpha, latex=False)


def pairs_latex(pairs: Sequence[AllPairs], alpha: float) -> str:
    return _paper_pairs(pairs, alpha, latex=True)


def _pair_rows(pairs: Sequence[AllPairs], alpha: float) -> list[dict]:
    out = []
    for p in pairs:
        for i, a in enumerate(p.runs):
            for j, b in enumerate(p.runs):
                if i < j:
                    out.append(
                        {
                            "measure": p.measure,
                            "run": a,
                            "other": b,
                            "topics": p.topics,
                            "mean": float(p.mean[i]),
                            "other_mean": float(p.mean[j]),
                            "delta": float(p.mean[i] - p.mean[j]),
                            "p_tukey": float(p.p_tukey[i, j]),
                            "significant": bool(p.p_tukey[i, j] < alpha),
                        }
                    )
    return out


def pairs_table(pairs: Sequence[AllPairs], alpha: float) -> str:
    rows: list[tuple[str, ...]] = [
        ("measure", "run", "other", "mean", "other", "delta", "p(tukey)", "")
    ]
    for rec in _pair_rows(pairs, alpha):
        rows.append(
            (
                rec["measure"],
                rec["run"],
                rec["other"],
                f"{rec['mean']:.4f}",
                f"{rec['other_mean']:.4f}",
                f"{rec['delta']:+.4f}",
                f"{rec['p_tukey']:.4f}",
                "*" if rec["significant"] else "",
            )
        )
    return (
        _grid(rows) + f"# {pairs[0].topics} topics; Tukey's HSD ({pairs[0].tukey}) over all pairs; "
        f"* = p < {alpha}\n"
    )


def pairs_csv(pairs: Sequence[AllPairs], alpha: float) -> str:
    records = _pair_rows(pairs, alpha)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return buf.getvalue()


def pairs_json(
    pairs: Sequence[AllPairs], alpha: float, seed: int = 0, permutations: int = 0
) -> str:
    """The same layout as :func:`full_json`: settings, then one record per row."""
    tukey = pairs[0].tukey
    randomised = tukey == "randomised"
    meta = {
        "comparison": "all_pairs",
        "baseline": None,
        "tukey": tukey,
        "correction": None,
        "permutations": permutations if randomised else None,
        "seed": seed if randomised else None,
        "alpha": alpha,
        "marks": "tukey",
        "interval": None,
        "confidence": None,
        "resamples": None,
    }
    return json_text({**meta, "rows": _pair_rows(pairs, alpha)}, indent=2) + "\n"
