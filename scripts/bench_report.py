"""The one line format of every benchmark figure: what, how much, its target, ok or OVER.

    check warm (median of 5)          1.43 s   target ≤ 2 s       ok

A figure without a target says so. Benchmarks report; tests assert: a figure
over its target prints OVER, and the benchmark still exits 0.
"""

from __future__ import annotations


def figure(label: str, shown: str, target: str = "", met: bool | None = None) -> str:
    """One figure's line; `target` and `met` are left out for a figure without a target."""
    if not target:
        return f"{label:<36} {shown:>12}   (no target)"
    verdict = "ok" if met else "OVER"
    return f"{label:<36} {shown:>12}   target {target:<10} {verdict}"
