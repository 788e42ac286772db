# Everything a fresh machine needs: `make test` and `make demo` create .venv and install the project first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo install bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q
	$(BIN)/mypy

demo: $(STAMP)
	bash bench/demo.sh

bench: $(STAMP)
	$(BIN)/python bench/parse.py

clean:
	rm -rf $(VENV) demo-out
