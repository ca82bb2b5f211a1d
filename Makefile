# The two set-up commands of the README: `make serve` and `make test`.
# Each creates the virtual environment on first use and installs what it needs.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

CYPHER_LINT := tools/cypher-lint
EXPLORER := tools/explorer
GRAPHIQL := tools/graphiql

.PHONY: serve test bench lint install-dev lint-cypher explorer graphiql static

$(BIN)/graphmem: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.dev-installed: $(BIN)/graphmem
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install-dev: $(VENV)/.dev-installed

# The explorer and GraphiQL pages are committed as built files, so serving needs no Node.
serve: $(BIN)/graphmem
	$(BIN)/graphmem serve

# Neo4j's own Cypher linter, pinned by the committed lockfile; npm ci runs
# again only when the lockfile changes (it writes node_modules/.package-lock.json).
$(CYPHER_LINT)/node_modules/.package-lock.json: $(CYPHER_LINT)/package-lock.json
	cd $(CYPHER_LINT) && npm ci --no-audit --no-fund --loglevel=error

lint-cypher: $(CYPHER_LINT)/node_modules/.package-lock.json
	node $(CYPHER_LINT)/lint.mjs

# The /explore page: cytoscape bundled by esbuild, both pinned by the committed
# lockfile, into graphmem/explore/static/ (committed, so serving needs no Node).
$(EXPLORER)/node_modules/.package-lock.json: $(EXPLORER)/package-lock.json
	cd $(EXPLORER) && npm ci --no-audit --no-fund --loglevel=error

explorer: $(EXPLORER)/node_modules/.package-lock.json
	cd $(EXPLORER) && node build.mjs

# GraphiQL and React from the committed lockfile into graphmem/graphiql/static/
# (committed too), so /graphql's page loads nothing from another host.
$(GRAPHIQL)/node_modules/.package-lock.json: $(GRAPHIQL)/package-lock.json
	cd $(GRAPHIQL) && npm ci --no-audit --no-fund --loglevel=error

graphiql: $(GRAPHIQL)/node_modules/.package-lock.json
	cd $(GRAPHIQL) && node build.mjs

# The committed pages are exactly what their lockfiles and sources build.
static: explorer graphiql
	git diff --exit-code --stat -- graphmem/explore/static graphmem/graphiql/static

test: $(VENV)/.dev-installed lint-cypher static
	$(BIN)/ruff check graphmem tests benchmarks
	$(BIN)/ruff format --check graphmem tests benchmarks
	$(BIN)/pytest -n auto -q

bench: $(BIN)/graphmem
	$(BIN)/python -m benchmarks
