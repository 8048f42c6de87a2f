# make run: serve the whole thing on the embedded SQLite default at http://127.0.0.1:8000
# make shell: a shell with the venv first on PATH, where the docs' `sathub …` commands work
# make test: install the test dependencies (and Debian's chromium, nginx, b4, lei, suck, slrnpull and public-inbox), lint and type-check, and run the whole suite
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
PG_URL ?= postgresql://postgres@127.0.0.1:5432/test
MYSQL_URL ?= mysql://root@127.0.0.1:3306/test
PYTEST_ARGS ?=

.PHONY: run shell test lint screenshots install install-test chromium nginx b4 lei suck slrnpull public-inbox bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/pip install -q -e '.[test]'
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(BIN)/sathub serve

shell: install
	@echo "$(VENV)/bin is first on PATH here (sathub, python, pip); exit to leave."
	@VIRTUAL_ENV="$(abspath $(VENV))" PATH="$(abspath $(BIN)):$$PATH" $${SHELL:-/bin/sh}

chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# the cache in front of the archive in tests/archive/test_nginx_cache.py (docs/archive-caching.md)
nginx:
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; }

# the client tests/archive/public_inbox/test_b4.py drives against public-inbox's forms (docs/public-inbox.md)
b4:
	@command -v b4 >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq b4 >/dev/null; }

# the client tests/archive/public_inbox/test_lei.py drives against public-inbox's search (docs/public-inbox.md)
lei:
	@command -v lei >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lei >/dev/null; }

# the batch news clients tests/archive/nntp/test_mirroring.py mirrors a group with (docs/archive-nntp.md)
suck:
	@command -v suck >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq suck >/dev/null; }

slrnpull:
	@command -v slrnpull >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slrnpull >/dev/null; }

# the server tests/archive/nntp/test_public_inbox_nntpd.py compares sathub's NNTP with (docs/archive-nntp.md)
public-inbox:
	@command -v public-inbox-nntpd >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq public-inbox >/dev/null; }

# ruff (lint and format) and mypy keep the tree clean; the suite runs after them
lint: install-test
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

test: install-test chromium nginx b4 lei suck slrnpull public-inbox lint
	@if pg_isready -q -h 127.0.0.1 2>/dev/null; then export SATHUB_TEST_POSTGRES_URL=$${SATHUB_TEST_POSTGRES_URL:-$(PG_URL)}; \
	  elif [ "$$CI" = true ]; then echo "PostgreSQL is not running (CI=true: nothing is skipped)"; exit 1; \
	  else echo "PostgreSQL is not running: the PostgreSQL suite is skipped"; fi; \
	if mariadb -uroot -h127.0.0.1 -e 'select 1' >/dev/null 2>&1; then export SATHUB_TEST_MYSQL_URL=$${SATHUB_TEST_MYSQL_URL:-$(MYSQL_URL)}; \
	  elif [ "$$CI" = true ]; then echo "MariaDB is not running (CI=true: nothing is skipped)"; exit 1; \
	  else echo "MariaDB is not running: the legacy import's MariaDB tests are skipped"; fi; \
	$(BIN)/python -m pytest -n 2 --dist loadgroup $(PYTEST_ARGS)

# the page tests again, saving their screenshots into docs/screenshots/
screenshots: install-test chromium
	SATHUB_SCREENSHOTS=1 $(BIN)/python -m pytest -m browser

# make bench [SUITE=status|archive|faults|peers|scale|micro|all] [BENCH_ARGS=--quick]: bench/README.md (all = status, archive, faults)
bench: install-test
	$(BIN)/python -m bench.run --suite $(or $(SUITE),all) $(BENCH_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache
