#!/usr/bin/env bash
# Runs the built tests (`swift test --skip-build`) for `make test` and `make test-fast`, quietly:
# the lines of passing tests and the details of known issues (expected failures, `withKnownIssue`)
# are left out; everything else shows as it comes: a failing test's issues, a crash, what a test
# prints, swift test's own errors. The whole output is kept in .build/test-output.txt, and a summary
# ends the run (tests run, passed or failed, known issues, time). Exits with swift test's status.
#
# VERBOSE=1 shows every line. RETAIN_GRAPH_TEST_START (seconds since the epoch) is when the whole
# run began (the build and the snippet package included), for the summary's total time.
# Arguments are passed to swift test (e.g. --filter ForkedWalkTests).
set -uo pipefail
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/.build"
log="${RUN_TESTS_LOG:-$root/.build/test-output.txt}"
mkdir -p "$(dirname "$log")"
run_start=${RETAIN_GRAPH_TEST_START:-$(date +%s)}
test_start=$(date +%s)

# Lines a passing run prints for every test and suite, and the header.
quiet_filter='
  /^◇ (Test|Suite) .* started\.$/ { next }
  # A started line whose arguments span lines, up to its end.
  /^◇ (Test|Suite) / { started = 1; next }
  started { if (/ started\.$/) started = 0; next }
  /^✔ (Test|Suite) .* passed after [0-9.]+ seconds\.$/ { next }
  /^━ (Test|Suite) .* passed after [0-9.]+ seconds with [0-9]+ known issues?\.$/ { next }
  /^↳ (Testing Library Version|Target Platform): / { next }
  /^Test Suite .* (started|passed) at [0-9-]+ [0-9:.]+$/ { next }
  /^Test Case .* (started at [0-9-]+ [0-9:.]+|passed \([0-9.]+ seconds\))$/ { next }
  /^\t Executed [0-9]+ tests?, with 0 failures \(0 unexpected\) in / { next }
  # A known issue: its header line, the indented lines of its message and its attachments.
  /^━ Test .* recorded a known issue/ { known = 1; next }
  known && (/^↳ / || /^  / || /^$/ || /^⎙ Attached /) { next }
  { known = 0; print; fflush() }
'

cd "$root" || exit 1
echo "Running the tests (the whole output goes to .build/test-output.txt; VERBOSE=1 shows it here)"
if [ "${VERBOSE:-0}" = "1" ]; then
  "$SWIFT" test --skip-build "$@" 2>&1 | tee "$log"
else
  "$SWIFT" test --skip-build "$@" 2>&1 | tee "$log" | awk "$quiet_filter"
fi
status=${PIPESTATUS[0]}
now=$(date +%s)

duration() {
  local seconds=$1
  if [ "$seconds" -ge 60 ]; then echo "$((seconds / 60)) min $((seconds % 60)) s"; else echo "$seconds s"; fi
}

# Swift Testing's last line: "Test run with 194 tests in 38 suites passed after 46.4 seconds with 29
# known issues." or "... failed after 46.4 seconds with 3 issues (including 1 known issue)."
testing=$(grep -E "Test run with [0-9]+ tests? in [0-9]+ suites? (passed|failed) after" "$log" | tail -n 1)
# XCTest's last "Executed" line is the one for all tests.
xctest=$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -n 1)

echo
if [ "$status" -eq 0 ]; then echo "── Summary: every test passed ──"; else echo "── Summary: FAILED (swift test exited with status $status) ──"; fi
if [ -n "$testing" ]; then
  count=$(sed -nE 's/.*Test run with ([0-9]+) tests? in ([0-9]+) suites? .*/\1 tests in \2 suites/p' <<<"$testing")
  verdict=$(sed -nE 's/.* (passed|failed) after .*/\1/p' <<<"$testing")
  known=$(grep -oE "[0-9]+ known issues?" <<<"$testing" | grep -oE "^[0-9]+" || echo 0)
  issues=$(sed -nE 's/.* with ([0-9]+) issues?.*/\1/p' <<<"$testing")
  unexpected=$(( ${issues:-0} - ${known:-0} ))
  [ "$verdict" = "passed" ] && unexpected=0
  line="  Swift Testing: $count, $verdict"
  [ "$unexpected" -gt 0 ] && line="$line, $unexpected failing issues"
  line="$line; $known known issues (expected failures, shown in .build/test-output.txt)"
  echo "$line"
else
  echo "  Swift Testing: no result line; the test process stopped early (see the output above)"
fi
if [ -n "$xctest" ]; then
  echo "  XCTest: $(sed -nE 's/.*Executed ([0-9]+ tests?), with ([0-9]+ failures?).*/\1, \2/p' <<<"$xctest")"
else
  echo "  XCTest: no result line; the test process stopped early (see the output above)"
fi
# Swift Testing's closing line ("✘ Test run with N tests … failed after") names no test.
failed=$(grep -E "^✘ Test .* failed after |^Test Case .* failed \(" "$log" | grep -v "^✘ Test run with " | sed -E "s/^✘ Test (.*) failed after .*/\1/; s/^Test Case '(.*)' failed .*/\1/" | sort -u)
if [ -n "$failed" ]; then
  echo "  Failed tests:"
  sed 's/^/    /' <<<"$failed"
fi
echo "  Time: tests $(duration $((now - test_start)))$([ "$run_start" != "$test_start" ] && echo ", whole run $(duration $((now - run_start)))")"
exit "$status"
