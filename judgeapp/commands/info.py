"""`info DB`: what a project holds, per topic, and the gaps between its parts."""

from __future__ import annotations

import argparse

from judgeapp.commands import open_store
from judgeapp.outputs import shown

ORDER = 40


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="counts per topic and gaps (topics, runs, judgments, docs)")
    p.add_argument("db", metavar="DB")
    p.add_argument("--topics", action="store_true", help="also print one line per topic")
    p.set_defaults(handler=run)


def _list(items: list[str], limit: int = 12) -> str:
    listed = " ".join(shown(i) for i in items[:limit])
    return listed + (f" ... ({len(items)} in all)" if len(items) > limit else "")


def run(args: argparse.Namespace) -> int:
    from judgeapp.services.overview import project_info

    store = open_store(args.db)
    try:
        info = project_info(store)
        runs = store.runs()
        assessors = store.assessors()
        pools = store.pools()
        # what the schema upgrade of revision 0006 set right or found and kept
        checks = store.get_setting("checks.0006")
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
    if args.topics:
        print(f"{'topic':<10} {'runs':>5} {'retrieved':>10} {'judged':>7} {'relevant':>8}  title")
        for t in info.per_topic:
            title = shown(t.title) if t.title is not None else "(not in project)"
            print(
                f"{shown(t.qid):<10} {t.runs:>5} {t.retrieved:>10} {t.judged:>7} "
                f"{t.relevant:>8}  {title}"
            )
    return 0
