"""`evaluate [trec_eval options] QRELS RUN...`: trec_eval's numbers and output format.

Options mean what they mean to trec_eval 10.0 (trec_eval.c): -q per-topic values too,
-n no summary, -c average over every judged topic (a run's missing topic counts 0),
-l N relevance level, -M N use the first N documents, -N N collection size, -J judged
documents only, -m MEASURE (repeatable; default `official`). Several runs print one block
each, in order. `--trec-eval 9` gives 9.x values (pytrec_eval's), `--format` csv/tsv/json
for machines, `--db` evaluates the runs and judgments of a project, and `--db --bounds`
prints each run's value beside the least and greatest it can still take once the project's
pools are judged (judgeapp.services.bounds; format in `format_bounds`), and `--db --inferred`
prints each run's xinfAP, infNDCG and statAP estimated from the project's sample pool
(judgeapp.services.inferred; format in `format_inferred`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from judgeapp.commands import POLICY_HELP, CommandError
from judgeapp.outputs import shown

ORDER = 60


def add_trec_options(p: argparse.ArgumentParser) -> None:
    """The evaluation options shared by `evaluate` and `compare`."""
    p.add_argument(
        "-l",
        dest="level",
        type=int,
        default=1,
        metavar="N",
        help="lowest grade counted relevant (default 1)",
    )
    p.add_argument(
        "-M",
        dest="max_docs",
        type=int,
        default=None,
        metavar="N",
        help="use only the first N documents of each ranking",
    )
    p.add_argument(
        "-N",
        dest="num_docs",
        type=int,
        default=0,
        metavar="N",
        help="number of documents in the collection (utility, Fallout, Acc)",
    )
    p.add_argument(
        "-J",
        dest="judged_only",
        action="store_true",
        help="drop unjudged documents from each ranking first (use with care)",
    )
    p.add_argument(
        "-c",
        dest="complete",
        action="store_true",
        help="average over every topic of the judgments; missing topics count 0",
    )
    p.add_argument(
        "--trec-eval",
        dest="version",
        type=int,
        choices=(9, 10),
        default=10,
        help="reproduce trec_eval 10.0 (default) or 9.x (as pytrec_eval)",
    )
    p.add_argument(
        "--db", metavar="DB", help="evaluate the runs of this project (file path or SQLAlchemy URL)"
    )
    p.add_argument(
        "--judgments",
        metavar="SOURCE",
        help="with --db: the assessor or imported qrels source to use",
    )
    p.add_argument("--runs", nargs="+", metavar="NAME", help="with --db: only these runs")
    p.add_argument("--policy", default="newest", help=f"with --db: {POLICY_HELP}")
    p.add_argument(
        "-R",
        dest="rel_format",
        choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"),
        default="qrels",
        help="format of QRELS (trec_eval -R): qrels; prefs (qid jg jsg docno rel_level) "
        "for the prefs_* measures; qrels_prefs (qrels whose second column names a judgment "
        "group, read as preferences); qrels_jg (judgment groups, for map_avgjg, P_avgjg, "
        "Rprec_mult_avgjg)",
    )
    p.add_argument(
        "-T",
        dest="results_format",
        choices=("trec_results",),
        default="trec_results",
        help="format of the runs (trec_eval -T; only trec_results)",
    )
    p.add_argument(
        "--ties",
        choices=("trec_eval", "docno", "file", "ranx"),
        default="trec_eval",
        help="order of equal scores in a run: trec_eval (docno descending; default), docno "
        "(ascending), file (the file's order), ranx (as ranx sorts); see docs/interop.md",
    )
    p.add_argument(
        "--subtopics",
        action="store_true",
        help="QRELS are diversity judgments (qid subtopic docno grade, TREC Web track): "
        "for alpha_nDCG, ERR_IA, NRBP, P_IA, AP_IA, StRecall",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate",
        help="evaluate runs as trec_eval 10.0 does (same options, same output)",
        description="Evaluate RUN files against QRELS with trec_eval's options and output: "
        "scripts written for trec_eval work by swapping the command. Measures may be given "
        "in trec_eval syntax (-m P.5,10, -m ndcg_cut.10, -m all_trec) or ir_measures "
        "syntax (-m 'nDCG@10', -m 'P(rel=2)@5', -m AP).",
    )
    p.add_argument("qrels", nargs="?", metavar="QRELS", help="TREC qrels file")
    p.add_argument("run_files", nargs="*", metavar="RUN", help="TREC run file(s); - is stdin")
    p.add_argument(
        "-q", dest="per_topic", action="store_true", help="also print each topic's values"
    )
    p.add_argument("-n", dest="no_summary", action="store_true", help="print no summary")
    p.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure or nickname to print (repeatable; default: official)",
    )
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("trec", "csv", "tsv", "json"),
        default="trec",
        help="output format (default: trec_eval's)",
    )
    p.add_argument(
        "-Z",
        dest="zscores",
        metavar="ZMEAN_FILE",
        help="print z-scores against the means and standard deviations of ZMEAN_FILE "
        "(lines: qid measure mean stddev)",
    )
    p.add_argument(
        "-o", dest="obsolete_o", action="store_true", help="obsolete in trec_eval; ignored"
    )
    p.add_argument(
        "-v",
        "--version",
        dest="print_version",
        action="store_true",
        help="print the trec_eval version reproduced and exit",
    )
    p.add_argument(
        "--bounds",
        action="store_true",
        help="with --db: each run's value today and the least and greatest it can take once "
        "every pooled document is judged (unjudged ones not relevant, or relevant at the "
        "scale's lowest relevant grade); tab-separated: runid measure today low high proven",
    )
    p.add_argument(
        "--inferred",
        nargs="?",
        const="",
        metavar="POOL",
        help="with --db: each run's xinfAP, infNDCG and statAP estimated from the judged "
        "documents of a sample pool (POOL, or the project's only one), as NIST's "
        "sample_eval.pl and the Million Query track estimate them; -m picks among them, "
        "-q adds each topic; tab-separated: runid measure topic value",
    )
    p.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help="processes reading RUN files at once (default: one per usable core, for "
        "several megabytes of runs); 1 reads them all in this process, in the least memory",
    )
    add_trec_options(p)
    p.set_defaults(handler=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def evaluation_options(args: argparse.Namespace):
    from judgeapp.measures import EvalOptions, EvaluationError

    try:
        return EvalOptions(
            version=args.version,
            relevance_level=args.level,
            judged_only=args.judged_only,
            max_docs=args.max_docs,
            num_docs=args.num_docs,
            complete=args.complete,
        )
    except EvaluationError as exc:
        raise CommandError(str(exc)) from exc


def load_inputs(args: argparse.Namespace, run_files: list[str]):
    """(Judgments, [Run]) from files, or from the project with --db."""
    from judgeapp.errors import UserError
    from judgeapp.measures import Judgments, Run, Vocabulary
    from judgeapp.services.policy import parse_policy

    if args.db:
        if args.qrels or run_files:
            raise CommandError("give either --db or QRELS and RUN files, not both")
        from judgeapp.services.evaluation import load_for_evaluation

        try:
            policy = parse_policy(args.policy)
            return load_for_evaluation(
                args.db, runs=args.runs, assessor=args.judgments, policy=policy
            )
        except UserError as exc:
            raise CommandError(str(exc)) from exc
    if not args.qrels or not run_files:
        raise CommandError("give a QRELS file and at least one RUN file (or --db DB)")
    from judgeapp.formats import FormatError
    from judgeapp.formats.interop import read_run_any

    vocab = Vocabulary()
    rel_format = getattr(args, "rel_format", "qrels")
    if getattr(args, "subtopics", False):
        from judgeapp.formats.interop import read_subtopic_qrels

        judgments = Judgments.from_subtopics(read_subtopic_qrels(args.qrels), vocab)
    elif rel_format in ("prefs", "qrels_prefs"):
        from judgeapp.formats.prefs import read_prefs, read_qrels_prefs

        reader = read_prefs if rel_format == "prefs" else read_qrels_prefs
        judgments = Judgments.from_prefs(reader(args.qrels), vocab)
    elif rel_format == "qrels_jg":
        from judgeapp.formats.prefs import read_qrels_jg

        judgments = Judgments.from_groups(read_qrels_jg(args.qrels), vocab)
    else:
        from judgeapp.formats.interop import read_qrels_any

        judgments = Judgments.from_qrels(read_qrels_any(args.qrels), vocab)
    runs = []
    for path in run_files:
        with _readable(path) as real_path:
            try:
                run_file = read_run_any(real_path)
            except FormatError as exc:  # said of stdin, not of its copy
                if real_path == path:
                    raise
                raise FormatError("stdin", exc.line, exc.problem, byte=exc.byte) from None
        if rel_format in ("prefs", "qrels_prefs"):
            run_file = _ties_by_docno_ascending(run_file)
        elif getattr(args, "ties", "trec_eval") != "trec_eval":
            from judgeapp.formats.ties import reorder

            run_file = reorder(run_file, args.ties, rescore=True)
        runs.append(Run.from_run_file(run_file, vocab, name=path, float32_scores=args.version < 10))
    return judgments, runs


def _bulk_applies(args: argparse.Namespace) -> bool:
    """Plain relevance judgments (TREC or a classic format, not JSON or Parquet): read in
    bulk, and the runs evaluated as they are read (judgeapp.measures.files)."""
    from judgeapp.formats.interop import sniff

    if getattr(args, "subtopics", False) or getattr(args, "rel_format", "qrels") != "qrels":
        return False
    if getattr(args, "ties", "trec_eval") != "trec_eval":  # runs re-ranked by load_inputs
        return False
    return sniff(args.qrels) == "text"


# below this many bytes of run files, forking costs more than the second core gains
FORK_MIN_BYTES = 4 << 20


def _file_runs(paths: list[str], judged, float32: bool, jobs: int | None = None):
    """Each run file read when it is needed (TREC text in bulk; ranx JSON and Parquet by
    their readers), its docnos looked up among the judged; many large files are read by
    ``jobs`` forked processes (default: one per usable core; judgeapp.forked), and met in
    order all the same."""
    from functools import partial

    from judgeapp.forked import forked_map

    read = partial(_file_run, judged=judged, float32=float32)
    return forked_map(read, paths, processes=jobs if _worth_forking(paths) else 1)


def _worth_forking(paths: list[str]) -> bool:
    from judgeapp.forked import file_sizes, worth_forking

    sizes = file_sizes(paths)
    return sizes is not None and worth_forking(sizes, FORK_MIN_BYTES)


def _file_run(path: str, judged, float32: bool):
    from judgeapp.formats import FormatError
    from judgeapp.formats.bulk import RunRows
    from judgeapp.formats.interop import read_run_any, sniff
    from judgeapp.measures.files import read_run, run_from_rows

    with _readable(path) as real_path:
        try:
            if sniff(real_path) == "text":
                return read_run(real_path, judged, float32=float32, name=path)
            rows = RunRows.of_columns(read_run_any(real_path))
            rows = rows.reordered(float32) if float32 else rows
        except FormatError as exc:  # said of stdin, not of its copy
            if real_path == path:
                raise
            raise FormatError("stdin", exc.line, exc.problem, byte=exc.byte) from None
    return run_from_rows(rows, judged, name=path)


def _ties_by_docno_ascending(run_file):
    """trec_eval ranks a run for its preference measures with ties broken by docno
    ascending (form_prefs_counts.c), unlike everywhere else (descending)."""
    import numpy as np

    from judgeapp.records import RankedTopic, RunFile

    topics = {}
    for qid, t in run_file.topics.items():
        names = np.array(t.docnos, dtype=object)
        order = np.lexsort((np.argsort(np.argsort(names, kind="stable")), -t.scores))
        topics[qid] = RankedTopic([t.docnos[i] for i in order], t.scores[order], t.lines[order])
    return RunFile(run_file.path, run_file.tag, topics, run_file.n_lines)


class _readable:
    """A path to read: the file itself, or stdin copied to a temporary file for `-`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.tmp: str | None = None

    def __enter__(self) -> str:
        if self.path != "-":
            return self.path
        from judgeapp.formats.textio import copy_stream

        fd, self.tmp = tempfile.mkstemp(prefix="judgeapp-run-")
        with os.fdopen(fd, "wb") as out:
            copy_stream(sys.stdin.buffer, out)  # /dev/zero is refused, not copied forever
        return self.tmp

    def __exit__(self, *exc: object) -> None:
        if self.tmp:
            os.unlink(self.tmp)


