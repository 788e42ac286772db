# Everything a fresh machine needs: `make test` and `make demo` create .venv and install the project first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

NATIVE := audit/_native_stamp.json
# every module of the package, sub-folders included (a superset of audit/_native.py's list, which the registry of
# dialects extends), and the build script
NATIVE_SOURCES := $(shell find audit -name '*.py') hatch_build.py

.PHONY: test demo serve install native tables bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,serve,watch,dask,docs]'
	touch $(STAMP)

# The hot modules compiled to C with mypyc, in place (about twice the speed); rebuilt when a source changes.
$(NATIVE): $(STAMP) $(NATIVE_SOURCES)
	$(BIN)/python hatch_build.py

native: $(NATIVE)

# Times alone can miss a stale build (a source edited while it compiled, a checkout that kept older times): when
# the build's stamp says a compiled source differs from what was compiled, it is rebuilt whatever the times say.
ifeq ($(shell test -x $(BIN)/python && $(BIN)/python -c 'from audit import _native; print(_native.compiled_state())' 2>/dev/null),stale)
$(NATIVE): FORCE
endif
.PHONY: FORCE
FORCE:

# The bytecode of every module, written once: Python writes it at a module's first import, but not where
# PYTHONDONTWRITEBYTECODE is set (as on the machines this project was developed on), and compiling them at every
# start took about 15 ms of each command. A module edited since is compiled at import, as usual.
BYTECODE := $(VENV)/.bytecode
$(BYTECODE): $(STAMP) $(shell find audit -name '*.py')
	$(BIN)/python -m compileall -q audit
	touch $(BYTECODE)

# The house grammar's LALR tables, stored beside it (grammar/house.tables.json) so that a check neither imports
# Lark nor builds the grammar; run after changing grammar/house.lark (a test says when it is due; until then
# the tables stored for the old grammar are not used, and Lark builds them at every start). The same for the
# message catalogues (audit/words/*.json, read from the .toml files beside them without TOML's parser).
tables: $(STAMP)
	PYTHONHASHSEED=0 $(BIN)/python -m audit.dialects.house_lark
	$(BIN)/python -m audit.words

install: $(STAMP) $(NATIVE) $(BYTECODE)

BROWSER_STAMP := $(VENV)/.browser

# The HTML page of `audit explain` is tested in a real headless Chromium (Debian's package, no download of a
# browser build of its own).
$(BROWSER_STAMP): scripts/install-browser.sh
	bash scripts/install-browser.sh
	touch $(BROWSER_STAMP)

test: $(STAMP) $(NATIVE) $(BYTECODE) $(BROWSER_STAMP)
	$(BIN)/python -m pytest -q
	$(BIN)/mypy
	$(MAKE) docs

# The tests but the slow ones (browser, wheel, load, memory, Ctrl-C, Dask: `@pytest.mark.slow`), on the plain
# Python modules whatever was compiled (AUDIT_PURE_PYTHON: audit/_native.py then loads every .py file), so that an
# edit is tested without a build. `make test` runs them all, compiled.
# Two pytest workers (pytest-xdist), one a core, each test file kept on one worker (--dist loadfile): a module's
# tests share its server or database fixture, and some read what the module's earlier tests stored. The bytecode
# is compiled once and kept, and so are pytest's rewritten test modules (PYTHONDONTWRITEBYTECODE emptied: where it
# is set, every command a test starts compiled the modules it imports again, half of a small `audit check`'s CPU).
# The target is 3 minutes. `make test-fast` in a fresh clone after `make test`: 2 min 19 s and 244 CPU seconds
# (user + sys), the 2-core machine quiet (load average 0.1 at the start; /usr/bin/time, 2026-12-04); on the same
# machine shared with other runs, 2 min 53 s (load 1.2 to 3.1). mypy after it takes under a second with its cache.
.PHONY: test-fast
test-fast: $(STAMP) $(BYTECODE)
	PYTHONDONTWRITEBYTECODE= AUDIT_PURE_PYTHON=1 $(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow"
	$(BIN)/mypy

demo: $(STAMP) $(NATIVE) $(BYTECODE)
	bash bench/demo.sh

# The HTTP service on its own database, serve-out/club.duckdb (SERVE_DB=...), made with the demo logs the first time and
# never deleted after; on http://127.0.0.1:8000 until Ctrl-C (HOST=..., PORT=...). See scripts/serve.sh.
SERVE_DB ?= serve-out/club.duckdb
HOST ?= 127.0.0.1
PORT ?= 8000
serve: $(STAMP) $(NATIVE) $(BYTECODE)
	AUDIT=$(BIN)/audit DB='$(SERVE_DB)' HOST='$(HOST)' PORT='$(PORT)' bash scripts/serve.sh

bench: $(STAMP) $(NATIVE) $(BYTECODE)
	$(BIN)/python bench/parse.py

# The documentation site, docs/ -> docs/_build/html (warnings are errors: a broken link or reference fails).
# docs-reference writes the reference pages made from the code again (a test says when they are stale);
# docs-serve builds the site and serves it on http://127.0.0.1:8001 (DOCS_PORT=...) until Ctrl-C.
.PHONY: docs docs-serve docs-reference
DOCS_PORT ?= 8001
docs: $(STAMP)
	$(BIN)/sphinx-build -E -q -W --keep-going -n -b html docs docs/_build/html

docs-reference: $(STAMP)
	$(BIN)/python scripts/docs_reference.py

docs-serve: docs
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory docs/_build/html $(DOCS_PORT)

clean:
	rm -rf $(VENV) demo-out build audit/*.so audit/dialects/*.so audit/engine/*.so audit/store/*.so $(NATIVE)
