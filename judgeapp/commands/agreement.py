"""`agreement DB`: how much the assessors of a project agree, and whether their disagreement
changes the ranking of the runs (`--rankings -m MEASURE`)."""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
from typing import TYPE_CHECKING

from judgeapp.commands import CommandError, open_store
from judgeapp.commands.pool import add_topics_argument, select_topics
from judgeapp.outputs import json_text

if TYPE_CHECKING:
    from judgeapp.services.agreement import AgreementReport

ORDER = 62

DESCRIPTION = """\
Agreement between assessors (and imported qrels sources) on the documents two or more of
them judged: percent agreement (over pairs of judgments of one document), Cohen's kappa (unweighted, linear and quadratic weights; per
pair, and overall with exactly two assessors), Fleiss' kappa (over the documents with the
most common number of judgments), Krippendorff's alpha (nominal, ordinal, interval, ratio;
missing judgments allowed), and on the cut grade >= K positive agreement 2a/(2a+b+c) and the
overlap of the relevant sets a/(a+b+c) (a, b, c summed over pairs of assessors). Per topic and over all topics, with 95% bootstrap
intervals over topics (percentile; topics resampled with replacement), per pair of
assessors with a confusion matrix. --rankings evaluates every run under each assessor's
judgments, each source's and the combined ones, and compares the system rankings of every
two on the topics both judged: Kendall's tau-b and tau_AP (with the first named the
reference).

tsv and csv: one line per figure, scope<TAB>statistic<TAB>value (csv: with a header). Scope
`all`, a topic id, `pair:A:B` or `rankings:REFERENCE:OTHER`. Statistics: percent_agreement,
cohen_kappa, cohen_kappa_linear, cohen_kappa_quadratic (for exactly two assessors, and per
pair), fleiss_kappa, krippendorff_alpha_nominal, krippendorff_alpha_ordinal,
krippendorff_alpha_interval, krippendorff_alpha_ratio, positive_agreement,
relevant_overlap, documents, fleiss_documents; on `all` and pairs each is followed by its
interval as <statistic>_low and <statistic>_high; rankings give kendall_tau, tau_ap and
topics. An undefined figure (e.g. kappa when both assessors gave one grade only) is nan.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agreement",
        help="agreement between assessors (kappas, alpha, overlap) and ranking stability",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("db", metavar="DB", help="project: file path or SQLAlchemy URL")
    p.add_argument(
        "--assessors",
        metavar="A,B,...",
        help="assessors or qrels sources to compare (default: all that judged something)",
    )
    add_topics_argument(p, "all")
    p.add_argument(
        "--relevant-from",
        type=int,
        default=1,
        metavar="K",
        help="grades >= K count as relevant (positive agreement, overlap, rankings; default 1)",
    )
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("text", "tsv", "csv", "json"),
        default="text",
        help="output format (default: text)",
    )
    p.add_argument(
        "--rankings",
        action="store_true",
        help="also compare the runs' rankings under each assessor's judgments",
    )
    p.add_argument(
        "-m",
        dest="measure",
        default="AP",
        metavar="MEASURE",
        help="with --rankings: the measure that ranks the runs (default AP)",
    )
    p.add_argument(
        "--policy",
        default="newest",
        help="with --rankings: the rule that makes the combined judgments (default newest)",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="bootstrap resamples of the topics for the intervals (default 1000; 0: none)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.services.agreement import AgreementError, agreement_report
    from judgeapp.services.policy import POLICIES
    from judgeapp.store import StoreError

    assessors = None
    if args.assessors is not None:
        assessors = [a.strip() for a in args.assessors.split(",") if a.strip()]
    if args.bootstrap < 0:
        raise CommandError("--bootstrap must be 0 or more")
    policy = POLICIES.get(args.policy)
    if policy is None:
        raise CommandError(f"unknown policy {args.policy!r} (one of: {', '.join(POLICIES)})")
    store = open_store(args.db)
    try:
        topics = None
        if args.topics:
            available = {t.qid for t in store.topics.all()} | set(store.judgments.rows().qids)
            topics = select_topics(args.topics, available)
        report = agreement_report(
            store,
            assessors,
            topics=topics,
            relevant_from=args.relevant_from,
            bootstrap=args.bootstrap,
            seed=args.seed,
            rankings=args.measure if args.rankings else None,
            policy=policy,
        )
    except (AgreementError, StoreError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    sys.stdout.write(FORMATS[args.fmt](report))
    return 0


# -- output ---------------------------------------------------------------------------------------
def value_text(statistic: str, value: float) -> str:
    """A figure as written in tsv/csv: counts as integers, other numbers exactly (repr)."""
    if math.isnan(value):
        return "nan"
    if statistic in ("documents", "fleiss_documents", "topics"):
        return str(int(value))
    return repr(float(value))


def to_tsv(report: AgreementReport) -> str:
    return "".join(f"{s}\t{k}\t{value_text(k, v)}\n" for s, k, v in report.figures())


def to_csv(report: AgreementReport) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["scope", "statistic", "value"])
    writer.writerows((s, k, value_text(k, v)) for s, k, v in report.figures())
    return buf.getvalue()


def to_json(report: AgreementReport) -> str:
    return json_text(report.to_json(), indent=2) + "\n"


def _num(value: float, width: int = 8) -> str:
    return f"{'-':>{width}}" if math.isnan(value) else f"{value:>{width}.4f}"


def _interval(pair: tuple[float, float] | None) -> str:
    if pair is None or math.isnan(pair[0]):
        return ""
    return f"[{pair[0]:.4f}, {pair[1]:.4f}]"


# per-topic and per-pair table columns: (statistic, heading)
SHORT = (
    ("percent_agreement", "agree"),
    ("cohen_kappa", "kappa"),
    ("cohen_kappa_linear", "kappa_l"),
    ("cohen_kappa_quadratic", "kappa_q"),
    ("fleiss_kappa", "fleiss"),
    ("krippendorff_alpha_nominal", "alpha_n"),
    ("krippendorff_alpha_ordinal", "alpha_o"),
    ("positive_agreement", "pos_agr"),
    ("relevant_overlap", "overlap"),
)


def _table(label: str, rows: list[tuple[str, dict[str, float]]]) -> list[str]:
    present = [(k, h) for k, h in SHORT if any(k in f for _, f in rows)]
    width = max([len(label), *(len(name) for name, _ in rows)])
    lines = [f"  {label:<{width}}  {'docs':>6}" + "".join(f"{h:>9}" for _, h in present)]
    for name, f in rows:
        cells = "".join(" " + _num(f.get(k, math.nan)) for k, _ in present)
        lines.append(f"  {name:<{width}}  {int(f['documents']):>6}{cells}")
    return lines


def to_text(report: AgreementReport) -> str:
    kinds = ", ".join(f"{a} ({report.kinds[a]})" for a in report.assessors)
    docs = int(report.overall["documents"])
    lines = [
        f"Agreement of {kinds}",
        f"on {docs} documents judged by two or more, in {len(report.topics)} topics; "
        f"grades {' '.join(map(str, report.grades))}; relevant from grade {report.relevant_from}",
        f"Fleiss' kappa over the {int(report.overall['fleiss_documents'])} documents with "
        f"{report.fleiss_raters} judgments; intervals: {report.intervals_note()}",
        "",
        "All topics",
        f"  {'statistic':<28} {'value':>8}  95% interval",
    ]
    for stat, value in report.overall.items():
        if stat in ("documents", "fleiss_documents"):
            continue
        lines.append(f"  {stat:<28} {_num(value)}  {_interval(report.intervals.get(stat))}")
    lines += ["", "Per topic"]
    lines += _table("topic", [(q, report.per_topic[q]) for q in report.topics])
    lines += ["", "Pairs of assessors"]
    lines += _table("pair", [(f"{p.first} / {p.second}", p.figures) for p in report.pairs])
    for p in report.pairs:
        if "cohen_kappa" in p.intervals:
            lines.append(
                f"  {p.first} / {p.second}: kappa 95% interval "
                f"{_interval(p.intervals['cohen_kappa'])}"
            )
    for p in report.pairs:
        lines += ["", f"Confusion matrix: {p.first} (rows) x {p.second} (columns)"]
        lines.append("  " + " " * 6 + "".join(f"{g:>7}" for g in report.grades))
        for g, row in zip(report.grades, p.confusion.tolist(), strict=True):
            lines.append(f"  {g:>6}" + "".join(f"{c:>7}" for c in row))
    rk = report.rankings
    if rk is not None:
        lines += [
            "",
            f"Rankings of {len(rk.runs)} runs by {rk.measure} (combined judgments: "
            f"{rk.policy}); tau_AP reads the other ranking against the reference",
        ]
        width = max(len("reference"), *(len(s.name) for s in rk.sets))
        lines.append(
            f"  {'reference':<{width}}  {'other':<{width}}  {'topics':>6}  "
            f"{'tau':>8}  {'tau_AP':>8}"
        )
        for r in rk.pairs:
            lines.append(
                f"  {r.reference:<{width}}  {r.other:<{width}}  {len(r.topics):>6}  "
                f"{_num(r.kendall_tau)}  {_num(r.tau_ap)}"
            )
    return "\n".join(lines) + "\n"


FORMATS = {"text": to_text, "tsv": to_tsv, "csv": to_csv, "json": to_json}
