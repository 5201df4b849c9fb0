#!/usr/bin/env bash
# Issue 39 part 1: what a fix's source location costs in a large debug test binary, beside the anchor.
# Builds (once; later runs reuse it) a small package in a temp folder whose test target links
# Hummingbird 2.28.1 and this package by path, then in one run prints:
#   - llvm-symbolizer's CPU seconds (cold, its own process) for the leaking closure's address;
#   - RetainGraph's CPU seconds for the same closure's location, first lookup in a fresh process
#     (the walk that names the closure, which reads the image's symbols, and then the location);
#   - a first and a later failing check (checkNoLeaks) in one process, and a first and a later
#     forked snapshot's answer (the location included), in seconds of wall time.
#   Scripts/measure-locations.sh                       # MEASURE_DIR=/tmp/retain-graph-measure-locations
#   RETAINGRAPH=/tmp/baseline Scripts/measure-locations.sh   # the same figures for another checkout
set -euo pipefail
SWIFT=${SWIFT:-swift}
SYMBOLIZER=${SYMBOLIZER:-$(dirname "$(command -v "$SWIFT")")/llvm-symbolizer}
top=$(git rev-parse --show-toplevel)
# The RetainGraph the probe links (by path): this checkout, or another (a baseline) given as RETAINGRAPH.
retaingraph=${RETAINGRAPH:-$top}
dir=${MEASURE_DIR:-/tmp/retain-graph-measure-locations}
mkdir -p "$dir/Tests/ProbeTests"
cat > "$dir/Package.swift" <<PACKAGE
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Probe",
  dependencies: [
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(name: "RetainGraph", path: "$retaingraph", traits: ["BinaryReaders"]),
  ],
  targets: [
    .testTarget(
      name: "ProbeTests",
      dependencies: [
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "RetainGraph", package: "RetainGraph"),
        .product(name: "RetainGraphTesting", package: "RetainGraph"),
      ])
  ]
)
PACKAGE
cat > "$dir/Tests/ProbeTests/ProbeTests.swift" <<'SOURCE'
import Foundation
import Hummingbird
import HummingbirdTesting
import RetainGraph
import RetainGraphTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// This thread's CPU seconds.
func cpuSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func wallSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

final class ResponseCache {
  var statuses: [String: HTTPResponse.Status] = [:]
  var onEvict: (() -> Void)?
  func arm() {
    onEvict = {
      self.statuses.removeAll()
    }
  }
}

final class SessionStore {
  var sessions: [String: Int] = [:]
  var onExpire: (() -> Void)?
  func arm() {
    onExpire = {
      self.sessions.removeAll()
    }
  }
}

final class RateLimiter {
  var counts: [String: Int] = [:]
  var onReset: (() -> Void)?
  func arm() {
    onReset = {
      self.counts.removeAll()
    }
  }
}

final class TokenVault {
  var tokens: [String: String] = [:]
  var onRotate: (() -> Void)?
  func arm() {
    onRotate = {
      self.tokens.removeAll()
    }
  }
}

/// Keeps Hummingbird's code in the binary (the router and the application are used).
func application() -> some ApplicationProtocol {
  let router = Router()
  router.get("hello") { _, _ in "hello" }
  return Application(router: router)
}

@Suite struct Probe {
  @Test func coldLocation() {
    _ = application()
    let start = cpuSeconds()
    let cache = ResponseCache()
    cache.arm()
    let graph = ObjectGraph(reflecting: cache)
    let walked = cpuSeconds()
    let location = graph.cycles.first?.fixPlan.first?.location
    let located = cpuSeconds()
    cache.onEvict = nil
    print(
      "MEASURE retaingraph-cold walk \(walked - start) location \(located - walked) total \(located - start) at \(location.map { "\($0.file):\($0.line)" } ?? "nil")"
    )
  }

  @Test func failingChecks() {
    _ = application()
    let makers: [() -> AnyObject] = [
      { let store = SessionStore(); store.arm(); return store },
      { let limiter = RateLimiter(); limiter.arm(); return limiter },
    ]
    for (index, make) in makers.enumerated() {
      let start = wallSeconds()
      let failure = checkNoLeaks(timeout: .milliseconds(20)) { make() }
      let text = failure?.description ?? "no failure"
      let end = wallSeconds()
      let fix = text.split(separator: "\n").first { $0.contains(".swift:") } ?? "no location"
      print("MEASURE check \(index == 0 ? "first" : "later") \(end - start) \(fix.trimmingCharacters(in: .whitespaces))")
    }
  }

  @Test func forkedSnapshots() throws {
    _ = application()
    let makers: [() -> AnyObject] = [
      { let vault = TokenVault(); vault.arm(); return vault },
      { let cache = ResponseCache(); cache.arm(); return cache },
      { let store = SessionStore(); store.arm(); return store },
    ]
    for (index, make) in makers.enumerated() {
      let root = make()
      let start = wallSeconds()
      let graph = try ObjectGraph(snapshotting: root, timeout: .seconds(60))
      let location = graph.cycles.first?.fixPlan.first?.location
      let end = wallSeconds()
      print(
        "MEASURE snapshot \(index == 0 ? "first" : "later") \(end - start) at \(location.map { "\($0.file):\($0.line)" } ?? "nil")"
      )
    }
  }
}
SOURCE
cd "$dir"
echo "building the probe in $dir (Hummingbird 2.28.1 and $retaingraph)..." >&2
"$SWIFT" build --build-tests > "$dir/build.log" 2>&1 || { tail -30 "$dir/build.log" >&2; exit 1; }
binary=$(find "$dir/.build/debug/" -maxdepth 1 -name '*PackageTests.xctest' | head -1)
echo "binary: $binary ($(( $(stat -c %s "$binary") / 1048576 )) MB)"
# The closure the fix names: closure #1 in ResponseCache.arm().
symbol=$(nm "$binary" | awk '$3 ~ /13ResponseCacheC3armyyFyycfU_$/ && !found { print $1, $3; found = 1 }')
address=0x${symbol%% *}
echo "closure: ${symbol#* } at $address"
symbolized=$( { TIMEFORMAT='%U %S'; time "$SYMBOLIZER" --obj="$binary" "$address" > "$dir/symbolizer.out"; } 2>&1 )
read -r user system <<< "$symbolized"
echo "llvm-symbolizer: $(awk 'NR == 2' "$dir/symbolizer.out") in $(echo "$user + $system" | bc) s CPU (user $user, system $system)"
run() {
  "$SWIFT" test --skip-build --filter "$1" 2>&1 | grep '^MEASURE' | sed 's/^MEASURE /retain-graph: /' || true
}
run 'Probe/coldLocation'
run 'Probe/failingChecks'
run 'Probe/forkedSnapshots'
