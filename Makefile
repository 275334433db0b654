# bayesjudge: `make example` sets everything up and runs the main job; `make test` runs the tests.
SHELL := bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
OUT ?= bayesjudge-report

.PHONY: setup example test lint typecheck docs bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml scripts/find-python.sh
	@interp="$$(scripts/find-python.sh)" || exit 1; \
	echo "using $$interp ($$($$interp --version))"; \
	[ -x "$(PY)" ] || "$$interp" -m venv "$(VENV)"
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

example: setup
	$(VENV)/bin/bayesjudge report --out $(OUT)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	$(VENV)/bin/mypy

test: lint typecheck
	$(PY) -m pytest -q

docs: setup
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html
	$(PY) scripts/check_docs_offline.py docs/_build/html

bench: setup
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) docs/_build .pytest_cache .mypy_cache .ruff_cache build dist *.egg-info
