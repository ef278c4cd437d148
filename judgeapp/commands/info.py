"""`info DB`: what a project holds, per topic, and the gaps between its parts."""

from __future__ import annotations

import argparse

from judgeapp.commands import CommandError, open_store
from judgeapp.outputs import shown

ORDER = 40


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="counts per topic and gaps (topics, runs, judgments, docs)")
    p.add_argument("db", metavar="DB")
    p.add_argument("--topics", action="store_true", help="also print one line per topic")
    p.add_argument(
        "--estimates",
        nargs="?",
        const="",
        metavar="POOL",
        help="also print, per topic of POOL (default: the newest pool), the estimate of the "
        "relevant documents it still holds, whether the estimator vouches for its interval, "
        "and the stopping advice (every assessor's judgments, the newest counting)",
    )
    p.add_argument(
        "--stop-at",
        type=float,
        default=0.8,
        metavar="R",
        help="target recall of the stopping advice (default 0.8)",
    )
    p.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        metavar="C",
        help="confidence of the stopping advice and of the intervals (default 0.95)",
    )
    p.set_defaults(handler=run)


def _list(items: list[str], limit: int = 12) -> str:
    listed = " ".join(shown(i) for i in items[:limit])
    return listed + (f" ... ({len(items)} in all)" if len(items) > limit else "")


def run(args: argparse.Namespace) -> int:
    from judgeapp.services.overview import project_info

    if not 0.0 < args.stop_at <= 1.0:
        raise CommandError(f"--stop-at is a recall in (0, 1], not {args.stop_at}")
    if not 0.0 < args.confidence < 1.0:
        raise CommandError(f"--confidence must lie between 0 and 1, not {args.confidence}")
    store = open_store(args.db)
    try:
        info = project_info(store)
        runs = store.runs.all()
        assessors = store.team.assessors()
        pools = store.pools.all()
        # what the schema upgrade of revision 0006 set right or found and kept
        checks = store.settings.get("checks.0006")
        estimates = _estimates(store, args, pools) if args.estimates is not None else None
    finally:
        store.close()
    print(f"project      {shown(args.db)}")
    print(f"topics       {info.topics}")
    print(f"documents    {info.documents} with text, {info.docnos} docnos known")
    print(f"runs         {info.runs} ({info.ranked_entries} ranked entries)")
    print(f"judgments    {info.judgments} by {info.assessors} assessors/sources")
    print(f"pools        {info.pools}")
    for r in runs:
        print(
            f"  run {shown(r.name):<24} {r.n_topics:>5} topics {r.n_entries:>9} entries  "
            f"{shown(str(r.source_path))}"
        )
    for a in assessors:
        print(f"  {a.kind:<6} {shown(a.name)}")
    for p in pools:
        size = ", ".join(
            f"{k} {v}" for k, v in p.params.items() if k in ("depth", "budget", "p", "k")
        )
        print(
            f"  pool {shown(p.name):<23} {p.strategy} ({size}), {len(p.runs)} runs, "
            f"{p.n_topics} topics, {p.n_docs} documents, {p.judging_order} order"
        )
    gaps = [
        ("topics in runs but not in the project", info.run_topics_missing),
        ("topics judged but not in the project", info.judged_topics_missing),
        ("topics without runs", info.topics_without_runs),
        ("topics without judgments", info.topics_without_judgments),
    ]
    print("gaps:")
    any_gap = False
    for label, items in gaps:
        if items:
            any_gap = True
            print(f"  {len(items)} {label}: {_list(items)}")
    if info.retrieved_docs_without_text:
        any_gap = True
        print(f"  {info.retrieved_docs_without_text} retrieved documents have no text")
    if info.judged_docs_without_text:
        any_gap = True
        print(f"  {info.judged_docs_without_text} judged documents have no text")
    if not any_gap:
        print("  none")
    if isinstance(checks, dict) and (checks.get("repaired") or checks.get("kept")):
        print("rows the schema upgrade of revision 0006 looked at:")
        for what, n in (checks.get("repaired") or {}).items():
            print(f"  set right: {n} {what}")
        for what, n in (checks.get("kept") or {}).items():
            print(f"  kept as they were, breaking the project's rules: {n} {what}")
    if estimates is not None:
        print(estimates, end="")
    if args.topics:
        print(f"{'topic':<10} {'runs':>5} {'retrieved':>10} {'judged':>7} {'relevant':>8}  title")
        for t in info.per_topic:
            title = shown(t.title) if t.title is not None else "(not in project)"
            print(
                f"{shown(t.qid):<10} {t.runs:>5} {t.retrieved:>10} {t.judged:>7} "
                f"{t.relevant:>8}  {title}"
            )
    return 0


def _estimates(store, args: argparse.Namespace, pools) -> str:
    """Per topic of the pool: judged, found, the estimate of the relevant left with its
    interval, and the stopping advice; the estimator's notes after the table."""
    from judgeapp.services.pools import PoolService

    if not pools:
        raise CommandError("the project has no pool to estimate")
    names = [p.name for p in pools]
    name = args.estimates or names[-1]
    if name not in names:
        raise CommandError(f"no pool named {name!r} (the project has: {', '.join(names)})")
    service = PoolService(store)
    level, stop = args.confidence, (args.stop_at, args.confidence)
    lines = [
        f"estimates    pool {shown(name)}: relevant left, {level:.0%} interval; stop advice for "
        f"{args.stop_at:.0%} recall at {args.confidence:.0%} confidence",
        f"  {'topic':<10} {'pooled':>7} {'judged':>7} {'found':>6} {'left':>6} "
        f"{'interval':>11}  advice",
    ]
    notes: dict[str, list[str]] = {}
    for p in service.pool_progress(name):
        estimate = service.estimate_relevant(name, p.qid, level=level, stop=stop)
        if estimate is None:
            lines.append(
                f"  {shown(p.qid):<10} {p.size:>7} {p.judged:>7} {p.relevant:>6} {'':>6} {'':>11}  "
                "no estimate before the first judgment"
                + ("" if p.judged == 0 else " (or the sample's strata)")
            )
            continue
        low, high = estimate.missing_interval
        mark = "" if estimate.calibrated else "*"
        advice = (
            estimate.advice.text()
            if estimate.advice is not None
            else "no stopping advice for a sample pool"
        )
        lines.append(
            f"  {shown(p.qid):<10} {p.size:>7} {estimate.judged:>7} {estimate.found:>6} "
            f"{estimate.missing:>6.0f} {f'{low:.0f}-{high:.0f}{mark}':>11}  {advice}"
        )
        if estimate.note:
            notes.setdefault(estimate.note, []).append(p.qid)
    for note, qids in notes.items():
        marked = "* " if note.startswith("uncalibrated") else ""
        listed = " ".join(shown(q) for q in qids[:12])
        listed += f" ... ({len(qids)} in all)" if len(qids) > 12 else ""
        lines.append(f"  {marked}{note}: {listed}")
    return "\n".join(lines) + "\n"
