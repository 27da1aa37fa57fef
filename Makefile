# Checkmate testbed -- p4lang/tutorials-style targets.
#   make run    the main job: Mininet testbed, embedded switch, a trainer failure, bit-identical resume
#   make test   the whole test suite
# Both call `make setup` first, so each works as the single command on a fresh machine.

PYTHON_SYS ?= python3
VENV       ?= .venv
PY         := $(VENV)/bin/python
PIP        := $(PY) -m pip
APT_PKGS   := mininet bridge-utils ethtool iputils-ping iproute2 gcc libc6-dev
STAMP      := $(VENV)/.installed
P4SRC      := p4src/checkmate.p4
BUILD_DIR  := build
PYTEST_ARGS ?= --durations=40

.PHONY: all setup apt run test bench build stop clean distclean conformance-report

all: build

setup: $(STAMP)

# Debian packages, only when root and only those missing.
apt:
	@if [ "$$(id -u)" = 0 ]; then \
	  missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then echo "apt-get install:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null; fi; \
	else echo "not root: skipping apt packages ($(APT_PKGS)); Mininet tests need root"; fi

$(STAMP): pyproject.toml
	@$(MAKE) --no-print-directory apt
	@test -x $(PY) || $(PYTHON_SYS) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[test,mininet]'
	$(PY) tools/regen_p4runtime_protos.py
	$(PY) -c 'from trainer_hooks import ring_native; ring_native.main()'
	$(PY) -c 'from shadow import adam_native, ingest_native; adam_native.main(); ingest_native.main()'
	@touch $@

# build/ holds each target's pair side by side (controller/artifacts.py): the embedded one always,
# checkmate.bmv2.{json,p4info.txtpb} from real p4c when it is on PATH.  Nothing to clean in between.
build: setup
	$(PY) -m controller.artifacts $(P4SRC) -o $(BUILD_DIR)

run: setup
	$(VENV)/bin/checkmate testbed

# Two pytest processes side by side: the root (network) tests one at a time, and the rest (tools/run_suite.py).
test: setup
	$(PY) tools/run_suite.py $(PYTEST_ARGS)

# Runs tests/differential against real p4c + BMv2 (PATH) and rewrites the counts in docs/CONFORMANCE.md.
conformance-report: setup
	$(PY) tools/conformance_report.py

bench: setup
	$(VENV)/bin/checkmate bench --with-scale

# Stops only what this project started (processes recorded under logs/), never `mn -c`.
stop:
	@if [ -x $(VENV)/bin/checkmate ]; then $(VENV)/bin/checkmate testbed --stop || true; fi

clean:
	rm -rf build logs pcaps results

distclean: clean
	rm -rf $(VENV) *.egg-info
