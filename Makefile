# fstpunct — `make` sets up .venv and compiles the grammars; `make test` runs the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UD_DIR ?= $(abspath ../shared/ud)
export FSTPUNCT_UD_DIR ?= $(UD_DIR)

GRAMMARS := $(wildcard grammars/*.rules)
CHANNELS := $(patsubst grammars/%.rules,build/%.fst,$(GRAMMARS))
COMPILER := $(wildcard fstpunct/fst/grammar.py fstpunct/fst/channel.py)

.PHONY: all install grammars test lint bench clean help
all: install grammars

# every grammars/LANG.rules compiled to build/LANG.fst (phony: grammars/ is also a folder)
grammars: $(CHANNELS)

install: $(VENV)/.installed
# the compiled modules (fstpunct/*/_*.pyx, with their .pxd declarations) are built by setup.py on
# install: rebuild when they change
$(VENV)/.installed: pyproject.toml setup.py $(wildcard fstpunct/*/_*.pyx fstpunct/*/_*.pxd)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,rephrase,dask]'
	touch $@

build/%.fst: grammars/%.rules $(COMPILER) $(VENV)/.installed
	@mkdir -p build
	$(BIN)/fstpunct compile $< -o $@

test: all
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check fstpunct tests bench scripts setup.py
	$(BIN)/python scripts/check_commits.py

# Speed and memory benchmarks (figures and ratios to their references, each measured in the
# same run; see RESULTS.md). The greedy parser's is timed with models/parser-en if it exists,
# against UDPipe 1 in the same run if results/tmp/udpipe-en.model exists (bench/udpipe_peer.py;
# ufal.udpipe, extra bench); the text pipeline's with the bundled tagger and parser (else
# models/tagger-en, models/parser-en). Last, the load-independent figures: instruction counts of
# decode and restoration against their references under callgrind (skipped without valgrind).
UDPIPE_MODEL = results/tmp/udpipe-en.model
bench: all $(VENV)/.bench
	OPENBLAS_NUM_THREADS=1 $(BIN)/python bench/treedp_speed.py
	$(BIN)/python bench/model_bench.py --floor --em
	$(BIN)/python bench/decode_profile.py
	$(BIN)/python bench/parallel_bench.py 2>/dev/null
	if [ -d models/parser-en ]; then $(BIN)/python bench/parser_bench.py --model models/parser-en \
	  $(if $(wildcard $(UDPIPE_MODEL)),--udpipe $(UDPIPE_MODEL) --rounds 3) \
	  | grep -E "greedy|UDPipe|word_uas"; fi
	$(BIN)/python bench/restore_speed.py 2>/dev/null
	$(BIN)/python bench/text_bench.py 2>/dev/null
	nice -n 10 $(BIN)/python bench/memory_bench.py
	$(BIN)/python bench/instructions.py --restore

# the benchmarks' extra (UDPipe 1, the parser's peer; matplotlib)
$(VENV)/.bench: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[bench]'
	touch $@

clean:
	rm -rf build

help:
	@echo "make, make all  make install, then make grammars"
	@echo "make install    set up .venv: the package, its extras, its compiled modules"
	@echo "make grammars   compile every grammars/LANG.rules into build/LANG.fst (fstpunct compile)"
	@echo "make test       run the test suite (builds first)"
	@echo "make lint       ruff over fstpunct, tests, bench, scripts; commits the results cite"
	@echo "make bench      the speed and memory benchmarks (long; see RESULTS.md)"
	@echo "make clean      remove build/ (the compiled channels)"
	@echo "UD_DIR=DIR      the UD release folder the tests and benchmarks read (default ../shared/ud)"
