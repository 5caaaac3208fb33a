# evalkit: two commands reproduce everything (make reproduce) and pass the tests (make test).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DATASET ?= auto
# Notebook parameters for make reproduce, e.g. PARAMS="phase1_depth=5 k=3" (quote a value with spaces: name='a b')
PARAMS ?=
# FAST=1: small sizes and few trials; NOTEBOOKS="00_tour 02_soboroff2007_pooled_vs_sampled": only those
FAST ?=
NOTEBOOKS ?=
# Extra options for jupyter lab, e.g. LAB_ARGS="--ip=0.0.0.0 --no-browser" in a container
LAB_ARGS ?=
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: install reproduce test lab bench clean solutions

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

## Execute every notebook on DATASET (auto: TREC-8 if found else synthetic; synthetic, trec8 or a directory) and write outputs/<dataset>/index.html.
## Every notebook runs even if one fails; exits non-zero at the end if any failed (skipped ones are not failures).
## DATASET, PARAMS, NOTEBOOKS and FAST reach evalkit through the environment, taken as written: make expands nothing
## in them ($(value ...); unexported, as make would expand a variable given on its command line to export it), so
## `$(shell ...)` in a value runs nothing; quotes and spaces need no shell escaping.
unexport DATASET PARAMS NOTEBOOKS FAST
reproduce: export EVALKIT_MAKE_DATASET = $(value DATASET)
reproduce: export EVALKIT_MAKE_PARAMS = $(value PARAMS)
reproduce: export EVALKIT_MAKE_NOTEBOOKS = $(value NOTEBOOKS)
reproduce: export EVALKIT_MAKE_FAST = $(value FAST)
reproduce: install
	set -f; $(BIN)/evalkit notebooks run --dataset="$$EVALKIT_MAKE_DATASET" --params="$$EVALKIT_MAKE_PARAMS" \
		$${EVALKIT_MAKE_FAST:+--fast} -- $$EVALKIT_MAKE_NOTEBOOKS

## The solutions notebooks for instructors: solutions/<notebook>_solutions.ipynb (the checkable exercises answered,
## from evalkit.classroom.exercises); notebooks/ stays the students' version
solutions: install
	$(BIN)/evalkit notebooks solutions

## Unit tests, trec_eval oracle comparisons, and every notebook executed by papermill in fast mode
test: install
	@$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

## JupyterLab on the notebooks, widgets working. As root (uid 0, e.g. in a container) Jupyter refuses to start
## without --allow-root: it is added here only then.
lab: install
	$(BIN)/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

## Benchmarks: ratios against peers measured in the same run (bench/README.md)
bench: $(BENCH_STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) outputs .pytest_cache
