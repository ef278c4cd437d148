"""`pool DB --depth K | --budget N [--strategy S] ...`: build a pool, or grow one (--add-to)."""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections.abc import Iterable, Sequence

from judgeapp.commands import CommandError, open_store, progress_bar

ORDER = 45
STRATEGY_CHOICES = ("depth", "take", "rbp", "rrf", "sample")
ORDER_CHOICES = ("blind", "rank", "mtf", "hedge", "maxmean", "maxmean-ns", "suggested")


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
    p.add_argument("--depth", type=int, help="pool depth (with a budget: candidate depth)")
    p.add_argument("--budget", type=int, help="documents per topic (Take@N strategies)")
    p.add_argument(
        "--strategy",
        choices=STRATEGY_CHOICES,
        help="default: depth, or take when --budget is given",
    )
    p.add_argument("--p", type=float, help="RBP persistence for --strategy rbp (default 0.8)")
    p.add_argument("--k", type=float, help="RRF constant for --strategy rrf (default 60)")
    p.add_argument("--name", help="pool name (default: STRATEGY-DEPTH or STRATEGY-BUDGET)")
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
    """Topic ids from `spec` (ids and numeric ranges `A-B`, separated by spaces or commas)
    among `available`, in byte order; None when there is no spec (all topics)."""
    if not spec:
        return None
    available = sorted(set(available), key=str.encode)
    chosen: set[str] = set()
    for token in (t for item in spec for t in re.split(r"[,\s]+", item) if t):
        match = re.fullmatch(r"(\d+)-(\d+)", token)
        if match:
            lo, hi = int(match[1]), int(match[2])
            hits = {q for q in available if q.isdigit() and lo <= int(q) <= hi}
        else:
            hits = {token} if token in available else set()
        if not hits:
            raise CommandError(f"no topic matches {token!r}")
        chosen |= hits
    return sorted(chosen, key=str.encode)


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

    store = open_store(args.db)
    pools = PoolService(store)
    try:
        with progress_bar("pool", unit="topic") as progress:
            if args.add_to:
                before = store.pool(args.add_to)
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
                    lists = store.load_ranked_lists(runs=args.runs)
                    qids = select_topics(args.topics, (q for t in lists.runs.values() for q in t))
                name = args.name or default_name(strategy, params, {p.name for p in store.pools()})
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
        sizes = list(store.pool_sizes(info.name).values())
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    shown = {k: v for k, v in info.params.items() if k not in ("extensions", "topics")}
    if before is None:
        print(f"pool {info.name}: {info.strategy} {shown}, judging order {info.judging_order}")
    else:
        added = info.n_docs - before.n_docs
        new_runs = [r for r in info.runs if r not in before.runs]
        print(
            f"pool {info.name} grew by {added} documents"
            + (f" with runs {', '.join(new_runs)}" if new_runs else "")
        )
    print(f"runs: {len(info.runs)} ({', '.join(info.runs)})")
    if sizes:
        print(
            f"topics: {info.n_topics}, documents: {info.n_docs} (per topic min {min(sizes)}, "
            f"median {statistics.median(sizes):g}, max {max(sizes)})"
        )
    else:
        print("topics: 0, documents: 0", file=sys.stderr)
    return 0


def default_name(strategy: str, params: dict, taken: set[str]) -> str:
    size = params.get("depth") if strategy == "depth" else params.get("budget")
    base = f"{strategy}-{size}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name
