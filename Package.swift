// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "RetainGraph",
  products: [
    .library(name: "RetainGraph", targets: ["RetainGraph"]),
    .library(name: "RetainGraphRendering", targets: ["RetainGraphRendering"]),
    .library(name: "RetainGraphTesting", targets: ["RetainGraphTesting"]),
    .library(name: "RetainGraphCensus", targets: ["RetainGraphCensus"]),
    .executable(name: "retain-graph", targets: ["retain-graph"]),
  ],
  // The command line's dependency is behind a trait, on by default: a package that depends on the
  // libraries only with `traits: []` neither fetches nor builds swift-argument-parser.
  // The binary readers (ELF and DWARF, x86_64 machine code, async frame liveness) are behind a trait,
  // on by default: without it the core builds without them, as a platform without readers of its
  // own does, and notes what it does not read (names, frame liveness).
  traits: [
    .trait(name: "CommandLine", description: "The retain-graph command line (needs swift-argument-parser)."),
    .trait(
      name: "BinaryReaders",
      description:
        "Reads the loaded images (ELF symbols, DWARF, x86_64 machine code, async frame liveness) to name closures "
        + "and functions, find globals and read which words of suspended frames are dead."),
    .default(enabledTraits: ["CommandLine", "BinaryReaders"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // Test-only: a real reactive library whose operators hide their downstream behind custom mirrors.
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    // Test-only: event loops for the census sweep (their threads, scheduled tasks and promises).
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
  ],
  targets: [
    .target(
      name: "RetainGraph",
      dependencies: [
        "RetainGraphSupport", "RetainGraphStorage", "RetainGraphJSONScanner", "RetainGraphRuntime",
        "RetainGraphProcess", "RetainGraphFormats", "RetainGraphSnapshots",
      ],
      exclude: ["Internal/README.md"]),
    // Hidden targets the core is split into (not products; `import RetainGraph` stays the one import).
    // What every layer needs and none owns: the lock that is safe across fork, the chunked array of
    // the graph's storage, the atomic file writes of rendering and the command line.
    .target(name: "RetainGraphSupport"),
    // The graph's compact columns (edges, wide labels, rows by holder) and the algorithms that run on
    // plain integer ids (Tarjan's components, the search from the root, shortest paths, a
    // component's local copy); knows no public type: the core maps its `Ownership` to the edges' codes.
    .target(name: "RetainGraphStorage", dependencies: ["RetainGraphSupport"], exclude: ["README.md"]),
    // The process machinery: runs a function in a forked child and brings its bytes back through a
    // pipe (fork, wait, kill, reap, read), and blocking work off the cooperative pool. Knows no graph:
    // the core maps its failure to ForkedWalkError.
    .target(name: "RetainGraphProcess", dependencies: ["RetainGraphSupport"], exclude: ["README.md"]),
    // The byte-level JSON scanner: reads JSON token by token, as Foundation accepts it, without a
    // tree; the core reads the graph's JSON form with it.
    .target(name: "RetainGraphJSONScanner"),
    // The graph's JSON snapshot read and checked: the text through the JSON scanner into plain
    // columns (type names, node kinds, labels, edges, notes, source locations), each problem with
    // its reason and place. Knows no public type: the core makes the graph of what it read.
    .target(
      name: "RetainGraphSnapshots", dependencies: ["RetainGraphJSONScanner", "RetainGraphSupport"],
      exclude: ["README.md"]),
    // The text formats written from plain values, knowing no graph: the drawing plan's values (what
    // is drawn, its names and labels), its palette and label wrapping, the DOT and Mermaid writers,
    // the SARIF log and the JSON byte writer. The core decides what a picture or a log says.
    .target(name: "RetainGraphFormats", exclude: ["README.md"]),
    // Binary images: ELF parsed and mapped once per image through one catalogue, and DWARF; the names of
    // <elf.h>, the DWARF constants and the loader calls come from the C shim CRetainGraphELF.
    .target(name: "CRetainGraphELF"),
    .target(
      name: "RetainGraphImages", dependencies: ["CRetainGraphELF", "RetainGraphSupport"],
      exclude: ["README.md"]),
    // Machine code: one instruction model, the x86_64 decoder, and the matchers built on it.
    .target(name: "RetainGraphMachineCode", exclude: ["README.md"]),
    // Async frames: which words of a suspended task's frames hold no reference, read from the machine code
    // that resumes them (frame liveness).
    .target(
      name: "RetainGraphAsyncFrames",
      dependencies: ["RetainGraphImages", "RetainGraphMachineCode", "RetainGraphSupport"],
      exclude: ["README.md"]),
    // The Swift runtime's layouts: every raw read of the runtime's memory (metadata, field descriptors,
    // closure contexts, tasks, key paths, reference counts, globals) and its symbols and demangling,
    // each fact listed in its README with where it was verified and what guards it.
    .target(
      name: "RetainGraphRuntime",
      dependencies: [
        "RetainGraphSupport",
        .target(name: "RetainGraphImages", condition: .when(traits: ["BinaryReaders"])),
        .target(name: "RetainGraphMachineCode", condition: .when(traits: ["BinaryReaders"])),
        .target(name: "RetainGraphAsyncFrames", condition: .when(traits: ["BinaryReaders"])),
      ],
      exclude: ["README.md"]),
    .systemLibrary(
      name: "CGraphviz",
      path: "Sources/CGraphviz",
      pkgConfig: "libgvc",
      providers: [.apt(["libgraphviz-dev"]), .brew(["graphviz"])]
    ),
    .target(
      name: "RetainGraphRendering",
      dependencies: ["RetainGraph", "RetainGraphFormats", "RetainGraphSupport", "CGraphviz"]),
    .target(
      name: "RetainGraphTesting",
      dependencies: ["RetainGraph", "RetainGraphRuntime", "RetainGraphProcess", "RetainGraphKnownCycles"]
    ),
    // A known-cycles file (`.retain-graph-known.json`): read (through the JSON scanner, naming the
    // line of a problem), matched against cycles' signatures, written as a baseline; which entries
    // the checks of a process matched. The assertions, the census's leaked-cycle checks and the
    // command line use it; not a product.
    .target(
      name: "RetainGraphKnownCycles",
      dependencies: ["RetainGraph", "RetainGraphJSONScanner", "RetainGraphSupport"]),
    // The heap census: only programs that import RetainGraphCensus link the interposer in
    // CRetainGraphCensus (a `swift_allocObject` of their own).
    .target(name: "CRetainGraphCensus", path: "Sources/CRetainGraphCensus"),
    .target(
      name: "RetainGraphCensus",
      dependencies: [
        "RetainGraph", "RetainGraphRuntime", "RetainGraphSupport", "RetainGraphProcess", "CRetainGraphCensus",
        "RetainGraphKnownCycles", "RetainGraphFormats", "RetainGraphStorage",
      ]),
    .target(name: "Samples", dependencies: ["RetainGraph"], path: "Samples"),
    .executableTarget(
      name: "retain-graph",
      dependencies: [
        "RetainGraph",
        "RetainGraphRendering",
        "RetainGraphSupport",
        "RetainGraphKnownCycles",
        "Samples",
        .product(
          name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CommandLine"])),
      ]
    ),
    // Test-only: starts a snapshot whose child hangs, for the test that kills it; runs searches beside a
    // task on the cooperative pool (ForkedChildLifetimeTests).
    .executableTarget(
      name: "retain-graph-fork-probe",
      dependencies: ["RetainGraph", "RetainGraphProcess", "RetainGraphCensus", "CRetainGraphCensus"],
      path: "Tests/ForkProbe"),
    // Golden-file assertions shared by the test targets (not a product).
    .target(name: "RetainGraphTestSupport", path: "Tests/RetainGraphTestSupport"),
    // Test-only: a twin of GRDB's transaction-observation layout (GRDB itself needs SQLite).
    .target(name: "GRDBTwin", path: "Tests/GRDBTwin"),
    // Test-only: twins of a Hummingbird 2 router's and the MCP SDK's handler wrapping (each wraps the
    // closure you pass in a generic closure of its own).
    .target(name: "RouterTwin", path: "Tests/RouterTwin"),
    .testTarget(
      name: "RetainGraphTests",
      dependencies: [
        "RetainGraph",
        "RetainGraphRuntime",
        "RetainGraphSupport",
        "RetainGraphStorage",
        "RetainGraphProcess",
        "RetainGraphFormats",
        "RetainGraphSnapshots",
        .target(name: "RetainGraphImages", condition: .when(traits: ["BinaryReaders"])),
        .target(name: "RetainGraphAsyncFrames", condition: .when(traits: ["BinaryReaders"])),
        "RetainGraphTestSupport",
        "Samples",
        "GRDBTwin",
        "RouterTwin",
        "retain-graph-fork-probe",
        .product(name: "DequeModule", package: "swift-collections"),
        .product(name: "OrderedCollections", package: "swift-collections"),
        .product(name: "PropertyBased", package: "swift-property-based"),
        .product(name: "OpenCombine", package: "OpenCombine"),
      ],
      exclude: ["__Snapshots__"]
    ),
    // The readers' tests build only with the readers (trait BinaryReaders): without it no target reads
    // ELF (`<elf.h>`'s types), DWARF or machine code, as on a platform that has none of them.
    .testTarget(
      name: "RetainGraphImagesTests",
      dependencies: [
        .target(name: "RetainGraphImages", condition: .when(traits: ["BinaryReaders"])),
        .target(name: "CRetainGraphELF", condition: .when(traits: ["BinaryReaders"])),
      ]),
    .testTarget(
      name: "RetainGraphMachineCodeTests",
      dependencies: [.target(name: "RetainGraphMachineCode", condition: .when(traits: ["BinaryReaders"]))]),
    .testTarget(
      name: "RetainGraphAsyncFramesTests",
      dependencies: [.target(name: "RetainGraphAsyncFrames", condition: .when(traits: ["BinaryReaders"]))]),
    .testTarget(name: "RetainGraphRuntimeTests", dependencies: ["RetainGraphRuntime"]),
    .testTarget(name: "RetainGraphSupportTests", dependencies: ["RetainGraphSupport"]),
    .testTarget(name: "RetainGraphStorageTests", dependencies: ["RetainGraphStorage", "RetainGraphSupport"]),
    .testTarget(name: "RetainGraphProcessTests", dependencies: ["RetainGraphProcess"]),
    .testTarget(
      name: "RetainGraphFormatsTests", dependencies: ["RetainGraphFormats", "RetainGraphTestSupport"],
      exclude: ["__Snapshots__"]),
    .testTarget(name: "RetainGraphSnapshotsTests", dependencies: ["RetainGraphSnapshots"]),
    .testTarget(
      name: "RetainGraphJSONScannerTests", dependencies: ["RetainGraphJSONScanner", "RetainGraphTestSupport"]),
    .testTarget(
      name: "RetainGraphTestingTests",
      dependencies: [
        "RetainGraphTesting", "RetainGraph", "RetainGraphRuntime", "RetainGraphTestSupport", "Samples",
        "RetainGraphKnownCycles", "RetainGraphProcess",
      ],
      exclude: ["__Snapshots__"]
    ),
    .testTarget(
      name: "RetainGraphCensusTests",
      dependencies: [
        "RetainGraphCensus", "RetainGraphTesting", "RetainGraph", "RetainGraphRuntime",
        "RetainGraphTestSupport", "RetainGraphKnownCycles", "RetainGraphFormats", "RetainGraphProcess",
        "RetainGraphStorage",
        .product(name: "OpenCombine", package: "OpenCombine"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        "Samples",
      ],
      exclude: ["__Snapshots__"]
    ),
    .testTarget(
      name: "RetainGraphRenderingTests",
      dependencies: ["RetainGraphRendering", "RetainGraph", "RetainGraphTestSupport", "Samples"],
      exclude: ["__Snapshots__"]
    ),
    .testTarget(
      name: "RetainGraphCLITests",
      dependencies: [
        "retain-graph", "RetainGraph", "RetainGraphTestSupport", "Samples", "retain-graph-fork-probe",
      ],
      exclude: ["__Snapshots__"]
    ),
  ]
)

// C targets take no Swift settings.
let cTargets: Set = ["CRetainGraphCensus", "CRetainGraphELF"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("InternalImportsByDefault"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
