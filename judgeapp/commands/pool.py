"""`pool DB --depth K | --budget N [--strategy S] ...`: build a pool, or grow one (--add-to)."""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterable, Sequence

from judgeapp.commands import CommandError, open_store, plural, progress_bar

ORDER = 45
STRATEGY_CHOICES = ("depth", "take", "rbp", "rrf", "sample")
ORDER_CHOICES = (
    "blind",
    "rank",
    "mtf",
    "hedge",
    "maxmean",
    "maxmean-ns",
    "maxmean-shared",
    "ridge-fusion",
    "cal",
    "suggested",
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pool",
        help="pool runs for judging (depth-k or Take@N), or grow a pool",
        description="Pool the project's runs per topic. `--depth K` alone is TREC depth-K "
        "pooling; `--budget N` takes N documents per topic, by best rank (take), summed "
        "RBP weight (rbp, --p) or reciprocal-rank fusion (rrf, --k); with a budget, --depth "
        "limits the candidates. `--strategy sample --budget N` draws a stratified random "
        "sample of N documents per topic from the runs' top --depth (default 1000) beside the "
        "documents judged already, for estimating how many relevant ones are missing. "
        "`--add-to POOL` grows an existing pool instead (more runs, "
        "more depth, or --budget more documents per topic); judgments are never lost.",
    )
    p.add_argument("db", metavar="DB", help="project: file path or SQLAlchemy URL")
    p.add_argument("--runs", nargs="+", metavar="NAME", help="runs to pool (default: all)")
    p.add_argument(
        "--depth", type=int, metavar="K", help="pool depth (with a budget: candidate depth)"
    )
    p.add_argument(
        "--budget", type=int, metavar="N", help="documents per topic (Take@N strategies)"
    )
    p.add_argument(
        "--strategy",
        choices=STRATEGY_CHOICES,
        help="default: depth, or take when --budget is given",
    )
    p.add_argument("--p", type=float, help="RBP persistence for --strategy rbp (default 0.8)")
    p.add_argument("--k", type=float, help="RRF constant for --strategy rrf (default 60)")
    p.add_argument(
        "--name", metavar="POOL", help="pool name (default: STRATEGY-DEPTH or STRATEGY-BUDGET)"
    )
    p.add_argument(
        "--order",
        choices=ORDER_CHOICES,
        default="blind",
        help="judging order (default: blind, a seeded shuffle showing no runs or ranks)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the blind shuffle")
    add_topics_argument(p, "all")
    p.add_argument("--add-to", metavar="POOL", help="grow this pool instead of making one")
    p.set_defaults(handler=run)


