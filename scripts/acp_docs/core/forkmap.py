"""Map a function over many items in forked worker processes, results in order, when it pays.

Checking hundreds of Markdown files is CPU work that splits cleanly by file.
On a machine with more than one core, a long list is shared out among forked
workers (they inherit everything already loaded, such as compiled schemas);
a short list, a single core, or a process that runs other threads (forking it
could copy a lock another thread holds) is done in this process. When a
worker dies (killed, out of memory), the whole list is done again in this
process, so the outcome is the one a single process would have had.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

T = TypeVar("T")

MIN_ITEMS = 40
"""Fewer items than this are not worth starting workers for."""
MAX_JOBS = 4

_work: Callable[[int], object] | None = None


def _call(index: int) -> object:
    assert _work is not None
    return _work(index)


def jobs() -> int:
    """How many workers to use: `ACP_DOCS_JOBS` if set, else the cores this process may use."""
    asked = os.environ.get("ACP_DOCS_JOBS", "")
    if asked.isdigit() and int(asked) > 0:
        return min(MAX_JOBS, int(asked))
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_JOBS, cores))


def ordered_map(work: Callable[[int], T], count: int, workers: int | None = None) -> list[T]:
    """`[work(0), ..., work(count - 1)]`, computed by forked workers when that pays."""
    workers = jobs() if workers is None else workers
    if (
        workers < 2
        or count < MIN_ITEMS
        or threading.active_count() > 1
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        return [work(i) for i in range(count)]
    global _work
    _work = work
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            chunk = max(1, count // (workers * 4))
            return list(pool.map(_call, range(count), chunksize=chunk))  # type: ignore[arg-type]
    except (BrokenProcessPool, OSError):
        return [work(i) for i in range(count)]
    finally:
        _work = None
