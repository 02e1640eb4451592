# One command for everything: `make test` installs what is missing and runs every check.
# Targets: deps venv collections lint import sanity units awx faults fuzz molecule report images bench demo runner
#          runner-full compat
# A timing line per step ("== <step>: ok in 12.3s") shows where the time goes.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

ROOT := $(CURDIR)
# Debian packages the tests need (containers for Molecule, openssl for TLS fixtures,
# shellcheck for the scripts, chromium for the fleet report's browser test).
APT_PACKAGES ?= podman runc debootstrap openssl shellcheck chromium
ANSIBLE_WHEEL ?= 14.5.0
ANSIBLE_WHEEL_LEGACY ?= 9.13.0
COLLECTIONS ?= containers.podman community.general community.library_inventory_filtering_v1 ansible.posix
# The runner check in `make test`: Python 2.7, 3.6 (RHEL 7) and 3.12 (a current host), pipelining
# on and off; `make runner-full` adds 3.7 and 3.8 and the other seven modes (about 30 min here)
RUNNER_ARGS ?= --targets 2.7,3.6,3.12 --modes pipelining,no-pipelining
# ansible-core 2.19 and 2.20 (between .venv-legacy's 2.16 and .venv's 2.21; tools/core-venv): the
# sanity tests that read the collection with each release's own rules, and the unit tests of the
# code that runs inside ansible-core on the controller (action plugins, argument checks, payload)
COMPAT_CORES ?= 2.19.14 2.20.10
COMPAT_SANITY ?= --test compile --test validate-modules
COMPAT_UNITS ?= tests/unit/plugins/action/ tests/unit/plugins/plugin_utils/test_module_action.py \
                tests/unit/roles/test_policy_facts.py
# Python versions of the unit test runs (sanity covers every version each core supports)
UNITS_PYTHONS ?= 3.12 3.13
UNITS_PYTHONS_LEGACY ?= 2.7 3.6

VENV := $(ROOT)/.venv
VENV_LEGACY := $(ROOT)/.venv-legacy
VENV_AWX := $(ROOT)/.venv-awx
COMMA := ,
PIP_FILTER := sed -u '/neither a file nor a directory/d'
TIMED := $(ROOT)/tools/timed

# The environment the scripts share (ANSIBLE_HOME and the collections paths inside the
# checkout, .cache/self, ...) is set in one place, tools/env, which every script sources.
export PEP493_VENV := $(VENV)
export PEP493_VENV_LEGACY := $(VENV_LEGACY)
export PEP493_VENV_AWX := $(VENV_AWX)

.PHONY: help test deps venv collections interpreters lint import sanity sanity-2.21 sanity-2.16 report \
        units units-2.21 units-2.16 awx faults fuzz molecule images bench demo lock clean runner \
        runner-full compat

help:
	@echo "make test         everything below, in order (installs what is missing)"
	@echo "make deps         Debian packages: $(APT_PACKAGES)"
	@echo "make venv         .venv (ansible-core 2.21, Python 3.12), .venv-legacy (2.16, Python 3.11), .venv-awx (runner, builder)"
	@echo "make collections  $(COLLECTIONS) into .collections"
	@echo "make lint         antsibull-nox (ansible-lint, flake8, yamllint, docs-check, extra checks), shellcheck, changelog"
	@echo "make import       build the tarball and run galaxy-importer on it (Galaxy's import checks)"
	@echo "make sanity       ansible-test sanity with ansible-core 2.21 and 2.16"
	@echo "make units        ansible-test units with 2.21 (Python 3.12, 3.13) and 2.16 (2.7, 3.6)"
	@echo "make awx          the audit as AWX job slices through ansible-runner, the report job; ansible-builder introspect"
	@echo "make faults       fault tests + short fuzz (tests/faults/run); make fuzz: the long fuzz profile"
	@echo "make images       local container images (molecule/images/build); make molecule: molecule/run"
	@echo "make report       the fleet report on the demo fleet, checked in headless Chromium"
	@echo "make runner       every module from 2.16, 2.19, 2.20, 2.21 on Python 2.7, 3.6, 3.12 against 2.16's own payload"
	@echo "                  (tests/runner/run $(RUNNER_ARGS)); make runner-full: every target and mode"
	@echo "make compat       sanity (compile, validate-modules) and the controller-side units with ansible-core 2.19 and 2.20"
	@echo "make bench        benchmarks/run; make demo: tools/demo"
	@echo "make lock         re-resolve requirements*.txt and requirements/nox/*.in into pinned files"

# Set-up steps stop the run when they fail; every check runs even after another failed,
# and the run fails if any did. Each check runs under tools/home-check, which fails it when it
# wrote under the home directory's .ansible (the real home stays as it was).
SETUP_STEPS := deps venv collections
CHECK_STEPS := lint import sanity units runner compat awx faults molecule report
test:
	@mkdir -p .cache; export TIMING_LOG=$(ROOT)/.cache/timing.log; : > $$TIMING_LOG; \
	start=$$(date +%s); failed=""; \
	for step in $(SETUP_STEPS); do \
	    $(TIMED) $$step $(MAKE) --no-print-directory $$step || { failed=$$step; break; }; \
	done; \
	if [[ -z $$failed ]]; then for step in $(CHECK_STEPS); do \
	    $(TIMED) $$step tools/home-check $$step $(MAKE) --no-print-directory $$step || failed="$$failed $$step"; \
	done; fi; \
	echo "== timing:"; cat $$TIMING_LOG; \
	if [[ -n $$failed ]]; then echo "== make test: FAILED ($$failed) in $$(( $$(date +%s) - start ))s" >&2; exit 1; fi; \
	echo "== make test: passed in $$(( $$(date +%s) - start ))s"

