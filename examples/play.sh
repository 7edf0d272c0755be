#!/usr/bin/env bash
# The main job: install pbem into .venv (if needed) and play the complete
# El Alamein example game from scratch into out/el-alamein, writing every
# side's report, map and e-mail, then verify the log.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
game="${1:-el-alamein}"
rm -rf "out/$game"            # generated output: always played afresh
.venv/bin/pbem play "examples/$game" --into "out/$game"
.venv/bin/pbem verify "out/$game"