def evaluate(args: argparse.Namespace, measure_args: list[str], run_files: list[str]):
    """Run the evaluation the arguments ask for; user errors become CommandError."""
    from judgeapp.measures import EvaluationError, Evaluator, MeasureError, parse_measures

    try:
        measures = parse_measures(measure_args, version=args.version)
    except MeasureError as exc:
        raise CommandError(f"illegal measure: {exc}") from exc
    options = evaluation_options(args)
    if not args.db and (args.judgments or args.runs or args.policy != "newest"):
        raise CommandError("--judgments, --runs and --policy go with --db")
    if args.db and getattr(args, "ties", "trec_eval") != "trec_eval":
        raise CommandError("--ties goes with RUN files (a project's runs keep no file order)")
    if args.db or not args.qrels or not run_files or not _bulk_applies(args):
        judgments, runs = load_inputs(args, run_files)
        if not runs:
            raise CommandError("no runs to evaluate")
        try:
            results = Evaluator(judgments, runs, measures, options).evaluate()
        except EvaluationError as exc:  # a missing topic (10.0 without -c), a measure needing -N
            raise CommandError(str(exc)) from exc
    else:
        results = _evaluate_files(args, run_files, measures, options)
    # trec_eval stops when no topic was evaluated (a -c missing topic in 9.x is not)
    empty = [results.run_names[r] for r, n in enumerate(results.evaluated.sum(axis=1)) if n == 0]
    if empty:
        raise CommandError(
            f"no topics with both results and judgments for run(s) {', '.join(empty)}"
        )
    return results


