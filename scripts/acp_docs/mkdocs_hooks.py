"""MkDocs hooks: RFDs from rfds/ into the site, generated sections, findings as warnings.

- RFD sources in `rfds/` are served as `rfds/<name>.md` with no copy under docs/;
  `watch:` in mkdocs.yml makes `mkdocs serve` reload when one changes.
- `<!-- acp-docs:... -->` markers are replaced with generated Markdown: the RFD
  index, the schema reference of each version, the conformance fixture list.
- The fragments, the merged schemas and the fixtures are published for download.
- Example problems, RFD lint findings and a drifted fragment are build warnings,
  so `mkdocs build --strict` fails on them.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from acp_docs import examples, rfds, site
from acp_docs.errors import UsageError
from acp_docs.findings import Finding
from acp_docs.payloads import fixture_files
from acp_docs.repo import Repo
from acp_docs.report import as_text
from acp_docs.schema import fragments, reference
from acp_docs.schema.source import PROTOCOLS
from acp_docs.validate import SchemaSet

log = logging.getLogger("mkdocs.plugins.acp_docs")

_MARKER = re.compile(r"<!--\s*acp-docs:(?P<name>[a-z-]+)(?P<args>[^>]*?)\s*-->")


class _State:
    repo: Repo
    schemas: SchemaSet | None = None
    rfds: list[rfds.Rfd]
    page_findings: dict[str, list[Finding]]


_state = _State()


def _warn(finding: Finding) -> None:
    log.warning(as_text(finding))


def on_config(config: Any) -> Any:
    """Load the repository once per build: schemas, RFDs, lint and drift findings."""
    root = Path(config.config_file_path).resolve().parent
    _state.repo = Repo.load(root)
    _state.page_findings = {}
    try:
        _state.schemas = SchemaSet.from_repo(root)
    except UsageError as exc:
        _state.schemas = None
        log.warning(f"acp-docs: cannot build the merged schemas: {exc}")
    for drift in fragments.check(_state.repo.schema_dir, root):
        _warn(drift.finding(root))
    _state.rfds = rfds.load_all(_state.repo)
    for finding in rfds.lint(_state.repo, _state.rfds):
        _state.page_findings.setdefault(finding.path, []).append(finding)
    return config


def on_files(files: Files, config: Any) -> Files:
    """Add the RFD sources and the published schema files to the build."""
    repo = _state.repo
    use_urls = config.use_directory_urls
    site_dir = config.site_dir
    for path in sorted(repo.rfds_dir.glob("*.md")):
        src_uri = f"rfds/{path.name}"
        if files.get_file_from_path(src_uri) is not None:
            log.warning(f"docs/{src_uri}: shadows rfds/{path.name}; keep RFDs in rfds/ only")
            continue
        files.append(File(src_uri, str(repo.root), site_dir, use_urls))
    if _state.schemas is not None:
        for download in site.merged_downloads(_state.schemas):
            files.append(File.generated(config, download.path, content=download.content))
    published = [fragments.fragment_path(repo.schema_dir, p) for p in PROTOCOLS]
    for protocol in PROTOCOLS:
        for paths in fixture_files(repo.root, protocol).values():
            published.extend(paths)
    for path in published:
        rel = path.relative_to(repo.root).as_posix()
        files.append(File.generated(config, rel, abs_src_path=str(path)))
    return files


def _expand(match: re.Match[str], page: Any) -> str:
    name, args = match["name"], match["args"].split()
    src = page.file.src_uri
    repo = _state.repo
    if name == "rfd-index":
        status = next((a.split("=", 1)[1] for a in args if a.startswith("status=")), None)
        return site.rfd_table(_state.rfds, src, status)
    if name == "schema-reference" and args:
        return reference.render(fragments.load(repo.schema_dir, args[0], repo.root), args[0])
    if name == "fixtures":
        return site.fixture_list(repo.root, src)
    if name == "composer-demo":
        return site.composer_demo(repo.root)
    log.warning(f"{src}: unknown marker acp-docs:{name}")
    return match.group(0)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Replace the markers, and report the page's example and lint findings as warnings."""
    source = Path(page.file.abs_src_path) if page.file.abs_src_path else None
    if source is not None and source.is_file():
        shown = _state.repo.relative(source)
        for finding in _state.page_findings.get(shown, []):
            _warn(finding)
        if _state.schemas is not None:
            report = examples.check_files(_state.repo.root, [source], _state.schemas)
            for finding in report.findings:
                _warn(finding)
    return _MARKER.sub(lambda m: _expand(m, page), markdown)


def on_post_build(config: Any) -> None:
    """Report findings about files that are not pages (mkdocs.yml, the nav)."""
    pages = {f"rfds/{r.path.name}" for r in _state.rfds}
    for path, findings in _state.page_findings.items():
        if path not in pages:
            for finding in findings:
                _warn(finding)


def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    """Point the edit link of an RFD page at its source in rfds/."""
    if page.file.src_uri.startswith("rfds/") and page.file.src_dir == str(_state.repo.root):
        repo_url = (config.repo_url or "").rstrip("/")
        if repo_url:
            page.edit_url = f"{repo_url}/edit/main/{page.file.src_uri}"
    return context
