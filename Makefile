# bayesjudge: `make example` sets everything up and runs the main job; `make test` runs the tests.
SHELL := bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
OUT ?= bayesjudge-report

.PHONY: setup setup-dev example test lint typecheck docs bench clean

# `make example` installs what the main job needs (the package and nutpie); every other target
# adds the test, docs and lint tools (the dev extra).
setup: $(STAMP)

setup-dev: $(DEV_STAMP)

$(PY):
	@interp="$$(scripts/find-python.sh)" || exit 1; \
	echo "using $$interp ($$($$interp --version))"; \
	[ -x "$(PY)" ] || "$$interp" -m venv "$(VENV)"
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[fast]"
	@touch $(STAMP)

$(DEV_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $(DEV_STAMP) $(STAMP)

example: setup
	$(VENV)/bin/bayesjudge report --out $(OUT)

lint: setup-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup-dev
	$(VENV)/bin/mypy

# the tests run on every core (pytest-xdist, a test module to a worker); `$(PY) -m pytest` alone
# runs them one after another, as before
test: lint typecheck
	$(PY) -m pytest -q -n auto --dist loadscope

docs: setup-dev
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html
	$(PY) scripts/check_docs_offline.py docs/_build/html

bench: setup-dev  # the quick set; `$(PY) benchmarks/run.py` runs every bench_*.py in full
	$(PY) benchmarks/run.py --quick

clean:
	rm -rf $(VENV) docs/_build .pytest_cache .mypy_cache .ruff_cache build dist *.egg-info