def _evaluate_files(args: argparse.Namespace, run_files: list[str], measures, options):
    """Runs read and evaluated a batch at a time: memory does not grow with their number."""
    from judgeapp.formats.allocator import keep_freed_memory, release_freed_memory
    from judgeapp.measures import EvaluationError, evaluate_stream
    from judgeapp.measures.files import read_judged

    keep_freed_memory()  # the readers' temporaries are reused, not faulted in per block
    judged = read_judged(args.qrels)
    # the qrels' temporaries are gone: not kept by this process, nor by its forked readers
    release_freed_memory()
    runs = _file_runs(run_files, judged, args.version < 10, getattr(args, "jobs", None))
    try:
        return evaluate_stream(judged.judgments, runs, measures, options)
    except EvaluationError as exc:  # a missing topic (10.0 without -c), a measure needing -N
        raise CommandError(str(exc)) from exc


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from judgeapp.measures import format_results
    from judgeapp.measures.report import run_labels

    if args.print_version:
        # trec_eval -v prints its version on stderr and stops
        from judgeapp import __version__

        release = "10.0" if args.version >= 10 else "9.0.4"
        sys.stderr.write(f"trec_eval version {release} (judgeapp {__version__})\n")
        return 0
    if args.bounds:
        if not args.db:
            raise CommandError("--bounds goes with --db (a project's pools)")
        if args.zscores or args.fmt != "trec" or args.per_topic or args.no_summary:
            raise CommandError(
                "--bounds prints its own table: -q, -n, -Z and --format do not apply"
            )
    if args.inferred is not None:
        return _run_inferred(args)
    results = evaluate(args, args.measures or ["official"], args.run_files)
    if args.bounds:
        sys.stdout.write(shown(format_bounds(results, _bounds(args, results)), keep="\t\n"))
        return 0
    if args.zscores:
        from judgeapp.measures.zscores import apply_zscores, read_zscores

        if args.fmt != "trec":
            raise CommandError("-Z prints trec_eval's format only")
        results = apply_zscores(results, read_zscores(args.zscores))
    if args.fmt in ("csv", "tsv") and not args.db:
        # rows name each run by its runid, not by the path it was given as
        results = dataclasses.replace(
            results, run_names=run_labels(results.run_names, results.runids)
        )
    # several runs: each block opens with its runid line (judgeapp.measures.report)
    text = format_results(results, args.fmt, per_topic=args.per_topic, summary=not args.no_summary)
    sys.stdout.write(shown(text, keep="\t\n"))
    return 0


