# `make run`: set up and serve on 127.0.0.1:8000 (with the webhook dispatcher).
# `make test`: set up and run the tests.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
FLASK  := $(BIN)/flask --app app
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check

.PHONY: run test pictures lint format test-slow test-deploy test-n8n test-docker nginx fuzz bench faults install install-test system-packages clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The pinned dependencies, then the package itself in editable mode (a
# checkout runs from its own files; pyproject.toml).
$(VENV)/.installed: requirements.txt pyproject.toml | $(BIN)/python
	$(PIP) -r requirements.txt
	$(PIP) --no-deps -e .
	touch $@

# The test tools without pip's compiling of every module they ship (about
# 5 s of a fresh clone's `make test`): `make test` caches the bytecode of
# what its processes import, and that is a small part of them.
$(VENV)/.installed-test: requirements.txt requirements-test.txt pyproject.toml | $(VENV)/.installed
	$(PIP) --no-compile -r requirements-test.txt
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

# Debian's chromium-headless-shell (browser tests: Chromium's own headless
# build, about 30% less CPU than the full browser run headless), curl (README
# test) and wrk (bench smoke test). Without root or apt the tests that need
# them skip with a reason, except under CI=true.
system-packages:
	@if command -v chromium-headless-shell >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 && command -v wrk >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell curl wrk >/dev/null; \
	else echo "note: cannot install chromium-headless-shell/curl/wrk here; the browser, README and bench smoke tests will skip"; fi

# gunicorn and one dispatcher together; Ctrl-C (or gunicorn ending) stops both.
run: install
	$(FLASK) init-db
	$(FLASK) keys demo
	@$(FLASK) dispatch & dispatcher=$$!; \
	trap 'kill -TERM $$dispatcher 2>/dev/null; wait $$dispatcher' EXIT INT TERM; \
	$(BIN)/gunicorn -c gunicorn.conf.py wsgi:app

# Four pytest processes (pytest-xdist) on two cores, since many tests wait
# on servers and subprocesses (the cores sat idle 59% of a three-process
# run; TEST_PROCESSES=3 tries three); a test module to
# each at a time, so that a module's server is started once, the longest
# modules first (tests/module_seconds.txt;
# ARGS="--module-seconds=tests/module_seconds.txt" measures them again).
# No test may hang the run: one still going after 600 s (the longest take
# about 120 s on a loaded machine) fails with every thread's stack
# (pytest-timeout), and the run goes on. Bytecode is cached even where the
# environment says PYTHONDONTWRITEBYTECODE (as this machine kind's does):
# without it every pytest process rewrote the asserts of all 122 test
# modules (collection 4.6 s, 1.9 s with the cache), and each of the ~220
# servers, dispatchers and CLI calls a run starts compiled the package
# again (0.09 s each).
#
# What the tests write goes to memory where /dev/shm is (tmpfs; TMPDIR, so
# pytest's tmp_path, the servers' databases and Chromium's profiles): on the
# virtual disk every commit of the service's SQLite files (synchronous=FULL)
# waited on an fsync. And the tests' PostgreSQL sessions commit without
# waiting for the WAL flush (PGOPTIONS synchronous_commit=off): a commit is
# as visible and as atomic, only a crash of the database server itself could
# lose the last ones, which no test in `make test` causes. Both together:
# pytest 274 s against 289-304 s, and 38 s less CPU (user), on an idle
# machine. pytest.ini keeps only the directories of failed tests.
TEST_TMPDIR ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm)
TEST_PROCESSES ?= 4
test: install-test system-packages lint
	PYTHONDONTWRITEBYTECODE= PGOPTIONS="$$PGOPTIONS -c synchronous_commit=off" \
	  $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR)) \
	  $(BIN)/python -m pytest -n $(TEST_PROCESSES) --dist loadscope --timeout=600 $(ARGS)

# The browser tests again, taking their pictures of every page and view
# (test-artifacts/*.png, at 1280 or 1440 px and at phone width; docs/images/
# holds copies of some): `make test` takes none (tests/browser_support.py,
# PICTURES), since no test reads them and they cost a fifth of Chromium's CPU.
pictures:
	PICTURES=1 $(MAKE) test ARGS='-m "browser and not slow" $(ARGS)'

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

# The image (Dockerfile) and compose.yaml with PostgreSQL 15, built and run
# (tests marked `docker`, about 6 minutes on a busy 2-core machine). First installs Debian's docker.io
# (and docker-compose) with apt-get when missing (needs root), and the base
# images: pulled, or where no registry answers, built once from Debian
# packages (debootstrap) and kept in ~/.cache/content-publishing/docker
# (CPS_DOCKER_CACHE overrides; harness/docker.py): about 1.5 minutes and
# 0.6 GB the first time. Starts dockerd if none runs, with no network of its
# own, and stops it at the end; every container is on the host's network.
# Prints the time taken, the image size and the other figures.
test-docker: install-test
	@started=$$(date +%s); rm -f test-artifacts/docker-figures.txt; \
	$(BIN)/python -m harness.docker install && \
	$(BIN)/python -m pytest -m docker -v $(ARGS); status=$$?; \
	cat test-artifacts/docker-figures.txt 2>/dev/null; \
	echo "make test-docker: $$(( $$(date +%s) - started )) s in all; docker cache: $$(du -sh $$($(BIN)/python -m harness.docker where) | cut -f1)"; \
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
