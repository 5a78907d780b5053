PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench clean

$(BIN)/tfpolicy: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

demo: $(BIN)/tfpolicy
	$(BIN)/tfpolicy apply -p takeover examples/manifests

test: $(BIN)/tfpolicy
	$(BIN)/ruff check tfpolicy tests bench
	$(BIN)/mypy
	$(BIN)/pytest

bench: $(BIN)/tfpolicy
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build *.egg-info