def _run_inferred(args: argparse.Namespace) -> int:
    from judgeapp.errors import UserError
    from judgeapp.measures.inferred import MEASURES
    from judgeapp.services.inferred import project_inferred
    from judgeapp.services.policy import parse_policy

    if not args.db:
        raise CommandError("--inferred goes with --db (a project's sample pool)")
    if args.bounds or args.zscores or args.fmt != "trec" or args.no_summary:
        raise CommandError(
            "--inferred prints its own table: --bounds, -n, -Z and --format do not apply"
        )
    wanted = list(MEASURES)
    if args.measures:
        unknown = [m for m in args.measures if m not in MEASURES]
        if unknown:
            raise CommandError(
                f"with --inferred, -m takes {', '.join(MEASURES)}, not {unknown[0]!r}"
            )
        wanted = [m for m in MEASURES if m in args.measures]
    try:
        found = project_inferred(
            args.db,
            args.inferred or None,
            runs=args.runs,
            assessors=[args.judgments] if args.judgments else None,
            policy=parse_policy(args.policy),
            level=args.level,
        )
    except UserError as exc:
        raise CommandError(str(exc)) from exc
    sys.stdout.write(shown(format_inferred(found, wanted, per_topic=args.per_topic), keep="\t\n"))
    return 0


def format_inferred(found, measures, *, per_topic: bool = False) -> str:
    """`evaluate --db --inferred`: a comment line saying what the sample holds, a header,
    then per run and measure its mean over the topics it has (topic `all`), after each
    topic's value with -q (trec_eval's %.4f)."""
    import numpy as np

    lines = [
        f"# sample pool {found.pool}: {found.judged} of {found.sampled} sampled documents "
        f"judged, drawn from {found.population} over {len(found.qids)} topics",
        "runid\tmeasure\ttopic\tvalue",
    ]
    summary = found.summary()
    for r, runid in enumerate(found.runids):
        for name in measures:
            m = found.measures.index(name)
            if per_topic:
                for t, qid in enumerate(found.qids):
                    if not np.isnan(found.values[m, r, t]):
                        lines.append(f"{runid}\t{name}\t{qid}\t{found.values[m, r, t]:.4f}")
            lines.append(f"{runid}\t{name}\tall\t{summary[m, r]:.4f}")
    return "\n".join(lines) + "\n"


