# The two set-up commands of the README: `make serve` and `make test`.
# Each creates the virtual environment on first use and installs what it needs.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

CYPHER_LINT := tools/cypher-lint

.PHONY: serve test bench lint install-dev lint-cypher

$(BIN)/graphmem: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[embed]'
	touch $@

$(VENV)/.dev-installed: $(BIN)/graphmem
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install-dev: $(VENV)/.dev-installed

serve: $(BIN)/graphmem
	$(BIN)/graphmem serve

# Neo4j's own Cypher linter, pinned by the committed lockfile; npm ci runs
# again only when the lockfile changes (it writes node_modules/.package-lock.json).
$(CYPHER_LINT)/node_modules/.package-lock.json: $(CYPHER_LINT)/package-lock.json
	cd $(CYPHER_LINT) && npm ci --no-audit --no-fund --loglevel=error

lint-cypher: $(CYPHER_LINT)/node_modules/.package-lock.json
	node $(CYPHER_LINT)/lint.mjs

test: $(VENV)/.dev-installed lint-cypher
	$(BIN)/ruff check graphmem tests benchmarks
	$(BIN)/ruff format --check graphmem tests benchmarks
	$(BIN)/pytest -n auto -q

bench: $(BIN)/graphmem
	$(BIN)/python -m benchmarks
