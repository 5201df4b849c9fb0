#!/usr/bin/env bash
# Rehearses CI before a session stops: a clean clone of main (nothing of this checkout's .build, no
# Package.resolved) in a fresh directory, `.ci/run` with CI=true and no standard input, as CI runs
# it, timed. CI must finish within 90 minutes; this prints the time it took here.
#   Scripts/rehearse-ci.sh [LOG]     # LOG: where the run's output goes (default: stdout)
set -euo pipefail
log=${1:-/dev/stdout}
top=$(git rev-parse --show-toplevel)
clone=$(mktemp -d /tmp/retain-graph-ci.XXXXXX)
git clone --quiet --branch main "$(cd "$(git -C "$top" rev-parse --git-common-dir)" && pwd)" "$clone"
echo "rehearsal: main $(git -C "$clone" rev-parse --short HEAD) in $clone" > "$log"
start=$(date +%s)
status=0
(cd "$clone" && CI=true bash .ci/run < /dev/null) >> "$log" 2>&1 || status=$?
echo "rehearsal: .ci/run exited $status after $(( $(date +%s) - start )) s" >> "$log"
exit $status
