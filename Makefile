# make demo / make test: each creates .venv if missing and installs everything once (idempotent: a stamp file
# records the install; it is redone only when pyproject.toml or constraints.txt change).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
STAMP  := $(VENV)/.nlgmetrics-installed
DATA   ?= ../shared/data

export HF_HUB_OFFLINE=1
export TRANSFORMERS_OFFLINE=1
export HF_DATASETS_OFFLINE=1
export HF_HUB_DISABLE_TELEMETRY=1
export TOKENIZERS_PARALLELISM=false

.PHONY: install demo test bench bench-quick bench-memory validity clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# torch first, from the CPU wheel on disk; constraints.txt keeps it pinned for every later step.
	$(PIP) install -q -c constraints.txt torch==2.13.0
	$(PIP) install -q -c constraints.txt -e ".[all,dev]"
	# offline resources (WordNet, punkt tables) into the package's data cache; never downloads.
	$(PY) -m nlgmetrics.resources prepare
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m nlgmetrics.demo

test: $(STAMP)
	$(PY) -m pytest tests

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
