# Two commands matter: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: run test lint bench clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,measure]'
	touch $(INSTALLED)

run: $(INSTALLED)  ## start the service on http://127.0.0.1:8000 (SQLite, bundled prices)
	$(BIN)/breakeven serve

test: $(INSTALLED)  ## lint and run every test (needs PostgreSQL on 127.0.0.1:5432)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(INSTALLED)  ## run the benchmarks and rewrite bench/results.md
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