def _bounds(args: argparse.Namespace, results):
    from judgeapp.errors import UserError
    from judgeapp.services.bounds import project_bounds
    from judgeapp.services.policy import parse_policy

    try:
        return project_bounds(
            args.db,
            results.measures,
            evaluation_options(args),
            runs=args.runs,
            assessors=[args.judgments] if args.judgments else None,
            policy=parse_policy(args.policy),
        )
    except UserError as exc:
        raise CommandError(str(exc)) from exc


def format_bounds(results, bounds) -> str:
    """`evaluate --db --bounds`: a comment line saying what the bounds assume, a header,
    then one line per run and measure (runs in order, measures in output order): runid,
    measure as trec_eval names it, today's value, low, high (trec_eval's %.4f, counts as
    integers) and `yes` where the final value is sure to lie within low-high (`no`:
    R-precision, bpref; see judgeapp.services.bounds)."""
    lines = [
        f"# {bounds.unjudged} pooled documents unjudged; low, high: each run's least and "
        f"greatest value once they are judged (relevant at grade {bounds.grade})",
        "runid\tmeasure\ttoday\tlow\thigh\tproven",
    ]
    summary = results.summary()
    texts = [str(m) for m in bounds.measures]
    for r, run in enumerate(results.run_names):
        b = bounds.run_names.index(run)
        for i, m in enumerate(results.measures):
            if m.aggregate == "text":
                continue
            j = texts.index(str(m))
            fmt = "{:.0f}" if m.is_count else "{:.4f}"
            values = (summary[i, r], bounds.low_mean[j, b], bounds.high_mean[j, b])
            proven = "yes" if bounds.proven(m) else "no"
            cells = [results.runids[r], m.name, *(fmt.format(v) for v in values), proven]
            lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"
