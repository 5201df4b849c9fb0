#!/usr/bin/env bash
# Runs released packages' own test suites with the census linked, as a user would: a clone of each
# (from the machine's Git mirror) at its released version, its test targets given a dependency on
# RetainGraphCensus, then `RETAIN_GRAPH_LEAKS=1 swift test`. Prints each run's exit status, the
# report lines at exit, and where the whole log is. Outside `make test` (each suite builds its
# package and ours: minutes each).
#
#   Scripts/run-real-suites.sh                      every suite below
#   Scripts/run-real-suites.sh async-algorithms     one (async-algorithms, swinject, opencombine, hummingbird)
#
# Work is in .build-suites/NAME (git-ignored); logs in .build-suites/NAME.log. SUITE_TIMEOUT (seconds,
# default 1200) bounds each run: swift-async-algorithms' own test_concurrency_crash_repro hangs in
# about 1 run of 6, with the census or without it; a run that times out is tried once more.
set -uo pipefail
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/.build-suites"
limit=${SUITE_TIMEOUT:-1200}
mirror=${SWIFT_PACKAGES:-/opt/swift-packages}
declare -A sources=(
  [async-algorithms]="apple/swift-async-algorithms 1.1.4"
  [swinject]="Swinject/Swinject 2.10.0"
  [opencombine]="OpenCombine/OpenCombine 0.14.0"
  [hummingbird]="hummingbird-project/hummingbird 2.28.1"
)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(async-algorithms swinject opencombine hummingbird)
mkdir -p "$work"
# SwiftPM names a path dependency after its folder: the link makes it `RetainGraph`.
ln -sfn "$root" "$work/RetainGraph"
overall=0
for name in "${names[@]}"; do
  read -r repository version <<< "${sources[$name]:-}"
  if [ -z "${repository:-}" ]; then
    echo "error: no suite named $name (known: ${!sources[*]})" >&2
    exit 2
  fi
  dir="$work/$name"
  log="$work/$name.log"
  rm -rf "$dir"
  if ! git clone --quiet --branch "$version" "$mirror/$repository.git" "$dir" 2> "$log"; then
    cat "$log" >&2
    echo "error: $name: could not clone $repository $version from $mirror" >&2
    overall=1
    continue
  fi
  # The mirror's copies keep no symbolic links: AsyncSequenceValidation's and the tests' Locking.swift
  # are links to AsyncAlgorithms' upstream.
  if [ "$name" = async-algorithms ]; then
    for folder in Sources/AsyncSequenceValidation Tests/AsyncAlgorithmsTests/Support; do
      [ -e "$dir/$folder/Locking.swift" ] || cp "$dir/Sources/AsyncAlgorithms/Locking.swift" "$dir/$folder/"
    done
  fi
  # The census for every test target, as a user adds it.
  cat >> "$dir/Package.swift" <<SWIFT

// Added by RetainGraph's Scripts/run-real-suites.sh: the census linked into every test target.
package.dependencies.append(.package(path: "$work/RetainGraph"))
for target in package.targets where target.type == .test {
  target.dependencies.append(.product(name: "RetainGraphCensus", package: "RetainGraph"))
}
SWIFT
  # Swinject 2.10.0's tests do not build in the Swift 6 language mode its tools version selects
  # (non-Sendable captures): they build in Swift 5's, as its CI does with its own toolchain.
  # Its speed tests use XCTMeasureOptions, which this XCTest lacks: that file is left out.
  if [ "$name" = swinject ]; then
    echo 'package.swiftLanguageModes = [.v5]' >> "$dir/Package.swift"
    rm -f "$dir/Tests/SwinjectTests/ContainerTests.Speed.swift"
  fi
  # OpenCombine 0.14.0's NotificationCenterTests override NotificationCenter methods that this
  # toolchain's Foundation declares in an extension: that one file does not build, and is left out.
  if [ "$name" = opencombine ]; then
    rm -f "$dir/Tests/OpenCombineTests/FoundationTests/NotificationCenterTests.swift"
  fi
  echo "== $name ($repository $version)"
  start=$(date +%s)
  if ! (cd "$dir" && "$SWIFT" build --build-tests) >> "$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "error: $name: the tests did not build (log: $log)" >&2
    overall=1
    continue
  fi
  echo "   built in $(( $(date +%s) - start )) s"
  status=124
  for try in 1 2; do
    start=$(date +%s)
    (cd "$dir" && RETAIN_GRAPH_LEAKS=1 timeout "$limit" "$SWIFT" test --skip-build) > "$log.run" 2>&1
    status=$?
    echo "   run $try: exit status $status after $(( $(date +%s) - start )) s"
    [ "$status" -ne 124 ] && break
  done
  cat "$log.run" >> "$log"
  rm -f "$log.run"
  grep -E "^(RETAIN_GRAPH_LEAKS|  [^ ].* \([0-9,]+ objects\))|Test run with|Executed [0-9]+ tests" "$log" | head -n 40 |
    sed 's/^/   /'
  echo "   whole log: $log ($(wc -c < "$log") bytes)"
  [ "$status" -ne 0 ] && overall=1
done
exit $overall
