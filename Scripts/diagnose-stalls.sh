#!/usr/bin/env bash
# Finds the lock a forked child blocks on: applies Scripts/patches/stall-backtraces.patch (the
# parent writes the child's /proc state and a gdb backtrace to /tmp/stalls/PID.txt whenever it
# judges a child stalled), builds, runs the suite N times (Scripts/repeat-tests.sh), reverts the
# patch, and prints the backtraces of the stalls no test made on purpose (tests' `.hang` faults
# and LockedChildren block by design). How the census sweep's lock was found (issue 29).
#
#   Scripts/diagnose-stalls.sh 3                   the whole suite, 3 times
#   Scripts/diagnose-stalls.sh 5 "ForkedWalk|Sweep"  a filter, 5 times
set -uo pipefail
count=${1:?usage: Scripts/diagnose-stalls.sh COUNT [FILTER]}
filter=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
patch=Scripts/patches/stall-backtraces.patch
git apply "$patch" || { echo "diagnose-stalls: the patch does not apply" >&2; exit 2; }
trap 'git apply -R "$patch"' EXIT
rm -rf /tmp/stalls
swift build --build-tests 2>&1 | grep -E "error:|Build complete" || exit 2
bash Scripts/repeat-tests.sh "$count" $filter
for file in /tmp/stalls/*.txt; do
  [ -e "$file" ] || continue
  if grep -q "ForkedChildFault\|LockedChildren" "$file" || ! grep -q "^#4" "$file"; then continue; fi
  echo "== $file"
  grep -E "^(State|Threads|task )" "$file"
  grep -E "^#[0-9]+ " "$file" | sed -E 's/0x[0-9a-f]+ in //; s/ \(.*//' | head -16
done
