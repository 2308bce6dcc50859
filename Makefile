# thermocomp: `make demo` sets everything up and compensates the paper's IRB140 case;
# `make test` runs the tests (those marked slow left out; `make test-all` runs every one);
# `make bench` runs the benchmarks.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test test-all bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# uv installs what pyproject.toml lists, as pip would, but downloads and unpacks in parallel: about 16 s
	# against pip's 57 s here (the wheels are 400 MB). Where uv cannot run or reach the index (it reads no
	# pip.conf: a private mirror), pip does it. Neither writes bytecode: the warm-up below writes that of the
	# modules the commands import, not of the dependencies' thousands of others.
	( $(PY) -m pip install --quiet "uv>=0.4" && \
	  $(VENV)/bin/uv pip install --quiet --python $(PY) --editable ".[test]" ) || \
	  $(PY) -m pip install --quiet --no-compile --editable ".[test]"
	@echo "compiling the kinematics engine and the results writer for this machine, with the bytecode of the commands (once; cached)"
	$(PY) -m thermocomp.warm_up
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	mkdir -p out
	$(VENV)/bin/thermocomp compensate --robot irb140 \
		--deformation deformations/exaggerated.csv \
		--targets examples/targets_random50.csv \
		--out out/irb140_exaggerated_transient.csv \
		--plot out/irb140_exaggerated_transient.png

# lint-imports checks the floors (pyproject.toml [tool.importlinter], docs/architecture.md): an upward import fails.
# pytest-xdist spreads the tests over this machine's cores (-n auto).
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q -n auto -m "not slow"

test-all: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q -n auto

bench: $(STAMP)
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) build out .pytest_cache
