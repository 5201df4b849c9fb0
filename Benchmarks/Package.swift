// swift-tools-version: 6.1
import PackageDescription

// A separate package so that CI's build stays light: run it with
//   swift run -c release --package-path Benchmarks retain-graph-bench
//   swift run -c release --package-path Benchmarks retain-graph-bench --allocations
//   swift run -c release --package-path Benchmarks retain-graph-bench --reading
//   swift run -c release --package-path Benchmarks retain-graph-bench --tasks
//   swift run -c release --package-path Benchmarks retain-graph-census-bench
//   swift run -c release --package-path Benchmarks retain-graph-census-bench --busy --local --searches=30
//   swift run -c release --package-path Benchmarks retain-graph-census-bench --dump-at-scale
//   swift run -c release --package-path Benchmarks retain-graph-census-bench --sweeps
//   swift run -c release --package-path Benchmarks retain-graph-bench --snapshots
//   swift run -c release --package-path Benchmarks retain-graph-bench --check .build/release/retain-graph
let package = Package(
  name: "RetainGraphBenchmarks",
  dependencies: [
    .package(name: "RetainGraph", path: "..")
  ],
  targets: [
    // The allocate-and-free loop both benchmarks time; linked into each executable.
    .target(name: "AllocationCost"),
    .executableTarget(
      name: "retain-graph-bench",
      dependencies: ["AllocationCost", .product(name: "RetainGraph", package: "RetainGraph")]
    ),
    // Links the heap census (its swift_allocObject); the other benchmark does not.
    .executableTarget(
      name: "retain-graph-census-bench",
      dependencies: ["AllocationCost", .product(name: "RetainGraphCensus", package: "RetainGraph")]
    ),
  ]
)