def add_topics_argument(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument(
        "--topics",
        nargs="+",
        metavar="TOPIC",
        help=f"topics: ids and ranges such as 601-650 (default: {default})",
    )


def select_topics(spec: Sequence[str] | None, available: Iterable[str]) -> list[str] | None:
    """Topic ids from `spec` (see judgeapp.services.selection), a CommandError if a token
    matches nothing."""
    from judgeapp.services.selection import TopicSpecError
    from judgeapp.services.selection import select_topics as select

    try:
        return select(spec, available)
    except TopicSpecError as exc:
        raise CommandError(str(exc)) from exc


def pool_params(args: argparse.Namespace, strategy: str) -> dict:
    params: dict = {}
    for key in ("depth", "budget", "p", "k"):
        value = getattr(args, key)
        if value is not None:
            params[key] = value
    if args.p is not None and strategy != "rbp":
        raise CommandError("--p is the persistence of --strategy rbp")
    if args.k is not None and strategy != "rrf":
        raise CommandError("--k is the constant of --strategy rrf")
    return params


def run(args: argparse.Namespace) -> int:
    from judgeapp.services.pools import PoolService
    from judgeapp.store import StoreError

    store = open_store(args.db, owner="pool")
    pools = PoolService(store)
    try:
        with progress_bar("pool", unit="topic") as progress:
            if args.add_to:
                before = store.pools.get(args.add_to)
                params = pool_params(args, before.strategy)
                if args.strategy and args.strategy != before.strategy:
                    raise CommandError(
                        f"pool {before.name!r} is a {before.strategy} pool; "
                        f"it cannot grow by {args.strategy}"
                    )
                if args.topics:
                    raise CommandError("a pool keeps its topics; --topics cannot change them")
                info = pools.extend_pool(
                    args.add_to, runs=args.runs or (), params=params, progress=progress
                )
            else:
                strategy = args.strategy or ("take" if args.budget is not None else "depth")
                if args.depth is None and args.budget is None:
                    raise CommandError("give --depth K or --budget N")
                params = pool_params(args, strategy)
                qids = None
                if args.topics:
                    lists = store.runs.ranked_lists(runs=args.runs)
                    qids = select_topics(args.topics, (q for t in lists.runs.values() for q in t))
                name = args.name or default_name(
                    strategy, params, {p.name for p in store.pools.all()}
                )
                before = None
                info = pools.create_pool(
                    name,
                    runs=args.runs,
                    strategy=strategy,
                    params=params,
                    judging_order=args.order,
                    seed=args.seed,
                    qids=qids,
                    progress=progress,
                )
        sizes = list(store.pools.sizes(info.name).values())
        missing, pooled = pools.pooled_without_text(info.name)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    if before is None:
        print(
            f"pool {info.name}: {describe_strategy(info.strategy, info.params)} of "
            f"{plural(len(info.runs), 'run')}, judged in {info.judging_order} order"
            + (f" (seed {info.seed})" if info.judging_order == "blind" else "")
        )
    else:
        added = info.n_docs - before.n_docs
        new_runs = [r for r in info.runs if r not in before.runs]
        print(
            f"pool {info.name} grew by {plural(added, 'document')}"
            + (f" with {plural(len(new_runs), 'run')} {', '.join(new_runs)}" if new_runs else "")
            + f": now {describe_strategy(info.strategy, info.params)}"
        )
    if sizes:
        spread = (
            f"{min(sizes)} per topic"
            if min(sizes) == max(sizes)
            else f"per topic {min(sizes)} to {max(sizes)}, median {statistics.median(sizes):g}"
        )
        print(f"{plural(info.n_topics, 'topic')}, {plural(info.n_docs, 'document')} ({spread})")
    else:
        print("no topic has a pooled document: the runs retrieve nothing for the topics asked")
    print(f"runs: {', '.join(info.runs)}")
    if missing:
        print(
            f"warning: {missing:,} of {plural(pooled, 'pooled document')} have no text in "
            "the project: assessors would judge them by their docno alone (import the "
            f"collection first: python main.py import docs {args.db} FILE...)",
            file=sys.stderr,
        )
    return 0


def describe_strategy(strategy: str, params: dict) -> str:
    """'depth-100 pooling', 'Take@200 by RBP weight (p=0.8) from depth 1000', ..."""
    depth, budget = params.get("depth"), params.get("budget")
    from_depth = f" from depth {depth}" if depth is not None else ""
    if strategy == "depth":
        return f"depth-{depth} pooling"
    if strategy == "take":
        return f"Take@{budget} by best rank{from_depth}"
    if strategy == "rbp":
        return f"Take@{budget} by RBP weight (p={params.get('p', 0.8):g}){from_depth}"
    if strategy == "rrf":
        return f"Take@{budget} by reciprocal-rank fusion (k={params.get('k', 60):g}){from_depth}"
    if strategy == "sample":
        return f"a stratified sample of {budget} per topic{from_depth}"
    return strategy


def default_name(strategy: str, params: dict, taken: set[str]) -> str:
    size = params.get("depth") if strategy == "depth" else params.get("budget")
    base = f"{strategy}-{size}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name
