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

# Packages go in through uv (`uv pip install`) when it can be had, else through pip. uv is
# installed into the venv by pip from the package index; on a fresh venv it installed the dev
# extra with a tenth of pip's CPU time (benchmarks/results/ci_time.md). When uv cannot be
# installed, or fails, pip (upgraded first) does the install as before.
UV := $(VENV)/bin/uv
install = { [ -x "$(UV)" ] && "$(UV)" pip install --quiet --python "$(PY)" $(1); } \
	|| { $(PY) -m pip install --quiet --upgrade pip && $(PY) -m pip install --quiet $(1); }

$(PY):
	@interp="$$(scripts/find-python.sh)" || exit 1; \
	echo "using $$interp ($$($$interp --version))"; \
	[ -x "$(PY)" ] || "$$interp" -m venv "$(VENV)"
	-$(PY) -m pip install --quiet uv

$(STAMP): pyproject.toml | $(PY)
	$(call install,-e ".[fast]")
	@touch $(STAMP)

$(DEV_STAMP): pyproject.toml | $(PY)
	$(call install,-e ".[dev]")
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
