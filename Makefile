# The two set-up commands of the README: `make serve` and `make test`.
# Each creates the virtual environment on first use and installs what it needs.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

CYPHER_LINT := tools/cypher-lint
EXPLORER := tools/explorer
GRAPHIQL := tools/graphiql

NEO4J := tools/neo4j
NEO4J_HOME ?= .neo4j
NEO4J_BOLT_PORT ?= 7687
NEO4J_HTTP_PORT ?= 7474
# `make test STRESS=2`: the suite with two CPU-bound processes beside it (tests/stress.py).
STRESS ?= 0

.PHONY: serve test check deadcode bench lint install-dev lint-cypher typecheck explorer graphiql static neo4j neo4j-build

# The Neo4j driver too (pure Python, about 6 MB with pytz): the README's Neo4j line runs
# in this virtualenv as it stands, with nothing more to install.
$(BIN)/graphmem: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[neo4j]'
	touch $@

$(VENV)/.dev-installed: $(BIN)/graphmem
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install-dev: $(VENV)/.dev-installed

# The explorer and GraphiQL pages are committed as built files, so serving needs no Node.
serve: $(BIN)/graphmem
	@echo 'graphmem is installed in $(BIN); in another shell, export PATH="$$PWD/$(BIN):$$PATH" puts it on PATH'
	$(BIN)/graphmem serve

# Neo4j Community 5.26 and Neo4j Browser from Maven Central (cached in ~/.m2),
# with the launcher the tests and `make neo4j` start (tools/neo4j/run).
$(NEO4J)/target/classpath.txt: $(NEO4J)/pom.xml $(NEO4J)/src/main/java/graphmem/neo4j/Launcher.java
	cd $(NEO4J) && mvn -q -B -DskipTests package
	touch $@

neo4j-build: $(NEO4J)/target/classpath.txt

# A Neo4j to try graphmem on without Docker, in the foreground until Ctrl-C:
# it prints bolt://127.0.0.1:PORT (authentication off; data in $(NEO4J_HOME)).
neo4j: neo4j-build
	@echo 'in another shell: GRAPHMEM_BACKEND=neo4j GRAPHMEM_NEO4J_URI=bolt://127.0.0.1:$(NEO4J_BOLT_PORT) $(BIN)/graphmem serve'
	$(NEO4J)/run --home $(NEO4J_HOME) --bolt-port $(NEO4J_BOLT_PORT) --http-port $(NEO4J_HTTP_PORT)

# Neo4j's own Cypher linter, pinned by the committed lockfile; npm ci runs
# again only when the lockfile changes (it writes node_modules/.package-lock.json).
$(CYPHER_LINT)/node_modules/.package-lock.json: $(CYPHER_LINT)/package-lock.json
	cd $(CYPHER_LINT) && npm ci --no-audit --no-fund --loglevel=error

lint-cypher: $(CYPHER_LINT)/node_modules/.package-lock.json
	node $(CYPHER_LINT)/lint.mjs

# The /explore page: cytoscape bundled by esbuild, both pinned by the committed
# lockfile, into graphmem/server/explore/static/ (committed, so serving needs no Node).
$(EXPLORER)/node_modules/.package-lock.json: $(EXPLORER)/package-lock.json
	cd $(EXPLORER) && npm ci --no-audit --no-fund --loglevel=error

explorer: $(EXPLORER)/node_modules/.package-lock.json
	cd $(EXPLORER) && node build.mjs

# GraphiQL and React from the committed lockfile into graphmem/server/graphiql/static/
# (committed too), so /graphql's page loads nothing from another host.
$(GRAPHIQL)/node_modules/.package-lock.json: $(GRAPHIQL)/package-lock.json
	cd $(GRAPHIQL) && npm ci --no-audit --no-fund --loglevel=error

graphiql: $(GRAPHIQL)/node_modules/.package-lock.json
	cd $(GRAPHIQL) && node build.mjs

# The committed pages are exactly what their lockfiles and sources build.
static: explorer graphiql
	git diff --exit-code --stat -- graphmem/server/explore/static graphmem/server/graphiql/static

# mypy over the whole package, as [tool.mypy] in pyproject.toml configures it
# (strict on the pure domain and the store).
typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

# Names nothing uses, as [tool.vulture] in pyproject.toml configures it (the names
# only frameworks use are in vulture_allowlist.py).
deadcode: $(VENV)/.dev-installed
	$(BIN)/vulture

# The inner loop, with no database: lint, formatting, types, dead code and the unit
# suite (tests/unit, under a minute). `make test` runs these and every other suite.
check: $(VENV)/.dev-installed typecheck deadcode
	$(BIN)/ruff check graphmem tests benchmarks
	$(BIN)/ruff format --check graphmem tests benchmarks
	$(BIN)/pytest -q tests/unit

test: $(VENV)/.dev-installed lint-cypher static typecheck deadcode neo4j-build
	$(BIN)/ruff check graphmem tests benchmarks
	$(BIN)/ruff format --check graphmem tests benchmarks
	$(BIN)/pytest -n auto --dist worksteal -q --stress $(STRESS)

bench: $(BIN)/graphmem
	$(BIN)/python -m benchmarks
