# make demo / make test: each creates .venv if missing and installs everything once (idempotent: a stamp file
# records the install; it is redone only when pyproject.toml or constraints.txt change).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
STAMP  := $(VENV)/.nlgmetrics-installed
BYTECODE := $(VENV)/.nlgmetrics-bytecode
# No .pyc at install time (compiling the ~22k installed files took ~100 s of a ~3 min install): Python writes them for
# the modules it imports, on first import, into one folder inside the venv (so none land in the checkout). Also where
# the environment sets PYTHONDONTWRITEBYTECODE: there nothing would ever write them, and every interpreter the tests
# start would recompile torch, transformers, ... from source.
export PYTHONPYCACHEPREFIX := $(abspath $(VENV))/pycache
unexport PYTHONDONTWRITEBYTECODE
DATA   ?= ../shared/data
# PyTorch's CPU wheels (Linux and macOS; PyPI's Linux torch pulls ~20 nvidia-*/cuda-* packages and triton).
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

export HF_HUB_OFFLINE=1
export TRANSFORMERS_OFFLINE=1
export HF_DATASETS_OFFLINE=1
export HF_HUB_DISABLE_TELEMETRY=1
export TOKENIZERS_PARALLELISM=false

.PHONY: install demo test bench bench-quick bench-memory validity clean

install: $(STAMP) $(BYTECODE)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# a recent pip (the one Python bundles may be old: pip 23.2 resolves the README's wheel line in ~55 s, 26.3 in ~20)
	$(PIP) install -q --no-compile --upgrade -c constraints.txt pip || echo "pip not upgraded: the install goes on with the venv's own"
	# torch first, a CPU build: a wheel pip finds on disk (find-links, no index: CI), else PyTorch's CPU index;
	# constraints.txt keeps it pinned for every later step, so no step pulls a CUDA build.
	$(PIP) install -q --no-compile --no-index --no-deps torch==2.13.0 2>/dev/null \
	  || $(PIP) install -q --no-compile --index-url $(TORCH_INDEX) torch==2.13.0
	# the rest with uv (its own PyPI client: ~30 s where pip takes ~95 s to resolve and unpack the same 125 packages,
	# version for version); pip where uv cannot be installed or cannot reach its index (pip's own configuration).
	$(PIP) install -q --no-compile -c constraints.txt uv && $(VENV)/bin/uv pip install -q --python $(PY) \
	  -c constraints.txt -e ".[all,dev]" \
	  || $(PIP) install -q --no-compile -c constraints.txt -e ".[all,dev]"
	# offline resources (WordNet, punkt tables) into the package's data cache; never downloads.
	$(PY) -m nlgmetrics.resources prepare
	touch $(STAMP)

# The same bytecode folder outside make (after `source .venv/bin/activate`, or .venv/bin/python): a .pth file in the
# venv sets sys.pycache_prefix to it unless PYTHONPYCACHEPREFIX names another, so Python reads it also where
# PYTHONDONTWRITEBYTECODE is set (common in containers: nothing is ever written beside the sources there, and
# `import evaluate` recompiled everything on every start); then the modules nearly every run imports are compiled
# into it once.
$(BYTECODE): $(STAMP) Makefile
	$(PY) -c "import pathlib, sysconfig; pathlib.Path(sysconfig.get_paths()['purelib'], '00-nlgmetrics-pycache.pth').write_text('import sys; sys.pycache_prefix = sys.pycache_prefix or %r\n' % '$(abspath $(VENV))/pycache')"
	$(PY) -c "import evaluate, nlgmetrics.cli, nlgmetrics.registry, nlgmetrics.lexical.bleu, nlgmetrics.lexical.rouge"
	touch $(BYTECODE)

demo: $(STAMP) $(BYTECODE)
	$(PY) -m nlgmetrics.demo

# one pytest worker per core, at most TEST_WORKERS (each worker holds its own torch and models); a file's tests stay
# on one worker, so its module fixtures (oracle runs, checkpoints, a Ray cluster) are built once; files go out in
# collection order (tests/conftest.py: slow files first), not reordered by test count. TEST_WORKERS=1: serial.
TEST_WORKERS ?= 4
test: $(STAMP) $(BYTECODE)
	$(PY) -m pytest $(if $(filter 1,$(TEST_WORKERS)),,-n auto --maxprocesses $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder) tests

bench: $(STAMP)
	$(PY) -m benchmarks.run --data $(DATA)

bench-quick: $(STAMP)
	$(PY) -m benchmarks.run --data $(DATA) --quick

# peak RSS of BERTScore/MoverScore over 10k and 100k pairs (slow on a small CPU: every distinct text is encoded)
bench-memory: $(STAMP)
	$(PY) -m benchmarks.bench_memory --data $(DATA)

validity: $(STAMP)
	$(PY) -m benchmarks.validity --data $(DATA)

clean:
	rm -rf $(VENV) build *.egg-info
