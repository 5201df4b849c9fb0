#!/usr/bin/env bash
# Builds a new package made from the README's Package.swift snippet, exactly as written, and runs one
# test in it: the set-up a new user copies must work. The package lives in .build-snippet/ (git-ignored)
# next to a link named RetainGraph to this checkout, since the snippet's path dependency is
# "../RetainGraph" and SwiftPM names a path dependency after its folder. Nothing is reused from .build:
# the dependencies resolve from scratch (from the machine's Git mirror when one is configured).
set -euo pipefail
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/.build-snippet"
app="$work/MyApp"
rm -rf "$work"
mkdir -p "$app/Sources/MyApp" "$app/Tests/MyAppTests"
ln -s "$root" "$work/RetainGraph"

# The snippet: the swift block after the "snippet: Package.swift" marker, up to its closing fence.
awk '/<!-- snippet: Package.swift/ { found = 1; next }
     found && /^```swift$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$root/README.md" > "$app/Package.swift"
if ! grep -q "swift-tools-version" "$app/Package.swift"; then
  echo "error: no Package.swift snippet found in README.md" >&2
  exit 1
fi

cat > "$app/Sources/MyApp/MyApp.swift" <<'SWIFT'
public final class Presenter {
  public var view: View?
  public init() {}
}

public final class View {
  public var presenter: Presenter?
  public init() {}
}
SWIFT

cat > "$app/Tests/MyAppTests/MyAppTests.swift" <<'SWIFT'
import MyApp
import RetainGraph
import RetainGraphCensus
import RetainGraphTesting
import Testing

/// A type only `theCensusCountsPresenters` makes: the other tests, running beside it, make and
/// leave Presenters, which a process-wide count would see.
final class CountedPresenter {
  let presenter = Presenter()
}

// The census product links: with it running, instances are counted process-wide.
@Test(.heapCensus) func theCensusCountsPresenters() {
  let counted = CountedPresenter()
  assertInstances(of: CountedPresenter.self, atMost: 1)
  withExtendedLifetime(counted) {}
}

@Test func aPresenterAndItsViewFormACycle() {
  let presenter = Presenter()
  presenter.view = View()
  presenter.view?.presenter = presenter
  #expect(checkNoCycles(presenter) != nil)
  #expect(ObjectGraph(reflecting: presenter).predictedLeaks().count == 2)
  presenter.view = nil
  assertNoCycles(presenter)
}

// The snippet keeps the trait BinaryReaders: a closure is named from the symbol tables and no note
// says a reader is missing.
final class Screen {
  var onTap: (() -> Void)?
  var taps = 0
  func bind() {
    let step = 1
    onTap = { self.taps += step }
  }
}

@Test func closuresAreNamedFromTheSymbolTables() {
  let screen = Screen()
  screen.bind()
  let graph = ObjectGraph(reflecting: screen)
  #expect(graph.nodes.contains { $0.kind == .closure && $0.typeName.hasPrefix("closure #1 in ") })
  #expect(graph.walkNotes.isEmpty)
  screen.onTap = nil
}

// Leaves a cycle on purpose, for the run with RETAIN_GRAPH_LEAKS=1 below (no check here: the normal
// run passes). The tests around it run in parallel and leave none.
final class Cart {
  var checkout: Checkout?
}

final class Checkout {
  var cart: Cart?
}

@Test func leavesACartCycle() async {
  let cart = Cart()
  cart.checkout = Checkout()
  cart.checkout?.cart = cart
}

// Run with RETAIN_GRAPH_ARTIFACTS set: the failure writes the graph there.
@Test func aFailingCheckWritesItsGraph() {
  let presenter = Presenter()
  presenter.view = View()
  presenter.view?.presenter = presenter
  withKnownIssue { assertNoCycles(presenter) }
  presenter.view = nil
}
SWIFT

# An XCTest case that leaks nothing: XCTest's own cycle around it (the case's testRun and the run's
# test, both XCTest's properties) is listed apart at exit and not counted.
cat > "$app/Tests/MyAppTests/PresenterTests.swift" <<'SWIFT'
import MyApp
import XCTest

final class PresenterTests: XCTestCase {
  func testAPresenterWithoutAViewIsFreed() {
    weak var probe: Presenter?
    do {
      let presenter = Presenter()
      probe = presenter
    }
    XCTAssertNil(probe)
  }
}
SWIFT

start=$(date +%s)
cd "$app"
if ! "$SWIFT" build --build-tests --scratch-path "$work/build" > "$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  echo "error: the package made from the README's snippet does not build" >&2
  exit 1
fi
grep -E "warning: |Fetching|Computing version|Build complete" "$work/build.log" || true
# The snippet asks for no traits: the command line's dependency must be neither fetched nor built.
if [ -e "$work/build/checkouts/swift-argument-parser" ] || grep -q "ArgumentParser\|GenerateManual" "$work/build.log"; then
  echo "error: the snippet's package fetched or built swift-argument-parser" >&2
  exit 1
fi
# It asks for the trait BinaryReaders: the readers of the binaries are built (and the tests above
# check that closures are named through them).
if ! grep -q "RetainGraphImages" "$work/build.log"; then
  echo "error: the snippet's package did not build the binary readers (trait BinaryReaders)" >&2
  exit 1
fi
# Its output (one known issue on purpose) is shown only when the run fails.
if ! RETAIN_GRAPH_ARTIFACTS="$work/artifacts" "$SWIFT" test --skip-build --scratch-path "$work/build" \
  > "$work/test.log" 2>&1; then
  cat "$work/test.log" >&2
  echo "error: the tests of the package made from the README's snippet failed" >&2
  exit 1
fi
grep -E "Test run with [0-9]+ tests?" "$work/test.log" | tail -n 1 | sed -E 's/^[^A-Za-z]+//; s/^/snippet package: /'
files="aFailingCheckWritesItsGraph-Presenter-1.dot aFailingCheckWritesItsGraph-Presenter-1.json"
# With the checkout's command line built (make test builds it first), the failure also made its page.
if [ -x "$root/.build/debug/retain-graph" ]; then files="$files aFailingCheckWritesItsGraph-Presenter-1.html"; fi
for file in $files; do
  if [ ! -s "$work/artifacts/$file" ]; then
    echo "error: RETAIN_GRAPH_ARTIFACTS: $work/artifacts/$file was not written" >&2
    ls -l "$work/artifacts" >&2 || true
    exit 1
  fi
done
# The failure printed the command that draws its graph; it must work from here (the snippet's
# package, whose traits leave the command line out).
# It is the command line on the PATH, the checkout's built one, or `swift run` of the checkout
# (GraphAttachment.commandLine): make test builds the checkout's first, so CI sees the second.
command=$(grep -m 1 -E "^ *(swift run --package-path .* retain-graph|'?[^ ]*retain-graph'?) render .*--format svg" \
  "$work/test.log" | sed -E 's/^ +//')
if [ -z "$command" ]; then
  cat "$work/test.log" >&2
  echo "error: the failing check did not print the command that draws its graph" >&2
  exit 1
fi
if ! eval "$command" > "$work/draw.log" 2>&1 || [ ! -s "$work/artifacts/aFailingCheckWritesItsGraph-Presenter-1.svg" ]; then
  cat "$work/draw.log" >&2
  echo "error: the printed command did not draw the graph: $command" >&2
  exit 1
fi
echo "snippet package: the printed command drew aFailingCheckWritesItsGraph-Presenter-1.svg"
# RETAIN_GRAPH_LEAKS=1: the whole run again, tests in parallel, with the census from the start: at
# exit it prints the one cycle a test left (leavesACartCycle's), with the test that made it and its
# fix, and the run exits non-zero for it (every test passes: the status is the report's). XCTest's
# pass leaves XCTest's own cycles, listed apart and not counted. theCensusCountsPresenters
# is skipped: with the census recording from the start, its process-wide count sees the Presenters
# of the tests running beside it.
status=0
RETAIN_GRAPH_LEAKS=1 "$SWIFT" test --skip-build --scratch-path "$work/build" --skip theCensusCountsPresenters \
  > "$work/leaks.log" 2>&1 || status=$?
expected_lines=(
  "Test run with 4 tests in 0 suites passed"
  "RETAIN_GRAPH_LEAKS: 1 leaked cycle (2 objects)"
  "made by MyAppTests.leavesACartCycle()"
  "fix: make Cart.checkout weak"
)
for line in "${expected_lines[@]}"; do
  if ! grep -qF "$line" "$work/leaks.log"; then
    cat "$work/leaks.log" >&2
    echo "error: RETAIN_GRAPH_LEAKS=1: the report at exit does not say: $line" >&2
    exit 1
  fi
done
if [ "$status" -eq 0 ]; then
  cat "$work/leaks.log" >&2
  echo "error: RETAIN_GRAPH_LEAKS=1: the run exited 0 although a test left a cycle" >&2
  exit 1
fi
echo "snippet package: RETAIN_GRAPH_LEAKS=1 reported leavesACartCycle's cycle at exit (exit status $status)"
# Without the test that leaves a cycle, the whole run passes: both passes (XCTest's, whose own
# cycles are not the package's, and Swift Testing's) exit 0.
if ! RETAIN_GRAPH_LEAKS=1 "$SWIFT" test --skip-build --scratch-path "$work/build" \
  --skip theCensusCountsPresenters --skip leavesACartCycle > "$work/no-leaks.log" 2>&1; then
  cat "$work/no-leaks.log" >&2
  echo "error: RETAIN_GRAPH_LEAKS=1: a run whose tests leave no cycle failed" >&2
  exit 1
fi
for line in "RETAIN_GRAPH_LEAKS: no leaked cycles at exit" "references of the test libraries (XCTest)"; do
  if ! grep -qF "$line" "$work/no-leaks.log"; then
    cat "$work/no-leaks.log" >&2
    echo "error: RETAIN_GRAPH_LEAKS=1: the report of a run without leaks does not say: $line" >&2
    exit 1
  fi
done
echo "snippet package: RETAIN_GRAPH_LEAKS=1 passed a run whose tests leave no cycle (XCTest's own cycle not counted)"
echo "snippet package built and tested in $(( $(date +%s) - start )) s"
