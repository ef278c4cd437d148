"""Choosing topics by a spec people type: ids and numeric ranges `A-B`, separated by spaces
or commas (`601-625 630,641`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from judgeapp.errors import UserError


class TopicSpecError(UserError, ValueError):
    """A spec naming no topic that is there."""


def select_topics(spec: Sequence[str] | str | None, available: Iterable[str]) -> list[str] | None:
    """Topic ids from `spec` among `available`, in byte order; None when there is no spec
    (all topics). A token that matches nothing is an error."""
    if isinstance(spec, str):
        spec = [spec]
    if not spec or not any(s.strip() for s in spec):
        return None
    pool = sorted(set(available), key=str.encode)
    chosen: set[str] = set()
    for token in (t for item in spec for t in re.split(r"[,\s]+", item) if t):
        match = re.fullmatch(r"(\d+)-(\d+)", token)
        if match:
            lo, hi = int(match[1]), int(match[2])
            hits = {q for q in pool if q.isdigit() and lo <= int(q) <= hi}
        else:
            hits = {token} if token in pool else set()
        if not hits:
            raise TopicSpecError(f"no topic matches {token!r}")
        chosen |= hits
    return sorted(chosen, key=str.encode)
