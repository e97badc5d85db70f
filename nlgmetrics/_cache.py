"""A least-recently-used cache bounded by bytes, not by entry count: one place for the reference caches whose entries
range from a few bytes to hundreds of MB (a whole encoded reference corpus), so a count limit bounds nothing.

``byte_lru_cache(budget)`` decorates a function of hashable arguments like ``functools.lru_cache``; each result is
measured once (:func:`deep_size`) and the least recently used results are dropped while the total is over
``budget`` bytes. A result larger than the budget is returned and not kept.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections import OrderedDict, namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

#: the byte budget of each cache of whole encoded reference corpora (chrF, BLEU, NIST): one 10**5-segment corpus fits
#: (chrF's: about 530 MB), four of them no longer stay in memory after the calls (they took 2.2 GB).
REFERENCE_CORPUS_BYTES = 2**30

CacheInfo = namedtuple("CacheInfo", ["hits", "misses", "maxsize", "currsize", "bytes"])


def deep_size(obj: Any) -> int:
    """Approximate bytes held by ``obj``: numpy buffers, strings, containers, dataclass and slot fields, each object
    counted once."""
    seen: set[int] = set()
    stack = [obj]
    total = 0
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            total += item.nbytes + 112
            continue
        total += sys.getsizeof(item)
        if isinstance(item, (str, bytes, int, float, bool)):
            continue
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        else:
            stack.extend(getattr(item, "__dict__", {}).values())
            for name in getattr(type(item), "__slots__", ()):
                stack.append(getattr(item, name, None))
    return total


def byte_lru_cache(budget_bytes: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An LRU cache of a function's results holding at most ``budget_bytes`` (see the module docstring)."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        entries: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        lock = threading.Lock()
        stats = {"hits": 0, "misses": 0, "bytes": 0}

        @functools.wraps(function)
        def cached(*args: Any, **kwargs: Any) -> Any:
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            with lock:
                if key in entries:
                    entries.move_to_end(key)
                    stats["hits"] += 1
                    return entries[key][0]
                stats["misses"] += 1
            value = function(*args, **kwargs)
            size = deep_size(value)
            if size <= budget_bytes:
                with lock:
                    if key not in entries:
                        entries[key] = (value, size)
                        stats["bytes"] += size
                    while stats["bytes"] > budget_bytes:
                        _, (_, dropped) = entries.popitem(last=False)
                        stats["bytes"] -= dropped
            return value

        def cache_clear() -> None:
            with lock:
                entries.clear()
                stats.update(hits=0, misses=0, bytes=0)

        def cache_info() -> CacheInfo:
            with lock:
                return CacheInfo(stats["hits"], stats["misses"], budget_bytes, len(entries), stats["bytes"])

        cached.cache_clear = cache_clear  # type: ignore[attr-defined]
        cached.cache_info = cache_info  # type: ignore[attr-defined]
        return cached

    return decorate
