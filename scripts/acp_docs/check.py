"""Every check of an RFD pull request, the independent ones side by side, one summary."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from acp_docs import build, examples, payloads, prettier, rfds, spell
from acp_docs.errors import UsageError
from acp_docs.findings import Finding
from acp_docs.repo import Repo
from acp_docs.report import CheckResult
from acp_docs.schema import fragments
from acp_docs.validate import SchemaSet


def check_schema(repo: Repo) -> list[Finding]:
    """Fragments that differ from what the source generates."""
    return [d.finding(repo.root) for d in fragments.check(repo.schema_dir, repo.root)]


def check_examples(repo: Repo) -> list[Finding]:
    """Every declared JSON block of rfds/ and docs/, and every conformance fixture."""
    schemas = SchemaSet.from_repo(repo.root)
    files = examples.markdown_files(repo.root, [repo.rfds_dir, repo.docs_dir])
    report = examples.check_files(repo.root, files, schemas)
    return report.findings + payloads.check_fixtures(repo.root, schemas)


CHECKS: dict[str, Callable[[Repo], list[Finding]]] = {
    "schema": check_schema,
    "examples": check_examples,
    "rfds": rfds.lint,
    "spell": spell.check,
    "format": prettier.check,
    "build": build.check,
}
"""Every check by name, in the order the summary lists them."""


def _run_one(name: str, repo: Repo) -> CheckResult:
    start = time.perf_counter()
    try:
        found = CHECKS[name](repo)
    except UsageError as exc:
        return CheckResult(name, (), time.perf_counter() - start, str(exc))
    return CheckResult(name, tuple(sorted(found)), time.perf_counter() - start)


def run(repo: Repo, names: Iterable[str] | None = None) -> list[CheckResult]:
    """Run the named checks (default: all) side by side; results in CHECKS order."""
    chosen = [n for n in CHECKS if names is None or n in set(names)]
    slow_first = sorted(chosen, key=lambda n: n != "build")
    with ThreadPoolExecutor(max_workers=max(1, len(chosen))) as pool:
        futures = {name: pool.submit(_run_one, name, repo) for name in slow_first}
        return [futures[name].result() for name in chosen]


def unique_findings(results: Iterable[CheckResult]) -> list[Finding]:
    """All findings, once each even when two checks report the same problem."""
    seen: dict[tuple[str, int, int, str], Finding] = {}
    for result in results:
        for finding in result.findings:
            seen.setdefault((finding.path, finding.line, finding.col, finding.message), finding)
    return sorted(seen.values())
