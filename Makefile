# `make run`: set up and serve on 127.0.0.1:8000 (with the webhook dispatcher).
# `make test`: set up and run the tests.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
FLASK  := $(BIN)/flask --app app
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check

.PHONY: run test lint format test-slow test-deploy test-n8n nginx fuzz bench faults install install-test system-packages clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The pinned dependencies, then the package itself in editable mode (a
# checkout runs from its own files; pyproject.toml).
$(VENV)/.installed: requirements.txt pyproject.toml | $(BIN)/python
	$(PIP) -r requirements.txt
	$(PIP) --no-deps -e .
	touch $@

$(VENV)/.installed-test: requirements.txt requirements-test.txt pyproject.toml | $(VENV)/.installed
	$(PIP) -r requirements-test.txt
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

# Debian's chromium (browser tests), curl (README test) and wrk (bench smoke
# test). Without root or apt the tests that need them skip with a reason,
# except under CI=true.
system-packages:
	@if command -v chromium >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 && command -v wrk >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium curl wrk >/dev/null; \
	else echo "note: cannot install chromium/curl/wrk here; the browser, README and bench smoke tests will skip"; fi

# gunicorn and one dispatcher together; Ctrl-C (or gunicorn ending) stops both.
run: install
	$(FLASK) init-db
	$(FLASK) keys demo
	@$(FLASK) dispatch & dispatcher=$$!; \
	trap 'kill -TERM $$dispatcher 2>/dev/null; wait $$dispatcher' EXIT INT TERM; \
	$(BIN)/gunicorn -c gunicorn.conf.py wsgi:app

# Three pytest processes (pytest-xdist) on two cores, since many tests wait
# on servers and subprocesses; a test module to each at a time, so that a
# module's server is started once.
test: install-test system-packages lint
	$(BIN)/python -m pytest -n 3 --dist loadscope

# ruff's checks and formatting (settings in pyproject.toml); `make format` applies them.
lint: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

test-slow: install-test
	$(BIN)/python -m pytest -m slow

# deploy/nginx.conf in front of real gunicorn on loopback (tests marked
# `deploy`, about 1 minute): slow clients, per-key limits, headers, addresses.
# The tests start nginx themselves; the system service is not used.
test-deploy: install-test nginx
	$(BIN)/python -m pytest -m deploy

# The n8n kit (integrations/n8n/) against real n8n (tests marked `n8n`).
# First installs n8n 2.40.7 from the npm registry, with the Node.js 24 it
# needs, into ~/.cache/content-publishing/ (N8N_KIT_CACHE overrides), outside
# the checkout: about 8 minutes and 2.8 GB the first time (harness/n8n.py).
# Then the service, its dispatcher, deploy/nginx.conf, a LinkedIn stand-in
# and n8n, all on loopback. Prints the time taken and the disk used.
test-n8n: install-test nginx
	@started=$$(date +%s); \
	$(BIN)/python -m harness.n8n install && \
	$(BIN)/python -m pytest -m n8n -v $(ARGS); status=$$?; \
	echo "make test-n8n: $$(( $$(date +%s) - started )) s in all; n8n cache: $$($(BIN)/python -m harness.n8n where | xargs du -sh | cut -f1)"; \
	exit $$status

# Debian's nginx, installed with apt-get when missing (needs root). Debian
# starts its default site on port 80 after installing; `systemctl disable
# --now nginx` stops it if this machine is not the server.
nginx:
	@if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	else echo "error: nginx is not installed and installing it needs root: apt-get install -y nginx" >&2; exit 1; fi

fuzz: install-test
	$(BIN)/python -m pytest -m fuzz

# Benchmark against a bare-Flask ceiling with wrk (installed from apt if missing).
bench: install
	bash bench/ensure_wrk.sh
	$(BIN)/python -m bench $(ARGS)

# Load, crash, revoke-race, full-disk, bad-start and two-host (PostgreSQL) faults against real gunicorn.
faults: install
	$(BIN)/python -m faults $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache test-artifacts
