"""Work shared out among forked workers gives what one process gives, in order."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from acp_docs.core import forkmap

from conftest import ROOT


def _python(code: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter: pytest's own threads keep this process from forking."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_short_list_or_one_worker_is_done_here() -> None:
    here = os.getpid()
    assert forkmap.ordered_map(lambda i: (i, os.getpid()), 3) == [(0, here), (1, here), (2, here)]
    many = forkmap.ordered_map(lambda i: os.getpid(), forkmap.MIN_ITEMS + 1, workers=1)
    assert set(many) == {here}


def test_workers_keep_the_order_and_a_dead_worker_means_doing_it_here() -> None:
    done = _python(
        """
        import os
        from acp_docs.core import forkmap
        parent = os.getpid()
        results = forkmap.ordered_map(lambda i: (i * i, os.getpid()), 200, workers=2)
        assert [r[0] for r in results] == [i * i for i in range(200)], results
        assert parent not in {r[1] for r in results}, "nothing ran in a worker"

        def dies(i):
            if os.getpid() != parent:
                os._exit(3)
            return i
        assert forkmap.ordered_map(dies, 100, workers=2) == list(range(100))
        print("ok")
        """
    )
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


def test_examples_shared_out_report_what_one_process_reports(tmp_path: Path) -> None:
    chunk = '{"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}'
    bad = '{"sessionUpdate": "agent_message_chunk"}'
    for n in range(forkmap.MIN_ITEMS + 20):
        body = f'# Page {n}\n\n```json title="SessionUpdate (v1)"\n{chunk}\n```\n'
        if n % 3 == 0:
            body += f'\n```json title="SessionUpdate (v1)"\n{bad}\n```\n'
        (tmp_path / f"page-{n:03}.md").write_bytes(body.encode() + (b"\xff" if n == 7 else b""))
    done = _python(
        f"""
        import os, pathlib
        from acp_docs.config.repo import Repo
        from acp_docs.markdown.blocks import renderer
        from acp_docs.validation.examples import check_files
        from acp_docs.validation.schemaset import SchemaSet
        repo = Repo.load(pathlib.Path({str(ROOT)!r}))
        files = sorted(pathlib.Path({str(tmp_path)!r}).glob("*.md"))
        schemas = SchemaSet.from_repo(repo.root)
        render = renderer(repo.config, plain_code=True)
        reports = []
        for jobs in ("1", "2"):
            os.environ["ACP_DOCS_JOBS"] = jobs
            report = check_files(repo.root, files, schemas, render)
            reports.append((report.findings, dict(report.checked), report.blocks))
        assert reports[0] == reports[1], reports
        findings, checked, blocks = reports[0]
        print(len(findings), checked, blocks)
        """
    )
    assert done.returncode == 0, done.stderr
    # a finding for each page with a bad block, and one for page 7, which is not UTF-8
    assert done.stdout.split(" ", 1)[0] == str(len(range(0, forkmap.MIN_ITEMS + 20, 3)) + 1)
