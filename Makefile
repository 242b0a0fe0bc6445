# Two commands matter: `make run` and `make test`. Both create .venv on first use.
# `make check` is the fast tier for while you work: `make test` less the system tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: `make run` needs the service's own dependencies only; the tests' and
# `breakeven measure`'s extras (schemathesis, Playwright, PyTorch) come with `make test`.
RUNTIME := $(VENV)/.runtime
INSTALLED := $(VENV)/.installed
# The dashboard's browser tests drive the system Chromium (Debian's package): `make test`
# installs it when it is missing, so the test command works on a fresh machine by itself.
CHROMIUM ?= /usr/bin/chromium
# The dashboard's accessibility check in the browser tests: axe-core (MPL-2.0) from the npm
# registry, pinned, for the tests only (nothing of it is served).
AXE := tests/.axe/node_modules/axe-core/axe.min.js
AXE_VERSION := 4.14.1
# The HTTP benchmark's load generator (Debian's wrk); without it a slower Python client runs.
WRK ?= /usr/bin/wrk
# The compose stack's proxy, run by tests/test_proxy.py on its shipped config (deploy/).
NGINX ?= /usr/sbin/nginx

.PHONY: run test check lint bench clean

$(RUNTIME): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(RUNTIME)

$(INSTALLED): $(RUNTIME)
	$(BIN)/pip install --quiet -e '.[test,measure]'
	touch $(INSTALLED)

run: $(RUNTIME)  ## start the service on http://127.0.0.1:8000 (SQLite, bundled prices)
	$(BIN)/breakeven serve

test: $(INSTALLED) $(CHROMIUM) $(AXE) $(NGINX)  ## lint, check the import rules, run every test (PostgreSQL on 127.0.0.1:5432)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	BREAKEVEN_CHROMIUM=$(CHROMIUM) BREAKEVEN_AXE=$(AXE) BREAKEVEN_NGINX=$(NGINX) $(BIN)/pytest

# The tests marked `system` (real servers, browsers, SIGKILLs, long loads: tests/README.md)
# are left out; CI runs `make test`, which runs them all.
check: lint  ## lint, check the import rules, run the tests not marked system (about 2 min)
	$(BIN)/pytest -p no:cacheprovider -m "not system"

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

bench: $(INSTALLED) $(WRK)  ## run the benchmarks and rewrite bench/results.md
	$(BIN)/python -m bench.run

# Debian's packages behind each tool; Chromium draws the zh-CN dashboard's screenshots with a
# CJK font (WenQuanYi Zen Hei, 10 MB), else every Chinese character is an empty box.
PACKAGES.chromium := chromium fonts-wqy-zenhei
PACKAGES.wrk := wrk
PACKAGES.nginx := nginx-light

$(CHROMIUM) $(WRK) $(NGINX):
	@echo "installing Debian's $(PACKAGES.$(notdir $@)) (apt-get)"
	@if [ "$$(id -u)" -ne 0 ]; then \
		echo "run 'sudo apt-get install $(PACKAGES.$(notdir $@))'"; exit 1; \
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PACKAGES.$(notdir $@)) >/dev/null

$(AXE):
	npm install --prefix tests/.axe --no-save --no-audit --no-fund --silent axe-core@$(AXE_VERSION)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
