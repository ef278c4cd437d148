"""trec_eval-identical evaluation measures over numpy arrays (no SQL, no Qt).

Typical use::

    from judgeapp.measures import Evaluator, EvalOptions, Judgments, Run, Vocabulary

    vocab = Vocabulary()
    judgments = Judgments.from_file("qrels.txt", vocab)
    runs = [Run.from_file(path, vocab) for path in paths]
    evaluator = Evaluator(judgments, runs, ["AP", "nDCG@10", "P@10"], EvalOptions())
    results = evaluator.evaluate()
    results.mean("AP")              # one value per run, as trec_eval's `all` line
    results.per_topic("nDCG@10")    # runs x topics

    evaluator.set_topic_judgments("401", docids, grades)
    results = evaluator.recompute_topic("401")   # every run, that topic only

Semantics are trec_eval 10.0 (``EvalOptions(version=9)`` for 9.x); see
``../shared/docs/measures.md``.
"""

from judgeapp.measures.data import Judgments, Run, TopicJudgments, Vocabulary
from judgeapp.measures.engine import (
    EvalOptions,
    Evaluator,
    MissingTopicError,
    Results,
    evaluate_stream,
)
from judgeapp.measures.family import EvaluationError, Family
from judgeapp.measures.measure import Measure
from judgeapp.measures.parse import MeasureError, parse_measure, parse_measures
from judgeapp.measures.registry import FAMILIES
from judgeapp.measures.report import format_results, format_trec, format_trec_runs

# ir_measures-style measures: P@10, nDCG(dcg='exp-log2')@10, AP, ...
AP = Measure("AP")
P = Measure("P")
R = Measure("R")
RR = Measure("RR")
nDCG = Measure("nDCG")
Rprec = Measure("Rprec")
Bpref = Measure("Bpref")
infAP = Measure("infAP")
IPrec = Measure("IPrec")
Judged = Measure("Judged")
SetP = Measure("SetP")
SetR = Measure("SetR")
SetF = Measure("SetF")
SetAP = Measure("SetAP")
Success = Measure("Success")
NumQ = Measure("NumQ")
NumRet = Measure("NumRet")
NumRel = Measure("NumRel")
NumRelRet = Measure("NumRelRet")
F = Measure("F")

# the dashboard's default columns
DEFAULT_GUI_MEASURES: tuple[str, ...] = tuple("AP nDCG@10 P@10 R@100 RR Bpref Judged@10".split())

__all__ = [
    "AP",
    "DEFAULT_GUI_MEASURES",
    "FAMILIES",
    "RR",
    "Bpref",
    "EvalOptions",
    "EvaluationError",
    "Evaluator",
    "F",
    "Family",
    "IPrec",
    "Judged",
    "Judgments",
    "Measure",
    "MeasureError",
    "MissingTopicError",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "R",
    "Results",
    "Rprec",
    "Run",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "Success",
    "TopicJudgments",
    "Vocabulary",
    "evaluate_stream",
    "format_results",
    "format_trec",
    "format_trec_runs",
    "infAP",
    "nDCG",
    "parse_measure",
    "parse_measures",
]


def __getattr__(name: str) -> Measure:
    """Any registered family or ir_measures alias as a measure object (``ERR``, ``RBP``,
    ``MAP``), as ir_measures exports them."""
    from judgeapp.measures.registry import ALIASES

    if name in FAMILIES:
        return Measure(name)
    if name in ALIASES:
        alias = ALIASES[name]
        return Measure(alias.family, params=dict(alias.params))
    raise AttributeError(f"module 'judgeapp.measures' has no attribute {name!r}")
