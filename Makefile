# The README's commands. Python 3.11; everything else is installed into .venv.
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
STAGE ?= dev
PYTEST_ARGS ?=
# make test's worker processes (pytest-xdist): auto is one a core, at most 4; TEST_WORKERS=0 runs in this process
TEST_WORKERS ?= auto

.PHONY: venv run worker moto test test-sqlite test-smoke-sqlite migrate openapi package bench fuzz fuzz-quick fuzz-functions clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) not found: install Python 3.11 or run make PYTHON=python3"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

migrate: venv
	$(PY) -m chalicelib.cli migrate

run: venv
	@$(PY) -m chalicelib.cli preflight --port $(PORT)
	$(PY) -m chalicelib.cli migrate
	$(VENV)/bin/chalice local --no-autoreload --host 127.0.0.1 --port $(PORT) --stage $(STAGE)

# The local queue worker: consumes NOTIFICATIONS_QUEUE_URL (a moto server or AWS) as the Lambda does.
# make worker WORKER_ARGS=--once: deliver what is queued, then stop.
WORKER_ARGS ?=
worker: venv
	$(PY) -m chalicelib.cli worker $(WORKER_ARGS)

# A moto server for S3 and SQS on MOTO_PORT (see the README's "Local AWS").
MOTO_PORT ?= 5000
moto: venv
	$(VENV)/bin/moto_server -H 127.0.0.1 -p $(MOTO_PORT)

test: venv
	$(PY) -m pytest -n $(TEST_WORKERS) --maxprocesses 4 $(PYTEST_ARGS)

test-sqlite: venv
	WMS_TEST_DB=sqlite $(PY) -m pytest $(PYTEST_ARGS)

test-smoke-sqlite: venv
	WMS_TEST_DB=sqlite $(PY) -m pytest -m smoke $(PYTEST_ARGS)

openapi: venv
	$(PY) -m chalicelib.cli openapi --output docs/openapi.json

# The deployable template: chalice package, then one function per area (infra/package.py).
package: venv
	$(PY) infra/package.py --stage $(STAGE) --output build/$(STAGE)

bench: venv
	$(PY) bench/run.py

fuzz: venv
	$(PY) bench/fuzz.py

# The bounded pass CI runs: 5 examples per operation, 120 s at most (so that CI's whole run stays under 20
# minutes), a fixed seed (so that CI is repeatable; `make fuzz` explores afresh each time); writes under build/.
fuzz-quick: venv
	$(PY) bench/fuzz.py --quick --time-cap 120 --seed 20261121 --openapi build/openapi.json --output build/fuzz-quick.json

# The same bounded pass against each area served alone, as its Lambda function is (WMS_MODULES=system,<area>:
# only its own and the core's models loaded): what loads only because another area did shows up here.
fuzz-functions: venv
	$(PY) bench/fuzz.py --quick --per-function --time-cap 120 --seed 20261121 --openapi build/openapi.json \
		--output build/fuzz-functions.json

clean:
	rm -rf $(VENV) .data build
