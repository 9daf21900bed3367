# pokertable: `make demo` and `make test` set up .venv themselves on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PROTOS := $(wildcard proto/pokertable/v1/*.proto)
NODE_TOOLS := tools/node
BUF := $(NODE_TOOLS)/node_modules/.bin/buf

.PHONY: demo test test-slow lint typecheck unit browser promtool bench clean events-proto ts-client

# The environment: uv (from PyPI, into the venv) installs the project and its pinned ranges, 7 s where pip took 44.
$(STAMP): pyproject.toml hatch_build.py $(PROTOS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "uv>=0.9,<1"
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/pokertable demo

# mypy (20 s of one core on a clean clone) runs beside the tests, which leave a quarter of the machine idle waiting.
# The time it all took, from the virtual environment's creation on, is printed last (issue 31: at most 10 minutes).
test:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory lint browser promtool && $(MAKE) --no-print-directory -j2 typecheck unit; \
	status=$$?; echo "make test: $$(( $$(date +%s) - start )) s in all, exit status $$status"; exit $$status

# Debian's Chromium for the pit dashboard's browser tests (Playwright drives it through its executable_path; no
# browser is downloaded by a test tool). Installed where missing when this runs as root; otherwise the tests say so
# (a visible skip; CI requires it).
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		(apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 || \
		 (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends chromium >/dev/null)) ; } || \
		echo "chromium is not installed: the browser tests will be skipped (make test as root installs it)"

# promtool from Debian's prometheus package, for the alert rules' tests (docs/ops/pokertable-alerts.rules.yml,
# tests/e2e/test_alert_rules.py): the package is fetched with apt-get download and only promtool is unpacked, into
# $(BIN) (no Prometheus server is installed or started). Where apt cannot fetch it the tests say so (a visible skip;
# CI requires it).
promtool: $(STAMP)
	@command -v promtool >/dev/null 2>&1 || [ -x $(BIN)/promtool ] || { command -v apt-get >/dev/null 2>&1 && \
		tmp=$$(mktemp -d) && chmod 755 $$tmp && \
		( (cd $$tmp && apt-get download -q prometheus >/dev/null 2>&1) || \
		  ([ "$$(id -u)" = 0 ] && apt-get update -q >/dev/null 2>&1 && cd $$tmp && apt-get download -q prometheus >/dev/null 2>&1) ) && \
		dpkg-deb --fsys-tarfile $$tmp/prometheus_*.deb | tar -xO ./usr/bin/promtool > $(BIN)/promtool.part && \
		chmod 755 $(BIN)/promtool.part && mv $(BIN)/promtool.part $(BIN)/promtool; rm -rf $$tmp; [ -x $(BIN)/promtool ] ; } || \
		echo "promtool is not installed: the alert rules' tests will be skipped (make test with apt installs it)"

lint: $(STAMP) $(BUF)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BUF) lint
	$(BIN)/python -m service.grpc.event_messages --check

# buf (pinned in tools/node/package.json and package-lock.json) from the npm registry
$(BUF): $(NODE_TOOLS)/package.json $(NODE_TOOLS)/package-lock.json
	npm install --prefix $(NODE_TOOLS) --no-audit --no-fund
	touch $(BUF)

# The second-language client (issue 14): TypeScript generated from proto/ alone (protoc-gen-es, Connect for Node,
# TypeScript; pinned in tools/node), compiled to clients/typescript/dist. tests/e2e/test_second_language_client.py runs it.
TS_CLIENT := clients/typescript
NODE_STAMP := $(NODE_TOOLS)/node_modules/.installed

$(NODE_STAMP): $(NODE_TOOLS)/package.json $(NODE_TOOLS)/package-lock.json
	npm install --prefix $(NODE_TOOLS) --no-audit --no-fund --prefer-offline
	touch $(NODE_STAMP)

ts-client: $(TS_CLIENT)/dist/deal.js

$(TS_CLIENT)/dist/deal.js: $(NODE_STAMP) $(PROTOS) $(TS_CLIENT)/buf.gen.yaml $(TS_CLIENT)/tsconfig.json $(TS_CLIENT)/src/deal.ts
	rm -rf $(TS_CLIENT)/src/gen $(TS_CLIENT)/dist
	$(BUF) generate --template $(TS_CLIENT)/buf.gen.yaml
	ln -sfn ../../$(NODE_TOOLS)/node_modules $(TS_CLIENT)/node_modules
	$(NODE_TOOLS)/node_modules/.bin/tsc -p $(TS_CLIENT)

# events.proto follows the domain's event classes: write it again after changing an event
events-proto: $(STAMP)
	$(BIN)/python -m service.grpc.event_messages --write

typecheck: $(STAMP)
	$(BIN)/mypy

# pytest (pyproject.toml: three workers, a test module each). The tests start the service and the command line as
# subprocesses a few hundred times: their modules are compiled once (into __pycache__), not again at every start,
# even where the environment sets PYTHONDONTWRITEBYTECODE (an empty value unsets it).
unit: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest

# The sampling tests (marker slow) at the full size they were written for (tests/support/sizes.py): each game's shift
# at the station of ten hands (seven in make test), 100,000 random hands of
# six and of seven cards against pokerkit, 500 PHH hands per variant, 100 random hands corrected (hypothesis);
# `make test` runs them on smaller samples (10,000, 75, 30).
test-slow: $(STAMP)
	PYTHONDONTWRITEBYTECODE= POKERTABLE_FULL_SIZE=1 $(BIN)/pytest -m slow

bench: $(STAMP)
	$(BIN)/python -m benchmarks.evaluator
	$(BIN)/python -m benchmarks.circle
	$(BIN)/python -m benchmarks.odds
	$(BIN)/python -m benchmarks.service
	$(BIN)/python -m benchmarks.devices
	$(BIN)/python -m benchmarks.replay
	$(BIN)/python -m benchmarks.audit
	$(BIN)/python -m benchmarks.flood
	$(BIN)/python -m benchmarks.station
	$(BIN)/python -m benchmarks.pit

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .import_linter_cache
