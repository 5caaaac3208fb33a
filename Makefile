# evalkit: two commands reproduce everything (make reproduce) and pass the tests (make test).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DATASET ?= synthetic
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: install reproduce test lab bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

# the benchmarks' peers (ranx), on top of the test extras
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	touch $(BENCH_STAMP)

## Execute every notebook on DATASET (synthetic, trec8 or a directory) and write outputs/<dataset>/index.html
reproduce: install
	$(BIN)/evalkit notebooks run --dataset $(DATASET)

## Unit tests, trec_eval oracle comparisons, and every notebook executed by papermill in fast mode
test: install
	@$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

## JupyterLab on the notebooks, widgets working
lab: install
	$(BIN)/jupyter lab notebooks/

## Benchmarks: ratios against peers measured in the same run (bench/README.md)
bench: $(BENCH_STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) outputs .pytest_cache
