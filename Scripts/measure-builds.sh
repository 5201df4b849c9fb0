#!/usr/bin/env bash
# The build times issue 30 asks for, of one revision: a clean `swift build` (debug, every target but
# the tests; the dependencies resolved first and not timed) and an incremental one after touching one
# Walk file, in a clean clone, with the load average beside each figure (2 cores: a figure taken
# beside another build is not comparable).
#   Scripts/measure-builds.sh [REV ...]     # default: HEAD; e.g. Scripts/measure-builds.sh cc62590 main
set -euo pipefail
SWIFT=${SWIFT:-swift}
top=$(git rev-parse --show-toplevel)
[ $# -gt 0 ] || set -- HEAD
for rev in "$@"; do
  commit=$(git -C "$top" rev-parse --short "$rev")
  dir=$(mktemp -d "/tmp/retain-graph-builds-$commit-XXXX")
  git clone --quiet "$top" "$dir/repo"
  git -C "$dir/repo" checkout --quiet "$commit"
  cd "$dir/repo"
  "$SWIFT" package resolve > /dev/null 2>&1
  lines=$(find Sources/RetainGraph -name '*.swift' -print0 | xargs -0 cat | wc -l)
  load=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s%N)
  "$SWIFT" build > "$dir/clean.log" 2>&1 || { echo "$commit: the clean build failed ($dir/clean.log)" >&2; exit 1; }
  clean=$(( ($(date +%s%N) - start) / 1000000 ))
  walk=$(ls Sources/RetainGraph/Internal/Walk/*.swift | head -1)
  touch "$walk"
  start=$(date +%s%N)
  "$SWIFT" build > "$dir/incremental.log" 2>&1
  incremental=$(( ($(date +%s%N) - start) / 1000000 ))
  printf '%s: core %s lines; clean build %d.%03d s (load %s); after touching %s %d.%03d s (load %s)\n' \
    "$commit" "$lines" $((clean / 1000)) $((clean % 1000)) "$load" "$(basename "$walk")" \
    $((incremental / 1000)) $((incremental % 1000)) "$(cut -d' ' -f1 /proc/loadavg)"
  cd "$top"
  rm -rf "$dir"
done
