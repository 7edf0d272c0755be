#!/usr/bin/env bash
# The main job: install pbem into .venv (first run only) and play the complete
# El Alamein example game from scratch into out/el-alamein, writing every
# side's report, map and e-mail, then verify the log; then play it again by
# e-mail through a mail host.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install requirements.lock      # the locked versions; only on the first run or after a change
game="${1:-el-alamein}"
rm -rf "out/$game"            # generated output: always played afresh
.venv/bin/pbem play "examples/$game" --into "out/$game"
.venv/bin/pbem verify "out/$game"
# The same game again, entirely by e-mail: a host on the embedded defaults
# (Maildir in, .eml outbox out) and two scripted players (PBEM_NO_MAIL=1 skips it).
if [ -z "${PBEM_NO_MAIL:-}" ]; then
  rm -rf "out/$game-by-mail"
  .venv/bin/pbem mail demo "examples/$game" --into "out/$game-by-mail"
fi
