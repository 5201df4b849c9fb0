#!/usr/bin/env bash
# The API-breakage check: compares the public API of the four library products (RetainGraph,
# RetainGraphRendering, RetainGraphTesting, RetainGraphCensus) with the commit recorded in
# .ci/api-baseline, through `swift package diagnose-api-breaking-changes`, and fails (exit 1) on any
# breaking change: a public declaration removed or renamed, a changed signature or type. Adding API
# passes. The baseline's API is built once from a checkout of that commit and kept under
# .build/api-baseline/<commit>/ (later runs reuse it); the clone needs that commit in its history
# (not a shallow clone). Prints how long it took.
#   Scripts/check-api.sh                 # make api-check
set -euo pipefail
SWIFT=${SWIFT:-swift}
cd "$(git rev-parse --show-toplevel)"
start=$(date +%s)
# The first word of the first line that is not a comment.
baseline=$(sed -e 's/#.*//' .ci/api-baseline | awk 'NF { print $1; exit }')
if [ -z "$baseline" ]; then
  echo "error: .ci/api-baseline names no commit" >&2
  exit 2
fi
if ! commit=$(git rev-parse --verify --quiet "$baseline^{commit}"); then
  echo "error: the API baseline $baseline (.ci/api-baseline) is not a commit of this clone (a shallow clone? git fetch --unshallow)" >&2
  exit 2
fi
status=0
"$SWIFT" package diagnose-api-breaking-changes "$commit" \
  --products RetainGraph RetainGraphRendering RetainGraphTesting RetainGraphCensus \
  --baseline-dir .build/api-baseline || status=$?
elapsed=$(($(date +%s) - start))
if [ "$status" -ne 0 ]; then
  echo "api-check: the public API breaks against ${commit:0:12} (.ci/api-baseline), in $elapsed s: see above" >&2
  exit 1
fi
echo "api-check: no breaking change against ${commit:0:12} (.ci/api-baseline), in $elapsed s"
