"""Run `acp-docs conform` on Agents people run, and hold each verdict to the expected scorecard.

`make conform-scorecard` (not part of `make test`: it needs the registries)
installs pinned versions of real Agents into `.cache/scorecard/`: the Python
SDK's examples (from its source distribution on PyPI) and the npm packages of
the Claude, Gemini and Codex adapters, their install scripts not run. Each is
run without credentials, in v1 and v2, with an environment of its own (a
scratch home, no variable of this machine's but PATH and LANG), and its
verdict and reason are compared with `scripts/scorecard.yaml`. `--write`
records the run as the expected scorecard and as the table of the Conformance
page (`docs/tooling/conformance.md`, between its scorecard lines).

    python scripts/conform_scorecard.py [--write] [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "scorecard"
EXPECTED = ROOT / "scripts" / "scorecard.yaml"
PAGE = ROOT / "docs" / "tooling" / "conformance.md"
START = "<!-- scorecard: written by `make conform-scorecard`; do not edit -->"
END = "<!-- end of the scorecard -->"
PYTHON_SDK = "agent-client-protocol==0.12.1"
NPM = {
    "claude-agent-acp": ("@agentclientprotocol/claude-agent-acp", "0.101.0", "claude-agent-acp"),
    "zed-claude-agent-acp": ("@zed-industries/claude-agent-acp", "0.23.1", "claude-agent-acp"),
    "gemini-cli": ("@google/gemini-cli", "0.61.0", "gemini"),
    "codex-acp": ("@zed-industries/codex-acp", "0.16.0", "codex-acp"),
}
"""Each npm Agent: its package, the pinned version, and the command its package installs."""
ARGS = {"gemini-cli": ["--acp"]}
VERSIONS = ("v1", "v2")


def _run(argv: list[str], **kwargs: object) -> None:
    print("+", " ".join(argv), flush=True)
    subprocess.run(argv, check=True, **kwargs)  # type: ignore[call-overload]


def install() -> dict[str, list[str]]:
    """Install every Agent (once); the command of each, by name."""
    CACHE.mkdir(parents=True, exist_ok=True)
    venv = CACHE / "python-sdk"
    python = venv / "bin" / "python"
    if not python.exists():
        _run([sys.executable, "-m", "venv", str(venv)])
        _run([str(python), "-m", "pip", "install", "--quiet", PYTHON_SDK])
    sdist = CACHE / "python-sdk-source"
    examples = sdist / f"agent_client_protocol-{PYTHON_SDK.split('==')[1]}" / "examples"
    if not examples.is_dir():
        sdist.mkdir(exist_ok=True)
        pip = [str(python), "-m", "pip", "download", "--quiet", "--no-binary", ":all:"]
        _run([*pip, "--no-deps", "-d", str(sdist), PYTHON_SDK])
        for archive in sdist.glob("*.tar.gz"):
            with tarfile.open(archive) as tar:
                tar.extractall(sdist, filter="data")
    commands = {
        "python-sdk-echo_agent": [str(python), str(examples / "echo_agent.py")],
        "python-sdk-agent": [str(python), str(examples / "agent.py")],
    }
    for name, (package, version, binary) in NPM.items():
        folder = CACHE / "npm" / name
        stamp = folder / f".installed-{version}"
        if not stamp.exists():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "package.json").write_text('{"private": true}\n')
            npm = ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"]
            _run([*npm, "--save-exact", f"{package}@{version}"], cwd=folder)
            stamp.touch()
        commands[name] = [str(folder / "node_modules" / ".bin" / binary), *ARGS.get(name, [])]
    return commands


def judge(name: str, command: list[str], version: str) -> dict[str, object]:
    """One conform run: its verdict, why, and the version judged."""
    home = CACHE / "home" / name
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(home)}
    report = CACHE / "reports" / f"{name}-{version}.json"
    report.parent.mkdir(exist_ok=True)
    report.unlink(missing_ok=True)
    argv = [str(ROOT / ".venv" / "bin" / "acp-docs"), "conform", "--protocol", version]
    argv += ["--report-json", str(report), "--timeout", "20", "--", *command]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if not report.exists():
        return {"verdict": "ERROR", "reason": done.stderr.strip()[-300:], "exit": done.returncode}
    verdict = json.loads(report.read_text())["verdict"]
    return {
        "verdict": verdict["outcome"],
        "judged": verdict["judged_protocol"],
        "reason": verdict["reason"],
        "exit": done.returncode,
    }


_BLOCKED = re.compile(
    r"^(not testable, [a-z ]+): the Agent (answered|ended the work of) ([\w/]+)(?: \(id \d+\))?"
    r" with error (-?\d+): (.*)$"
)
_FAILED = re.compile(r"^failed: ([\w/-]+) \((.*)\)$")


def _code(text: str) -> str:
    return "`" + text.replace("`", "'").replace("|", "\\|") + "`"


def _why(reason: str) -> str:
    """A verdict's reason for the page's table: its own words plain (they wrap), what the Agent
    said and the names of things as code (no spell checker judges an Agent's words)."""
    blocked = _BLOCKED.match(reason)
    if blocked:
        head, verb, what, code, said = blocked.groups()
        verb = "answered" if verb == "answered" else "ended the work of"
        return f"{head.capitalize()}: {verb} {_code(what)} with {_code(code)} {_code(said)}"
    failed = _FAILED.match(reason)
    if failed:
        return f"Failed {_code(failed.group(1))}: {_code(failed.group(2))}"
    return _code(reason) if reason else ""


def table(card: dict[str, dict[str, dict[str, object]]]) -> list[str]:
    """The scorecard as a Markdown list, one line a run, that wraps on a phone."""
    lines = []
    for name, runs in card.items():
        for version, run in runs.items():
            judged = run.get("judged", version)
            asked = f"{version}" if judged == version else f"{version}, answered as {judged}"
            why = _why(str(run.get("reason") or ""))
            lines.append(f"- `{name}`, {asked}: **{run['verdict']}**{'. ' + why if why else ''}")
    return lines


def _write_page(lines: list[str]) -> None:
    text = PAGE.read_text()
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    PAGE.write_text(f"{head}{START}\n\n" + "\n".join(lines) + f"\n\n{END}{tail}")
    subprocess.run(["npx", "prettier", "--write", str(PAGE)], cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    """Install, run, compare; 1 when a verdict differs from the expected scorecard."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="record this run as expected")
    parser.add_argument("--only", action="append", help="run only this Agent (repeatable)")
    args = parser.parse_args(argv)
    if shutil.which("npm") is None:
        print("conform-scorecard: npm is required", file=sys.stderr)
        return 2
    commands = install()
    chosen = {n: c for n, c in commands.items() if not args.only or n in args.only}
    card = {n: {v: judge(n, c, v) for v in VERSIONS} for n, c in chosen.items()}
    lines = table(card)
    print("\n".join(lines))
    expected = yaml.safe_load(EXPECTED.read_text()) if EXPECTED.exists() else {}
    if args.write:
        EXPECTED.write_text(
            "# The verdicts `make conform-scorecard` expects (scripts/conform_scorecard.py);\n"
            "# `--write` records a run. Every Agent runs without credentials.\n"
            + yaml.safe_dump({"agents": card}, sort_keys=False, allow_unicode=True, width=1000)
        )
        _write_page(lines)
        return 0
    differ = [
        f"{n} {v}: expected {want.get('verdict')}, got {card[n][v]['verdict']}"
        for n, runs in (expected.get("agents") or {}).items()
        if n in card
        for v, want in runs.items()
        if card[n].get(v, {}).get("verdict") != want.get("verdict")
    ]
    for line in differ:
        print(f"conform-scorecard: {line}", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
