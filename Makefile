# pokertable: `make demo` and `make test` set up .venv themselves on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml proto/pokertable/v1/pokertable.proto
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/pokertable demo

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python -m benchmarks.evaluator
	$(BIN)/python -m benchmarks.circle
	$(BIN)/python -m benchmarks.odds
	$(BIN)/python -m benchmarks.service
	$(BIN)/python -m benchmarks.devices
	$(BIN)/python -m benchmarks.replay
	$(BIN)/python -m benchmarks.flood

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .import_linter_cache
