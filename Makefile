# Whatif: `make run` serves the app with a worker; `make test` runs every test.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

# make test uses this machine's PostgreSQL and Redis (started below when they are down).
WHATIF_DEPS ?= locked
TEST_ENV := DATABASE_URL=postgres://postgres@127.0.0.1:5432/whatif \
	REDIS_URL=redis://127.0.0.1:6379/0 \
	FAST_PASSWORD_HASHER=true WHATIF_DEPS=$(WHATIF_DEPS)

# Installs are reproducible: exact versions with hashes from the lock files in requirements/
# (app.txt for the app, dev.txt adds what tests need); `make lock` refreshes them.
LOCK_APP := requirements/app.txt
LOCK_DEV := requirements/dev.txt
UV_VERSION := 0.13.9
# pip prints a warning per file:// index of this machine's pip.conf that is not a directory index.
QUIET_PIP := { grep -v "is ignored: it is neither" || true; }

.PHONY: run test test-latest pytest test-deps services bench bench-quick lock

$(PY):
	python3 -m venv $(VENV)

# --no-deps: the lock holds every dependency, so nothing outside it is installed; the project
# itself goes in last, built with the locked setuptools (no build isolation, nothing unpinned).
$(VENV)/.installed: pyproject.toml $(LOCK_APP) | $(PY)
	$(PY) -m pip install -q --require-hashes --no-deps -r $(LOCK_APP) 2>&1 | $(QUIET_PIP)
	$(PY) -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | $(QUIET_PIP)
	$(PY) -m pip check
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(LOCK_DEV) | $(PY)
	$(PY) -m pip install -q --require-hashes --no-deps -r $(LOCK_DEV) 2>&1 | $(QUIET_PIP)
	$(PY) -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | $(QUIET_PIP)
	$(PY) -m pip check
	touch $(VENV)/.installed $@

# Re-resolve both lock files from pyproject.toml (newest versions its bounds allow), with hashes
# for every platform. Run it, then `make test`, and commit requirements/ with the result.
lock: | $(PY)
	$(PY) -m pip install -q "uv==$(UV_VERSION)" 2>&1 | $(QUIET_PIP)
	$(VENV)/bin/uv pip compile pyproject.toml requirements/build.in --universal --python-version 3.11 \
		--generate-hashes --upgrade --custom-compile-command "make lock" -o $(LOCK_APP)
	$(VENV)/bin/uv pip compile pyproject.toml requirements/build.in --extra dev --universal \
		--python-version 3.11 --generate-hashes --upgrade --custom-compile-command "make lock" \
		-c $(LOCK_APP) -o $(LOCK_DEV)

run: $(VENV)/.installed
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py load_examples
	@# The worker gets a session of its own (so Ctrl-C reaches only runserver) and is stopped by the trap.
	@setsid $(PY) -m celery -A webapp worker -B -l info --concurrency 2 \
		-s .data/celerybeat-schedule > .data/worker.log 2>&1 < /dev/null & WORKER=$$!; \
	trap 'kill -TERM $$WORKER 2>/dev/null; \
		for i in $$(seq 150); do kill -0 $$WORKER 2>/dev/null || break; sleep 0.1; done; \
		kill -KILL -- -$$WORKER 2>/dev/null; echo "worker stopped"' EXIT; \
	trap 'exit 0' INT TERM; \
	echo ""; \
	echo "  Whatif is at http://127.0.0.1:$(PORT)/  (log in as demo / demo)"; \
	echo "  API docs: http://127.0.0.1:$(PORT)/api/docs/   worker log: .data/worker.log"; \
	echo ""; \
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

test-deps:
	@pkgs=(); \
	[ -x /usr/bin/chromium ] || pkgs+=(chromium); \
	command -v docker-compose >/dev/null || pkgs+=(docker-compose); \
	command -v redis-server >/dev/null || pkgs+=(redis-server); \
	ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || pkgs+=(postgresql); \
	if [ $${#pkgs[@]} -gt 0 ]; then \
		echo "apt-get install $${pkgs[*]}"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "$${pkgs[@]}" >/dev/null; \
	fi

services:
	@if ! pg_isready -q -h 127.0.0.1 -p 5432; then \
		pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql | sort -V | tail -1) main start; \
	fi
	@if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then \
		redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no; \
	fi
	@for i in $$(seq 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done; pg_isready -h 127.0.0.1 -p 5432
	@for i in $$(seq 50); do redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done; \
		redis-cli -h 127.0.0.1 -p 6379 ping
	@psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'whatif'" | grep -q 1 \
		|| createdb -h 127.0.0.1 -U postgres whatif

test: test-deps $(VENV)/.installed-dev services
	@$(MAKE) --no-print-directory pytest

# The whole suite against the newest versions pyproject.toml allows (not the lock), in a venv of
# its own: run it on a schedule (docs/dependencies.md) so an upstream change is found on purpose.
test-latest: test-deps services
	rm -rf .venv-latest && python3 -m venv .venv-latest
	.venv-latest/bin/pip install -q --upgrade pip setuptools wheel 2>&1 | $(QUIET_PIP)
	.venv-latest/bin/pip install -q --upgrade --upgrade-strategy eager -e ".[dev]" 2>&1 | $(QUIET_PIP)
	mkdir -p test-artifacts && .venv-latest/bin/pip freeze --exclude-editable > test-artifacts/latest-versions.txt
	@$(MAKE) --no-print-directory pytest PY=.venv-latest/bin/python WHATIF_DEPS=latest

# Checks and the suite with the interpreter in PY (the locked .venv unless told otherwise).
pytest:
	$(TEST_ENV) $(PY) manage.py check --fail-level WARNING
	$(TEST_ENV) $(PY) manage.py makemigrations --check --dry-run
	mkdir -p test-artifacts
	@set +e; $(TEST_ENV) $(PY) -m pytest -ra --durations=10; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "no tests were collected"; exit 1; fi; exit $$rc

# Benchmarks (not tests): generated clusters of 100 to 5,000 nodes; prints pods/s, peak memory,
# filter/score time and the ratio to a NumPy floor; then the web round trip of a 100-node
# scenario through a real worker, Redis and PostgreSQL. BENCH_ARGS="--quick" for a short run.
bench: $(VENV)/.installed services
	$(PY) -m tests.bench.run $(BENCH_ARGS)
	$(PY) -m tests.bench.run --sizes dense-5000 --modes results --budget-seconds 900 --memory-limit-mb 16000
	$(PY) -m tests.bench.web
	$(PY) -m tests.bench.web --size 1000 --runs 2 --pages
	$(PY) -m tests.bench.takeover --size 5000
	$(PY) -m tests.bench.web --size 5000 --runs 1 --edit --browser 7 --pause 2 --sweep 48

bench-quick: $(VENV)/.installed services
	$(PY) -m tests.bench.run --quick
	$(PY) -m tests.bench.web --runs 3
