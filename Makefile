# Quickstart targets: `make run` (set up, then the main job) and `make test` (set up, then the tests).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The RLlib backend's venv (train.py --backend rllib, tests/test_rllib.py): its own, because ray[rllib]
# 2.60 pins gymnasium 1.2.2 and the main venv keeps the newest gymnasium (docs/distributed.md)
RAY_VENV := .venv-ray
RAY_STAMP := $(RAY_VENV)/.installed
# Where torch (the version pinned in constraints.txt) comes from: by default PyTorch's CPU wheel
# index, the CPU build (one ~190 MB wheel, no CUDA libraries). TORCH_INDEX= (empty) takes it from
# pip's own indexes instead: on PyPI that is the CUDA build on Linux (~2.7 GB with its nvidia-*,
# cuda-* and triton wheels); or name another index, e.g. TORCH_INDEX=https://download.pytorch.org/whl/cu130.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
# cpu: fail if the torch installed is a CUDA build (the default with a CPU index); any: just say which
TORCH_BUILD ?= $(if $(filter %/cpu,$(TORCH_INDEX)),cpu,any)
TORCH_VERSION := $(shell sed -n 's/^torch==\([^ #]*\).*/\1/p' constraints.txt)
# From TORCH_INDEX pip tries each address once (--retries 1 --timeout 15; its default retries an
# unreachable index 5 times). If that install fails, torch comes from pip's own sources instead: the
# CPU build (torch==VERSION+cpu, e.g. a local wheel) where TORCH_BUILD=cpu; if they have none, the
# set-up stops with the one-line escape (never a silent 2.7 GB CUDA download).
TORCH_FALLBACK = { spec="torch==$(TORCH_VERSION)$(if $(filter cpu,$(TORCH_BUILD)),+cpu)"; \
	echo "note: torch could not be installed from $(TORCH_INDEX): trying $$spec from pip's own sources" >&2; \
	$(1)/pip install -q -c constraints.txt "$$spec" || { \
	echo "error: no $$spec in pip's own sources either. Reach $(TORCH_INDEX), or take torch from pip's sources as they are:" >&2; \
	echo "  make $(or $(MAKECMDGOALS),setup) TORCH_INDEX=    (on Linux, PyPI's CUDA build: ~2.7 GB)" >&2; exit 1; }; }
define install_torch
	$(1)/pip install -q $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX) --retries 1 --timeout 15) -c constraints.txt torch$(if $(TORCH_INDEX), || $(call TORCH_FALLBACK,$(1)))
endef

# the documentation site: strict (-W: any warning fails; -n: every cross-reference must resolve), rebuilt
# from scratch (-E) so every page's warnings show on every run; output in docs/_build (git-ignored)
DOCS_OUT ?= docs/_build/html
SPHINX := $(BIN)/sphinx-build -E -W --keep-going -n -q -b html docs $(DOCS_OUT)

.PHONY: setup setup-ray run test test-ray ray-cluster lint bench train-bench random-games play web docs clean

$(STAMP): pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(call install_torch,$(BIN))
	$(BIN)/pip install -q -c constraints.txt -e ".[dev,train,play,docs]"
	$(BIN)/python -c 'import sys, torch; c = torch.version.cuda; print("torch", torch.__version__, f"(CUDA {c} build)" if c else "(CPU build)"); sys.exit("error: a CUDA build of torch, not the CPU build" if c and sys.argv[1] == "cpu" else 0)' $(TORCH_BUILD)
	touch $(STAMP)

setup: $(STAMP)

$(RAY_STAMP): pyproject.toml constraints.txt
	$(PY) -m venv $(RAY_VENV)
	$(RAY_VENV)/bin/pip install -q --upgrade pip
	$(call install_torch,$(RAY_VENV)/bin)
	$(RAY_VENV)/bin/pip install -q -c constraints.txt -e ".[dev,train,ray]"
	$(RAY_VENV)/bin/pip check
	touch $(RAY_STAMP)

setup-ray: $(RAY_STAMP)

run: setup
	$(BIN)/python evaluate.py

test: setup setup-ray
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(SPHINX)
	$(BIN)/python -m pytest
	$(RAY_VENV)/bin/python -m pytest -m rllib tests/test_rllib.py tests/test_examples.py

# only the RLlib tests (in .venv-ray; make test runs them too)
test-ray: setup-ray
	$(RAY_VENV)/bin/python -m pytest -m rllib tests/test_rllib.py tests/test_examples.py

# a two-node Ray cluster on this machine: a short RLlib run with env runners on both nodes (benchmarks/ray_cluster.py)
ray-cluster: setup-ray
	$(RAY_VENV)/bin/python benchmarks/ray_cluster.py

# the documentation site, built strictly into docs/_build/html (open index.html there)
docs: setup
	$(SPHINX)

play: setup
	$(BIN)/python play.py

web: setup
	$(BIN)/python play.py --web

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: setup
	$(BIN)/python benchmarks/env_speed.py

train-bench: setup
	$(BIN)/python benchmarks/training_speed.py

random-games: setup
	$(BIN)/python benchmarks/random_games.py --games 10000

clean:
	rm -rf $(VENV) $(RAY_VENV) .pytest_cache .ruff_cache docs/_build
