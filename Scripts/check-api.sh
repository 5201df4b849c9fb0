#!/usr/bin/env bash
# The API-breakage check: compares the public API of the four library products (RetainGraph,
# RetainGraphRendering, RetainGraphTesting, RetainGraphCensus) with the commit recorded in
# .ci/api-baseline, through `swift package diagnose-api-breaking-changes`, and fails (exit 1) on any
# breaking change: a public declaration removed or renamed, a changed signature or type. Adding API
# passes.
#
# The baseline's API (one API-digester file per product) is committed, compressed, in .ci/api/, with
# the commit it was made from in .ci/api/COMMIT: the check unpacks it into .build/api-baseline/<commit>/
# and builds only this tree (about 30 s after `make test`'s build), where building the baseline's
# checkout from a clean clone took 3 to 5 minutes. When .ci/api/ is missing or was made from another
# commit, the baseline is built from a checkout of that commit (the clone needs it in its history: not
# a shallow clone).
#   Scripts/check-api.sh            # make api-check
#   Scripts/check-api.sh --record   # (re)makes .ci/api/ from the commit in .ci/api-baseline
set -euo pipefail
SWIFT=${SWIFT:-swift}
cd "$(git rev-parse --show-toplevel)"
start=$(date +%s)
products=(RetainGraph RetainGraphRendering RetainGraphTesting RetainGraphCensus)
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
cache=.build/api-baseline/$commit
record=false
[ "${1:-}" = "--record" ] && record=true
if ! $record && [ -f .ci/api/COMMIT ] && [ "$(cat .ci/api/COMMIT)" = "$commit" ]; then
  mkdir -p "$cache"
  for product in "${products[@]}"; do
    if [ ! -f ".ci/api/$product.json.gz" ]; then
      echo "error: .ci/api/$product.json.gz is missing (Scripts/check-api.sh --record remakes .ci/api/)" >&2
      exit 2
    fi
    gunzip -c ".ci/api/$product.json.gz" > "$cache/$product.json"
  done
fi
regenerate=()
$record && regenerate=(--regenerate-baseline)
status=0
"$SWIFT" package diagnose-api-breaking-changes "$commit" --products "${products[@]}" \
  --baseline-dir .build/api-baseline "${regenerate[@]}" || status=$?
elapsed=$(($(date +%s) - start))
if $record; then
  mkdir -p .ci/api
  for product in "${products[@]}"; do
    gzip -9 -n -c "$cache/$product.json" > ".ci/api/$product.json.gz"
  done
  echo "$commit" > .ci/api/COMMIT
  echo "api-check: recorded the API of ${commit:0:12} in .ci/api/ (commit it), in $elapsed s"
fi
if [ "$status" -ne 0 ]; then
  echo "api-check: the public API breaks against ${commit:0:12} (.ci/api-baseline), in $elapsed s: see above" >&2
  exit 1
fi
echo "api-check: no breaking change against ${commit:0:12} (.ci/api-baseline), in $elapsed s"
