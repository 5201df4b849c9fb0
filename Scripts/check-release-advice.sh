#!/usr/bin/env bash
# Builds the command line in release (-c release: optimised, specialised, inlined, functions merged)
# and checks that every sample's report -- its leak trace and fix lines -- is the one the debug build
# gives, compared whole with the golden files the debug tests use
# (Tests/RetainGraphTests/__Snapshots__/SampleTests/<sample>.report.txt). Exits 1 on any difference,
# printing it.
#
# RELEASE_BUILD_FLAGS (extra swift build arguments) lets the release half of CI use the command line
# its release test build already made (`--scratch-path .build-release -Xswiftc -enable-testing`:
# optimised alike; -enable-testing keeps internal symbols visible to the tests) instead of building a
# release tree of its own.
set -euo pipefail
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
read -r -a flags <<< "${RELEASE_BUILD_FLAGS:-}"
$SWIFT build -c release "${flags[@]}" --product retain-graph
bin="$($SWIFT build -c release "${flags[@]}" --show-bin-path)/retain-graph"
goldens="Tests/RetainGraphTests/__Snapshots__/SampleTests"
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
checked=0
failed=0
for name in $("$bin" samples | awk '{ print $1 }'); do
  # `sample` exits 1 when the sample has a cycle; its report is what matters here.
  "$bin" sample "$name" > "$actual" || true
  expected="$goldens/$name.report.txt"
  if [ ! -f "$expected" ]; then
    echo "error: no golden report for sample $name ($expected)" >&2
    failed=$((failed + 1))
    continue
  fi
  # A sample without a cycle has an empty report, which the command line words as one line.
  if [ ! -s "$expected" ]; then
    if ! grep -q "^no retain cycle reachable from " "$actual"; then
      echo "error: sample $name: the release build finds a cycle the debug build does not:" >&2
      cat "$actual" >&2
      failed=$((failed + 1))
    fi
    checked=$((checked + 1))
    continue
  fi
  # The golden files have no final newline; the command line prints one.
  if ! diff -u "$expected" <(printf '%s' "$(cat "$actual")") > /dev/null; then
    echo "error: sample $name: the release build's report differs from the debug golden:" >&2
    diff -u "$expected" <(printf '%s' "$(cat "$actual")") >&2 || true
    failed=$((failed + 1))
  fi
  checked=$((checked + 1))
done
echo "release advice: $checked samples checked, $failed differ from the debug goldens"
[ "$failed" -eq 0 ]
