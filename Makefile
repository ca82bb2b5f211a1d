# The two set-up commands of the README: `make serve` and `make test`.
# Each creates the virtual environment on first use and installs what it needs.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: serve test bench lint install-dev

$(BIN)/graphmem: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.dev-installed: $(BIN)/graphmem
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install-dev: $(VENV)/.dev-installed

serve: $(BIN)/graphmem
	$(BIN)/graphmem serve

test: $(VENV)/.dev-installed
	$(BIN)/ruff check graphmem tests benchmarks
	$(BIN)/ruff format --check graphmem tests benchmarks
	$(BIN)/pytest -n auto -q

bench: $(BIN)/graphmem
	$(BIN)/python -m benchmarks
