PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench clean

$(BIN)/tfpolicy: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

# A demo command whose exit code is part of the show (1: findings, 75: wait) says so
# instead of make's "Error 1 (ignored)"; any other code stops the demo.
demo_exit = code=$$?; if [ $$code -eq $(1) ]; then echo "(exit $(1): $(2), as intended)"; \
	else echo "(exit $$code: the demo did not expect that)"; exit $$code; fi

demo: $(BIN)/tfpolicy
	@echo "== tfpolicy apply -p takeover examples/manifests (first lines of the stream)"
	$(BIN)/tfpolicy apply -p takeover examples/manifests > .demo-takeover.yaml
	head -n 40 .demo-takeover.yaml && rm -f .demo-takeover.yaml
	@echo "== tfpolicy check -p rightsize-example examples/manifests (what fix would change)"
	@$(BIN)/tfpolicy check -p rightsize-example examples/manifests; \
	$(call demo_exit,1,findings: what fix would change)
	@echo "== tfpolicy recommend: measured usage (an offline Prometheus answer file) to a rightsize policy"
	$(BIN)/tfpolicy recommend --metrics examples/metrics/example-fleet-2d.json examples/manifests > .demo-rightsize.yaml
	head -n 30 .demo-rightsize.yaml
	@echo "== tfpolicy plan -p <the recommended policy>: each step proved against examples/inventory.yaml"
	$(BIN)/tfpolicy plan -p .demo-rightsize.yaml --inventory examples/inventory.yaml examples/manifests > .demo-plan.txt
	sed -n '/^summary:/,$$p' .demo-plan.txt && rm -f .demo-rightsize.yaml .demo-plan.txt
	@echo "== tfpolicy plan: each step proved against examples/inventory.yaml"
	$(BIN)/tfpolicy plan -p rightsize-example --inventory examples/inventory.yaml examples/manifests
	@echo "== tfpolicy verify: the examples' cluster after the takeover step (a pod still waits)"
	@$(BIN)/tfpolicy verify -p takeover --inventory examples/inventory.yaml examples/manifests --cluster examples/cluster/after-takeover.yaml; \
	$(call demo_exit,75,wait: verify again later)
	@$(BIN)/tfpolicy verify -p takeover --inventory examples/inventory.yaml examples/manifests --cluster examples/cluster/after-takeover.yaml --format html -o verify.html; \
	$(call demo_exit,75,wait)
	@echo "== tfpolicy plan --format html: the report to open in a browser"
	$(BIN)/tfpolicy plan -p rightsize-example --inventory examples/inventory.yaml --format html -o plan.html examples/manifests
	@echo "== HTML reports written to $(CURDIR)/plan.html and $(CURDIR)/verify.html"

test: $(BIN)/tfpolicy
	$(BIN)/ruff check tfpolicy tests bench
	$(BIN)/mypy
	$(BIN)/pytest

bench: $(BIN)/tfpolicy
	$(BIN)/python bench/run.py
	$(BIN)/python bench/bench_scheduler.py
	$(BIN)/python bench/bench_plan.py

clean:
	rm -rf $(VENV) build *.egg-info bench/out
