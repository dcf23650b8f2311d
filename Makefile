# Quickstart targets: `make run` (set up, then the main job) and `make test` (set up, then the tests).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench train-bench random-games play web clean

$(STAMP): pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -c constraints.txt -e ".[dev,train,play]"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/python evaluate.py

test: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

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
	rm -rf $(VENV) .pytest_cache .ruff_cache
