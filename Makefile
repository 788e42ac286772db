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

BROWSER_STAMP := $(VENV)/.browser

# The HTML page of `audit explain` is tested in a real headless Chromium (Debian's package, no download of a
# browser build of its own).
$(BROWSER_STAMP): scripts/install-browser.sh
	bash scripts/install-browser.sh
	touch $(BROWSER_STAMP)

test: $(STAMP) $(BROWSER_STAMP)
	$(BIN)/python -m pytest -q
	$(BIN)/mypy

demo: $(STAMP)
	bash bench/demo.sh

bench: $(STAMP)
	$(BIN)/python bench/parse.py

clean:
	rm -rf $(VENV) demo-out
