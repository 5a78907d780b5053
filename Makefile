PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test quick lint typecheck bench clean dist images image-context base-image test-images

# Images (`make images`): the KRM function and the Argo CD sidecar, built with podman
# (PODMAN=docker works too) from wheels made here first, so the build itself needs no
# package index. BASE_IMAGE must have python3 with venv; IMAGE_PYTHON is its Python
# version (read from the image itself when left empty) and IMAGE_PLATFORMS the wheel
# platforms it runs, which compiled dependencies must match (pip does not widen a
# --platform to older manylinux levels itself).
PODMAN ?= podman
BASE_IMAGE ?= python:3.12-slim
IMAGE_PYTHON ?=
IMAGE_PLATFORMS ?= manylinux2014_x86_64 manylinux_2_28_x86_64 manylinux_2_34_x86_64
KRM_IMAGE ?= localhost/tfpolicy-krm:dev
CMP_IMAGE ?= localhost/tfpolicy-cmp:dev
# The sidecar's kubectl and helm as files on this machine; empty: the build downloads
# them; HELM_BIN=none: an image without helm (kustomize and plain-folder apps only).
KUBECTL_BIN ?=
HELM_BIN ?=
IMAGE_CONTEXT := build/image-context
# A base made from Debian packages (plugins/base-image.sh), for machines that reach a
# Debian archive but no image registry; the image tests build on it.
TEST_BASE_IMAGE ?= localhost/tfpolicy-base:bookworm

$(BIN)/tfpolicy: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

# A demo command whose exit code is part of the show (1: findings, 75: wait) says so
# instead of make's "Error 1 (ignored)"; any other code stops the demo.
demo_exit = code=$$?; if [ $$code -eq $(1) ]; then echo "(exit $(1): $(2), as intended)"; \
	else echo "(exit $$code: the demo did not expect that)"; exit $$code; fi

# git in the demo's scratch repository: its own identity, no user or system configuration.
demo: export GIT_CONFIG_GLOBAL = /dev/null
demo: export GIT_CONFIG_NOSYSTEM = 1
demo: export GIT_AUTHOR_NAME = demo
demo: export GIT_AUTHOR_EMAIL = demo@example.com
demo: export GIT_COMMITTER_NAME = demo
demo: export GIT_COMMITTER_EMAIL = demo@example.com
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
	@echo "== tfpolicy promote: a scratch git repository at takeover-1, the cluster soaked at step 01, gated on vLLM's latency and throughput (an offline answer file)"
	rm -rf .demo-promote .demo-pr.md && mkdir .demo-promote && cp -R examples/manifests .demo-promote/
	cp examples/gates/tfpolicy.yaml .demo-promote/.tfpolicy.yaml
	git -C .demo-promote init --quiet -b main
	$(BIN)/tfpolicy fix .demo-promote/manifests > /dev/null 2>&1 || test $$? -eq 1  # 1: it rewrote them
	git -C .demo-promote add -A
	GIT_COMMITTER_DATE=2026-11-30T08:00:00Z GIT_AUTHOR_DATE=2026-11-30T08:00:00Z \
	  git -C .demo-promote commit --quiet -m "GPU migration: takeover-1"
	$(BIN)/tfpolicy promote --inventory examples/inventory.yaml \
	  --cluster examples/cluster/takeover-1-soaked.yaml --metrics examples/gates/takeover-1-steady.json \
	  --commit --summary .demo-pr.md .demo-promote/manifests
	git -C .demo-promote log --oneline
	grep -n 'policies:' .demo-promote/.tfpolicy.yaml
	@echo "== the pull request's body (--summary), first lines"
	head -n 12 .demo-pr.md
	@echo "== the same rung again, the TensorFusion pod of llama-8b-vllm now twice as slow: a gate stops it"
	git -C .demo-promote reset --quiet --hard HEAD~1
	@$(BIN)/tfpolicy promote --inventory examples/inventory.yaml \
	  --cluster examples/cluster/takeover-1-soaked.yaml --metrics examples/gates/takeover-1-slow.json \
	  --commit .demo-promote/manifests; \
	$(call demo_exit,1,stop: a gate failed; the rollback rung is committed)
	git -C .demo-promote log --oneline -1
	grep -n 'policies:' .demo-promote/.tfpolicy.yaml
	rm -rf .demo-promote .demo-pr.md
	@echo "== tfpolicy promote up the rightsize ladder: the policy recommend wrote, at takeover-100 (rung: in .tfpolicy.yaml), the cluster soaked there"
	rm -rf .demo-ladder .demo-ladder-pr.md && mkdir .demo-ladder && cp -R examples/manifests .demo-ladder/
	$(BIN)/tfpolicy recommend --metrics examples/metrics/example-fleet-2d.json examples/manifests > .demo-ladder/rightsize.yaml 2> /dev/null
	cmp .demo-ladder/rightsize.yaml examples/ladder/rightsize.yaml  # the policy examples/cluster/ladder-takeover-soaked.yaml runs
	cp examples/ladder/tfpolicy.yaml .demo-ladder/.tfpolicy.yaml
	git -C .demo-ladder init --quiet -b main
	$(BIN)/tfpolicy fix .demo-ladder/manifests > /dev/null 2>&1 || test $$? -eq 1  # 1: it rewrote them
	git -C .demo-ladder add -A
	GIT_COMMITTER_DATE=2026-11-30T08:00:00Z GIT_AUTHOR_DATE=2026-11-30T08:00:00Z \
	  git -C .demo-ladder commit --quiet -m "GPU migration: takeover-100"
	$(BIN)/tfpolicy promote --inventory examples/inventory.yaml \
	  --cluster examples/cluster/ladder-takeover-soaked.yaml --commit --summary .demo-ladder-pr.md \
	  .demo-ladder/manifests > .demo-ladder.out 2>&1 || (cat .demo-ladder.out; exit 1)
	grep '^promote: ' .demo-ladder.out && rm -f .demo-ladder.out
	git -C .demo-ladder log --oneline
	grep -n 'rung:' .demo-ladder/.tfpolicy.yaml
	@echo "== the savings the plan promised at rightsize-1, in the pull request's body"
	grep -e '^- Savings' -e '^- Cost' .demo-ladder-pr.md
	rm -rf .demo-ladder .demo-ladder-pr.md
	@echo "== HTML reports written to $(CURDIR)/plan.html and $(CURDIR)/verify.html"

