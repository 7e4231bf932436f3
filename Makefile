# `make run`: set up and serve on 127.0.0.1:8000.  `make test`: set up and run the tests.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
FLASK  := $(BIN)/flask --app app

.PHONY: run test test-slow install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

install: $(VENV)/.installed

run: install
	$(FLASK) init-db
	$(FLASK) keys demo
	$(BIN)/gunicorn -c gunicorn.conf.py wsgi:app

test: install
	$(BIN)/python -m pytest

test-slow: install
	$(BIN)/python -m pytest -m slow

clean:
	rm -rf $(VENV) .pytest_cache
