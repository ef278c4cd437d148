"""Statistics over measure values and judgments, not measures of runs (no SQL, no Qt).

- :mod:`.significance`: paired tests of runs against a baseline, corrections, effect sizes,
  bootstrap intervals and Tukey's HSD over all pairs (``judgeapp compare``, the dashboard);
- :mod:`.tables`: those comparisons as text, JSON, CSV and the Markdown / LaTeX paper table;
- :mod:`.agreement`: agreement between assessors (percent agreement, Cohen's and Fleiss'
  kappa, Krippendorff's alpha) and between the system rankings their judgments give
  (Kendall's tau, tau_ap).

They take numpy arrays (per-topic values from :mod:`judgeapp.measures`, grades from the
store) and import nothing else of judgeapp but :mod:`judgeapp.outputs`. docs/statistics.md
says what each is checked against.
"""
