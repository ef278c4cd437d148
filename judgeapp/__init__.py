"""judgeapp: build and use IR test collections.

The core (store, formats, measures, pooling, services) has no Qt; `judgeapp.ui` is the Qt shell.
"""

__version__ = "0.1.0"

# The Python API (judgeapp.api) and project access (judgeapp.project), loaded on first use
# so that `import judgeapp` stays light: numpy-only code, no Qt, no pandas.
_API = {
    "calc_aggregate",
    "iter_calc",
    "calc",
    "evaluator",
    "Evaluator",
    "Metric",
    "Qrel",
    "ScoredDoc",
    "CalcResults",
    "GenericQrel",
    "GenericScoredDoc",
    "read_trec_qrels",
    "read_trec_run",
    "parse_trec_qrels",
    "parse_trec_run",
    "parse_trec_measure",
    "convert_trec_name",
    "define",
    "define_byquery",
    "CustomMeasure",
    "DefaultPipeline",
    "providers",
}
# ir_measures' other names for measures judgeapp has
_ALIASES = {
    "MAP": "AP",
    "MRR": "RR",
    "NDCG": "nDCG",
    "BPref": "Bpref",
    "RPrec": "Rprec",
    "Precision": "P",
    "Recall": "R",
    "MAP_IA": "AP_IA",
    "α_nDCG": "alpha_nDCG",
    "α_DCG": "alpha_DCG",
}
_MEASURES = {
    "AP",
    "P",
    "R",
    "RR",
    "nDCG",
    "Rprec",
    "Bpref",
    "infAP",
    "IPrec",
    "Judged",
    "SetP",
    "SetR",
    "SetF",
    "SetAP",
    "Success",
    "NumQ",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "ERR",
    "RBP",
    "INST",
    "INSQ",
    "NERR8",
    "NERR9",
    "NERR10",
    "NERR11",
    "BPM",
    "SDCG",
    "Compat",
    "Hits",
    "Accuracy",
    "alpha_nDCG",
    "alpha_DCG",
    "ERR_IA",
    "nERR_IA",
    "NRBP",
    "nNRBP",
    "P_IA",
    "AP_IA",
    "StRecall",
    "Measure",
    "parse_measure",
    "parse_measures",
}


def __getattr__(name: str):
    if name in _API:
        from judgeapp import api

        return getattr(api, name)
    if name == "open":
        from judgeapp.project import open_project

        return open_project
    if name in (
        "pytrec_eval",
        "gdeval",
        "cwl_eval",
        "pyndeval",
        "accuracy",
        "judged",
        "compat",
        "msmarco",
        "ranx",
        "Provider",
    ):
        from judgeapp import api

        return api.PROVIDERS[name] if name != "Provider" else api.Provider
    if name in _ALIASES:
        name = _ALIASES[name]
    if name == "SetRelP":
        from judgeapp import measures

        return measures.SetP(relative=True)
    if name == "parse_measure":
        from judgeapp import api

        return api.parse_measure
    if name in _MEASURES:
        from judgeapp import measures

        return getattr(measures, name)
    raise AttributeError(f"module 'judgeapp' has no attribute {name!r}")