deps:
	@tools/deps $(APT_PACKAGES)

# --- virtual environments (rebuilt only when a requirement file changes) ---------------
venv: $(VENV)/.stamp $(VENV_LEGACY)/.stamp $(VENV_AWX)/.stamp interpreters

$(VENV)/.stamp: requirements.txt requirements/constraints.txt
	@$(TIMED) venv-2.21 tools/make-venv $(VENV) 3.12 requirements.txt requirements/constraints.txt

$(VENV_LEGACY)/.stamp: requirements-legacy.txt requirements/constraints-legacy.txt
	@$(TIMED) venv-2.16 tools/make-venv $(VENV_LEGACY) 3.11 requirements-legacy.txt requirements/constraints-legacy.txt

$(VENV_AWX)/.stamp: requirements/awx.txt requirements/constraints-awx.txt
	@$(TIMED) venv-awx tools/make-venv $(VENV_AWX) 3.12 requirements/awx.txt requirements/constraints-awx.txt

# real interpreters for ansible-test (pyenv shims fail under it), a Python 2.7 virtualenv,
# and ansible-test's pip bootstrap scripts (its own download host is unreachable)
interpreters: $(VENV)/.stamp
	@tools/setup-interpreters && $(VENV)/bin/python tools/get-pip-cache.py

# requirements/nox/<session>.in: what each antsibull-nox session installs; .txt: all of it pinned
lock:
	tools/make-venv --lock $(ROOT)/.cache/lock-venv 3.12 requirements.txt requirements/constraints.txt
	tools/make-venv --lock $(ROOT)/.cache/lock-venv-legacy 3.11 requirements-legacy.txt requirements/constraints-legacy.txt
	tools/make-venv --lock $(ROOT)/.cache/lock-venv-awx 3.12 requirements/awx.txt requirements/constraints-awx.txt
	for f in requirements/nox/*.in; do tools/make-venv --lock $(ROOT)/.cache/lock-venv-nox 3.12 $$f $${f%.in}.txt; done

# --- collections from the `ansible` wheel (no Galaxy) -----------------------------------
collections: $(VENV)/.stamp
	@tools/fetch-collections $(VENV)/bin/python $(ANSIBLE_WHEEL) .collections $(COLLECTIONS)
	@tools/fetch-collections $(VENV_LEGACY)/bin/python $(ANSIBLE_WHEEL_LEGACY) .collections/legacy $(COLLECTIONS)

# --- checks ------------------------------------------------------------------------------
lint: venv collections
	@tools/lint

import: venv collections
	@tools/lint --import

# both cores run even when the first one fails
sanity: venv
	@rc=0; $(TIMED) sanity-2.21 tools/sanity $(VENV) || rc=1; \
	$(TIMED) sanity-2.16 tools/sanity $(VENV_LEGACY) || rc=1; exit $$rc
sanity-2.21: venv
	@$(TIMED) sanity-2.21 tools/sanity $(VENV)
sanity-2.16: venv
	@$(TIMED) sanity-2.16 tools/sanity $(VENV_LEGACY)

units: venv
	@rc=0; $(TIMED) units-2.21 tools/units $(VENV) $(UNITS_PYTHONS) || rc=1; \
	$(TIMED) units-2.16 tools/units $(VENV_LEGACY) $(UNITS_PYTHONS_LEGACY) || rc=1; exit $$rc
units-2.21: venv
	@$(TIMED) units-2.21 tools/units $(VENV) $(UNITS_PYTHONS)
units-2.16: venv
	@$(TIMED) units-2.16 tools/units $(VENV_LEGACY) $(UNITS_PYTHONS_LEGACY)

# --- scripts owned elsewhere; each fails clearly while missing ---------------------------
define run-script
	@if [[ ! -x $(2) ]]; then echo "$(1): $(2) is missing or not executable" >&2; exit 1; fi
	@$(2) $(3)
endef

# AWX / Automation Platform without a controller: about a minute (tests/awx/run)
awx: venv collections
	$(call run-script,awx,tests/awx/run)

faults: venv collections
	$(call run-script,faults,tests/faults/run)
runner: venv
	$(call run-script,runner,tests/runner/run,$(RUNNER_ARGS))
runner-full: venv
	$(call run-script,runner-full,tests/runner/run,--targets 2.7$(COMMA)3.6$(COMMA)3.7$(COMMA)3.8$(COMMA)3.12)
compat: venv
	@rc=0; for core in $(COMPAT_CORES); do \
	    venv=$$(tools/core-venv $$core) || { rc=1; continue; }; \
	    $(TIMED) sanity-$$core tools/sanity $$venv $(COMPAT_SANITY) || rc=1; \
	    $(TIMED) units-$$core tools/units $$venv 3.12 -- $(COMPAT_UNITS) || rc=1; \
	done; exit $$rc
fuzz: venv collections
	$(call run-script,fuzz,tests/faults/run,--fuzz-long)
molecule: deps venv collections images
	$(call run-script,molecule,molecule/run)
images: deps
	$(call run-script,images,molecule/images/build)
report: deps venv collections images
	$(call run-script,report,tests/report/run)
bench: venv collections
	$(call run-script,bench,benchmarks/run)
demo: deps venv collections images
	$(call run-script,demo,tools/demo)

clean:
	rm -rf .venv .venv-legacy .venv-awx .collections .cache .nox tests/output
