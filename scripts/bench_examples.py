"""Benchmark `acp-docs examples` on a synthetic corpus; prints blocks per second and wall time.

Builds a throwaway repository (this checkout's mkdocs.yml and schema/, the
installed node_modules) holding 200 Markdown files with 25 JSON blocks each,
5,000 blocks in all, spread over v1, v2 and both, with payloads, whole
JSON-RPC messages and counter-examples, some inside content tabs. The target
is the whole corpus in at most 1 second on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.0

UPDATE = {"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "Run the tests"}]}
BLOCKS = [
    ("SessionUpdate (v1, v2)", UPDATE, False),
    ("SessionUpdate (v1)", {**UPDATE, "suggestions": []}, False),
    ("SessionUpdate (v2)", {**UPDATE, "_meta": {"turn": 1}}, False),
    ("Lenient SessionUpdate (v1, v2): _meta is an object", {**UPDATE, "_meta": 5}, True),
    ("Invalid SessionUpdate (v1, v2): empty text", {**UPDATE, "suggestions": [{"text": ""}]}, True),
    ("Invalid SessionUpdate (v1, v2): no list", {**UPDATE, "suggestions": None}, True),
    ("PromptSuggestion (v1, v2)", {"text": "Explain the diff"}, False),
    (
        "JSON-RPC session/update (v1)",
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": UPDATE},
        },
        False,
    ),
    (
        "JSON-RPC session/update (v2)",
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": UPDATE},
        },
        False,
    ),
    (
        "InitializeRequest (v1)",
        {"protocolVersion": 1, "clientCapabilities": {"session": {"promptSuggestions": {}}}},
        False,
    ),
]


def write_corpus(docs: Path, files: int, per_file: int) -> tuple[int, int]:
    """Write the corpus; return (blocks, payload checks)."""
    blocks = checks = 0
    for number in range(files):
        parts = [f"# Page {number}\n"]
        for index in range(per_file):
            title, payload, _ = BLOCKS[(number + index) % len(BLOCKS)]
            body = json.dumps(payload, indent=2)
            checks += title.count("v1") + title.count("v2")
            if index % 5 == 0:
                indented = "\n".join("    " + line for line in body.splitlines())
                parts.append(
                    f'=== "Tab {index}"\n\n    ```json title="{title}"\n{indented}\n    ```\n'
                )
            else:
                parts.append(f'```json title="{title}"\n{body}\n```\n')
            blocks += 1
        (docs / f"page-{number:03}.md").write_text("\n".join(parts), encoding="utf-8")
    return blocks, checks


def main() -> int:
    """Build the corpus, time `acp-docs examples` on it, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--blocks-per-file", type=int, default=25)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not (ROOT / "node_modules").is_dir():
        print("run `make setup` first: node_modules is missing", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        shutil.copy(ROOT / "mkdocs.yml", repo / "mkdocs.yml")
        shutil.copytree(ROOT / "schema", repo / "schema")
        (repo / "node_modules").symlink_to(ROOT / "node_modules")
        # mkdocs.yml names the site's stylesheets and scripts: they must exist.
        shutil.copytree(ROOT / "docs" / "assets", repo / "docs" / "assets")
        blocks, checks = write_corpus(repo / "docs", args.files, args.blocks_per_file)
        command = [str(Path(sys.executable).parent / "acp-docs"), "examples", "docs"]
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = subprocess.run(command, cwd=repo, capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if result.returncode != 0:
                print(result.stdout[-2000:], result.stderr[-2000:], file=sys.stderr)
                return 1
        best = min(times)
        print(f"corpus: {args.files} files, {blocks} JSON blocks, {checks} payload checks")
        print(f"acp-docs examples: {result.stderr.strip().splitlines()[-1]}")
        print(f"wall time: best {best:.2f}s, runs {', '.join(f'{t:.2f}s' for t in times)}")
        print(f"throughput: {blocks / best:,.0f} blocks/s, {checks / best:,.0f} payload checks/s")
        print(f"target: at most {TARGET:.0f} s -> {'met' if best <= TARGET else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