# Two workers: the suite waits on subprocesses (kpt, kubectl, podman, pre-commit, git)
# much of the time, and on a shared machine two processes get twice one's share. The
# image and package tests build this tree one at a time under a file lock
# (tests/images/treebuild.py), and every other test writes only under its own tmp_path
# and binds only free ports.
PYTEST_WORKERS ?= 2
PYTEST_PARALLEL = -n $(PYTEST_WORKERS)

test: $(BIN)/tfpolicy
	$(BIN)/ruff check tfpolicy tests bench
	$(BIN)/mypy
	$(BIN)/pytest $(PYTEST_PARALLEL)

# The inner loop: lint, types and the suite without the image and package builds.
quick: $(BIN)/tfpolicy
	$(BIN)/ruff check tfpolicy tests bench
	$(BIN)/mypy
	$(BIN)/pytest $(PYTEST_PARALLEL) -m "not images and not package"

# The wheel and the sdist people install (docs/install.md).
dist: $(BIN)/tfpolicy
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

# Wheels of tfpolicy (wheel/) and of its dependencies for IMAGE_PYTHON (deps/), and the
# sidecar's files.
# The base's Python version, asked of the base itself unless IMAGE_PYTHON says it; a base
# that cannot answer stops the build here, with the setting to add.
image_python = $(or $(IMAGE_PYTHON),$$($(PODMAN) run --rm --entrypoint python3 $(BASE_IMAGE) \
	-c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || { \
	echo "make: cannot run python3 in $(BASE_IMAGE): add IMAGE_PYTHON=<its version, e.g. 3.11>" >&2; \
	echo fail; }))

image-context: $(BIN)/tfpolicy
	@python="$(image_python)"; case "$$python" in 3.*) ;; *) exit 2 ;; esac; \
	echo "image Python: $$python ($(BASE_IMAGE))"; \
	rm -rf $(IMAGE_CONTEXT) && \
	mkdir -p $(IMAGE_CONTEXT)/wheel $(IMAGE_CONTEXT)/deps $(IMAGE_CONTEXT)/bin && \
	$(BIN)/pip wheel --quiet --no-deps --wheel-dir $(IMAGE_CONTEXT)/wheel . && \
	$(BIN)/pip download --quiet --only-binary=:all: --implementation cp \
	  --python-version "$$python" $(addprefix --platform ,$(IMAGE_PLATFORMS)) \
	  --dest $(IMAGE_CONTEXT)/deps $(IMAGE_CONTEXT)/wheel/tfpolicy-*.whl
	rm -f $(IMAGE_CONTEXT)/deps/tfpolicy-*.whl
	cp plugins/argocd/plugin.yaml $(IMAGE_CONTEXT)/
	$(if $(filter-out none,$(KUBECTL_BIN)),cp $(KUBECTL_BIN) $(IMAGE_CONTEXT)/bin/kubectl)
	$(if $(filter-out none,$(HELM_BIN)),cp $(HELM_BIN) $(IMAGE_CONTEXT)/bin/helm)

images: image-context
	$(PODMAN) build --build-arg PYTHON_IMAGE=$(BASE_IMAGE) \
	  -f plugins/krm/Dockerfile -t $(KRM_IMAGE) $(IMAGE_CONTEXT)
	$(PODMAN) build --build-arg PYTHON_IMAGE=$(BASE_IMAGE) \
	  --build-arg KUBECTL_FILE=$(if $(filter none,$(KUBECTL_BIN)),none,$(if $(KUBECTL_BIN),bin/kubectl)) \
	  --build-arg HELM_FILE=$(if $(filter none,$(HELM_BIN)),none,$(if $(HELM_BIN),bin/helm)) \
	  -f plugins/argocd/Dockerfile -t $(CMP_IMAGE) $(IMAGE_CONTEXT)

# The Debian-made base, built only when the engine's storage lacks it (a few minutes).
base-image:
	$(PODMAN) image exists $(TEST_BASE_IMAGE) || PODMAN=$(PODMAN) sh plugins/base-image.sh $(TEST_BASE_IMAGE)

# The images as the image tests run them: on the Debian-made base, with this machine's
# kubectl; no helm package exists for it, so the sidecar's Helm path is left out.
test-images: base-image
	$(MAKE) images BASE_IMAGE=$(TEST_BASE_IMAGE) \
	  KRM_IMAGE=localhost/tfpolicy-krm:test CMP_IMAGE=localhost/tfpolicy-cmp:test \
	  KUBECTL_BIN=$$(command -v kubectl) HELM_BIN=none

bench: $(BIN)/tfpolicy
	$(BIN)/python bench/run.py
	$(BIN)/python bench/bench_scheduler.py
	$(BIN)/python bench/bench_plan.py

clean:
	rm -rf $(VENV) build dist *.egg-info bench/out
