"""Pool storage: the part of the `Store` facade that reads and writes pools.

`Store` inherits these methods; they follow the same rules (one short transaction per
method, plain records or numpy arrays out)."""

from __future__ import annotations


class PoolStoreMixin:
    """Pool methods of `Store` (see judgeapp.store.store.Store)."""
