"""Pooling, judging orders, judging simulation and recall estimation (numpy only: no SQL,
no Qt). The store keeps pools (`judgeapp.store.pools`); this package computes them."""

from judgeapp.pooling import (
    suggested,  # registers the order judged by automatic scores
    text_order,  # registers the order that learns from text (cal)
)
from judgeapp.pooling.order import DEFAULT_ORDER, ORDERS, JudgingOrder, make_order
from judgeapp.pooling.pools import (
    STRATEGIES,
    PoolingError,
    PoolTopic,
    build_pool,
    depth_pool,
    extend_topic,
    pool_topic,
    take_pool,
    topic_seed,
)

__all__ = [
    "DEFAULT_ORDER",
    "ORDERS",
    "STRATEGIES",
    "JudgingOrder",
    "PoolTopic",
    "PoolingError",
    "build_pool",
    "depth_pool",
    "extend_topic",
    "make_order",
    "pool_topic",
    "suggested",
    "take_pool",
    "text_order",
    "topic_seed",
]
