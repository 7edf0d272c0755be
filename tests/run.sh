#!/usr/bin/env bash
# The test command: install pbem with its test extras into .venv, run pytest.
#
#   bash tests/run.sh                      the whole suite, on every core (pytest-xdist)
#   bash tests/run.sh tests/test_log.py -k flip      any pytest arguments
#   PBEM_TEST_WORKERS=0 bash tests/run.sh  in one process (so do -n N, -p no:xdist, --pdb, --sw)
#
# The install comes from requirements-test.lock (the versions the suite was run with;
# .ci/install says so in one line and does it only when the lock or pyproject.toml
# changed; pbem itself is installed editable: code changes need no install).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install requirements-test.lock
# Temporary files (every test's game directories) in memory when we can: the
# tests write and fsync thousands of small files, which on a busy disk can take
# longer than the tests' own work.  An explicit TMPDIR is left alone.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
# Run on every core (pytest-xdist, from the test extras) unless told otherwise: a -n
# of the caller's, no xdist, a debugger, stepwise.
workers="${PBEM_TEST_WORKERS:-auto}"
for a in "$@"; do
  case "$a" in
    -n|-n*|--numprocesses|--numprocesses=*|no:xdist|-pno:xdist|--pdb|--trace|--sw|--stepwise|--sw-skip|--stepwise-skip)
      workers=0 ;;
  esac
done
if [ "$workers" = 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
exec .venv/bin/python -m pytest -n "$workers" --dist worksteal "$@"
