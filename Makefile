# The two set-up commands of the README: `make serve` and `make test`.
# Each creates the virtual environment on first use and installs what it needs.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

CYPHER_LINT := tools/cypher-lint
EXPLORER := tools/explorer
EXPLORER_BUNDLE := graphmem/explore/static/explorer.js

.PHONY: serve test bench lint install-dev lint-cypher explorer

$(BIN)/graphmem: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.dev-installed: $(BIN)/graphmem
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install-dev: $(VENV)/.dev-installed

serve: $(BIN)/graphmem explorer
	$(BIN)/graphmem serve

# Neo4j's own Cypher linter, pinned by the committed lockfile; npm ci runs
# again only when the lockfile changes (it writes node_modules/.package-lock.json).
$(CYPHER_LINT)/node_modules/.package-lock.json: $(CYPHER_LINT)/package-lock.json
	cd $(CYPHER_LINT) && npm ci --no-audit --no-fund --loglevel=error

lint-cypher: $(CYPHER_LINT)/node_modules/.package-lock.json
	node $(CYPHER_LINT)/lint.mjs

# The /explore page: cytoscape bundled by esbuild, both pinned by the committed
# lockfile, into graphmem/explore/static/ (a build artefact the server serves).
$(EXPLORER)/node_modules/.package-lock.json: $(EXPLORER)/package-lock.json
	cd $(EXPLORER) && npm ci --no-audit --no-fund --loglevel=error

$(EXPLORER_BUNDLE): $(EXPLORER)/node_modules/.package-lock.json $(EXPLORER)/build.mjs $(wildcard $(EXPLORER)/src/*)
	cd $(EXPLORER) && node build.mjs

explorer: $(EXPLORER_BUNDLE)

test: $(VENV)/.dev-installed lint-cypher explorer
	$(BIN)/ruff check graphmem tests benchmarks
	$(BIN)/ruff format --check graphmem tests benchmarks
	$(BIN)/pytest -n auto -q

bench: $(BIN)/graphmem
	$(BIN)/python -m benchmarks
