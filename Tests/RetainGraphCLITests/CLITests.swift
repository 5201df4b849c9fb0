import Foundation
import RetainGraph
import Samples
import Testing

/// End-to-end tests of the built `retain-graph` executable.
@Suite struct CLITests {
  struct Run {
    var status: Int32
    var stdout: Data
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
  }

  /// The `retain-graph` built next to this test bundle.
  static let executable: URL? = {
    var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    if let executable = Bundle.main.executableURL {
      candidates.append(executable.deletingLastPathComponent())
    }
    candidates += Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map {
      $0.bundleURL.deletingLastPathComponent()
    }
    // Tests/RetainGraphCLITests/CLITests.swift → the package root → .build/debug.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    candidates.append(root.appendingPathComponent(".build/debug"))
    return candidates.map { $0.appendingPathComponent("retain-graph") }.first {
      FileManager.default.isExecutableFile(atPath: $0.path)
    }
  }()

  static func run(_ arguments: String...) throws -> Run {
    let process = Process()
    let executable: URL = try #require(Self.executable, "retain-graph was not built next to the tests")
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = output.fileHandleForReading.readDataToEndOfFile()
    let stderr = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
  }

  /// A fresh temporary directory, removed by the caller.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "retain-graph-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  static func contents(of directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
  }

  static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  // MARK: samples and sample

  @Test func samplesListsEverySampleOnItsOwnLine() throws {
    let run = try Self.run("samples")
    #expect(run.status == 0)
    #expect(run.stderr.isEmpty)
    let lines = run.text.split(separator: "\n")
    #expect(lines.count == Sample.all.count)
    for (line, sample) in zip(lines, Sample.all) { #expect(line.hasPrefix(sample.name + " ")) }
  }

  @Test func sampleTextPrintsTheLeakTrace() throws {
    let run = try Self.run("sample", "viper-module")
    #expect(run.status == 0)
    #expect(run.stderr.isEmpty)
    #expect(run.text.hasPrefix("1 retain cycle reachable from ViewController"))
    #expect(run.text.contains("fix: make Interactor.output weak"))
    #expect(try Self.run("sample", "viper-module", "--format", "text").stdout == run.stdout)
    let clean = try Self.run("sample", "viper-module-fixed")
    #expect(clean.status == 0)
    #expect(clean.text == "no retain cycle reachable from FixedViewController\n")
  }

  @Test func sampleDOTAndJSONGoToStandardOutput() throws {
    let dot = try Self.run("sample", "viper-module", "--format", "dot")
    #expect(dot.status == 0)
    #expect(dot.text.hasPrefix("digraph \"retain-graph\" {"))
    #expect(dot.text.contains("subgraph cluster_0"))
    let cyclesOnly = try Self.run("sample", "delegate", "--format", "dot", "--cycles-only")
    #expect(cyclesOnly.status == 0)
    #expect(cyclesOnly.text.hasPrefix("digraph"))

    let json = try Self.run("sample", "viper-module", "--format", "json")
    #expect(json.status == 0)
    let graph = try ObjectGraph(jsonData: json.stdout)
    #expect(graph.cycles.count == 1)
    #expect(
      graph.nodes.map(\.typeName) == ["Samples.ViewController", "Samples.Presenter", "Samples.Interactor"])
  }

  @Test func sampleSVGGoesToStandardOutputOrAFile() throws {
    let svg = try Self.run("sample", "viper-module", "--format", "svg")
    #expect(svg.status == 0)
    #expect(svg.stderr.isEmpty, "Graphviz prints nothing")
    #expect(svg.text.hasPrefix("<?xml"))
    #expect(svg.text.contains("<title>n2</title>"))
    #expect(svg.text.contains("#cc0000"))

    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("viper.svg")
    let written = try Self.run("sample", "viper-module", "--format", "svg", "--output", file.path)
    #expect(written.status == 0)
    #expect(written.stdout.isEmpty)
    #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("<title>n2</title>"))
    #expect(Self.contents(of: directory) == ["viper.svg"], "no temporary file left behind")
  }

  @Test func binaryFormatsNeedAnOutput() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for format in ["png", "pdf"] {
      let refused = try Self.run("sample", "viper-module", "--format", format)
      #expect(refused.status == 2)
      #expect(refused.stdout.isEmpty)
      #expect(refused.stderr.contains("\(format) output is binary; pass --output FILE"), "\(refused.stderr)")

      let file = directory.appendingPathComponent("viper.\(format)")
      let written = try Self.run("sample", "viper-module", "-f", format, "-o", file.path)
      #expect(written.status == 0, "\(written.stderr)")
      let data = try Data(contentsOf: file)
      if format == "png" {
        #expect(Array(data.prefix(8)) == Self.pngSignature)
      } else {
        #expect(data.starts(with: Data("%PDF".utf8)))
      }
    }
    let forced = try Self.run("sample", "viper-module", "--format", "png", "--output", "-")
    #expect(forced.status == 0)
    #expect(Array(forced.stdout.prefix(8)) == Self.pngSignature)
    #expect(Self.contents(of: directory) == ["viper.pdf", "viper.png"])
  }

  @Test func unknownSampleNamesTheSamples() throws {
    let run = try Self.run("sample", "no-such-sample")
    #expect(run.status == 2)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("unknown sample 'no-such-sample'"))
    for sample in Sample.all { #expect(run.stderr.contains(sample.name)) }
  }

  @Test func unwritableOutputIsExitTwoAndCreatesNothing() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("missing/viper.svg")
    for format in ["svg", "text", "png"] {
      let run = try Self.run("sample", "viper-module", "--format", format, "--output", file.path)
      #expect(run.status == 2)
      #expect(
        run.stderr.contains("error: cannot write \(file.path): No such file or directory"), "\(run.stderr)")
    }
    #expect(Self.contents(of: directory).isEmpty)
  }

  @Test func usageErrorsAreExitTwo() throws {
    let unknownFormat = try Self.run("sample", "viper-module", "--format", "gif")
    #expect(unknownFormat.status == 2)
    #expect(unknownFormat.stderr.contains("gif"))
    #expect(try Self.run("sample").status == 2)
    #expect(try Self.run("render").status == 2)
    #expect(try Self.run("frobnicate").status == 2)
    #expect(try Self.run("sample", "viper-module", "--output", "").status == 2)
  }

  @Test(arguments: [[], ["samples"], ["sample"], ["render"], ["check"]])
  func helpShowsExamples(_ command: [String]) throws {
    let process = try Self.run(arguments: command + ["--help"])
    #expect(process.status == 0)
    #expect(process.text.contains("Example"), "\(process.text)")
    #expect(process.text.contains("retain-graph"))
  }

  static func run(arguments: [String]) throws -> Run {
    // Variadic forwarding: Swift cannot splat an array into `run(_:...)`.
    switch arguments.count {
    case 1: return try run(arguments[0])
    case 2: return try run(arguments[0], arguments[1])
    default: return try run(arguments[0], arguments[1], arguments[2])
    }
  }

  // MARK: render and check

  /// Writes `sample`'s JSON snapshot with the CLI itself and returns its file.
  static func snapshot(of sample: String, in directory: URL) throws -> URL {
    let file = directory.appendingPathComponent("\(sample).json")
    let run = try run("sample", sample, "--format", "json", "--output", file.path)
    #expect(run.status == 0)
    return file
  }

  @Test func renderDrawsASnapshotInEveryFormat() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = try Self.snapshot(of: "viper-module", in: directory)

    let svg = try Self.run("render", snapshot.path)
    #expect(svg.status == 0)
    #expect(svg.text.hasPrefix("<?xml"), "SVG by default")
    #expect(svg.text.contains("<title>n1</title>"))

    let dot = try Self.run("render", snapshot.path, "--format", "dot")
    #expect(dot.stdout == (try Self.run("sample", "viper-module", "--format", "dot").stdout))
    let cyclesOnly = try Self.run("render", snapshot.path, "--format", "dot", "--cycles-only")
    #expect(cyclesOnly.status == 0)
    #expect(cyclesOnly.text.contains("cluster_0"))

    let text = try Self.run("render", snapshot.path, "--format", "text")
    #expect(text.stdout == (try Self.run("sample", "viper-module").stdout))

    let json = try Self.run("render", snapshot.path, "--format", "json")
    #expect(json.stdout == (try Data(contentsOf: snapshot)), "a snapshot round-trips byte for byte")

    for format in ["png", "pdf"] {
      let file = directory.appendingPathComponent("out.\(format)")
      let run = try Self.run("render", snapshot.path, "--format", format, "--output", file.path)
      #expect(run.status == 0)
      #expect((try Data(contentsOf: file)).count > 100)
      #expect(try Self.run("render", snapshot.path, "--format", format).status == 2)
    }
  }

  @Test func checkExitsOneOnACycleAndZeroWithout() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let leaking = try Self.run("check", try Self.snapshot(of: "viper-module", in: directory).path)
    #expect(leaking.status == 1)
    #expect(leaking.text.contains("fix: make Interactor.output weak"))
    #expect(leaking.stderr.isEmpty)
    let clean = try Self.run("check", try Self.snapshot(of: "viper-module-fixed", in: directory).path)
    #expect(clean.status == 0)
    #expect(clean.text == "no retain cycle reachable from FixedViewController\n")
    let dangling = try Self.run("check", try Self.snapshot(of: "dangling-unowned", in: directory).path)
    #expect(dangling.status == 0, "a dangling unowned reference is reported but is not a cycle")
    #expect(dangling.text.contains("dangling unowned reference"))
  }

  @Test func badSnapshotsAreExitTwoWithTheReason() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let missing = directory.appendingPathComponent("missing.json").path
    let notJSON = directory.appendingPathComponent("not.json")
    try Data("{ nope".utf8).write(to: notJSON)
    let wrongVersion = directory.appendingPathComponent("v2.json")
    try Data(
      #"{"format": "retain-graph", "version": 2, "root": 0, "truncated": false, "nodes": [], "edges": []}"#
        .utf8
    )
    .write(to: wrongVersion)
    let badEdge = directory.appendingPathComponent("edge.json")
    try Data(
      #"{"format": "retain-graph", "version": 1, "root": 0, "truncated": false, "nodes": [{"id": 0, "type": "A", "kind": "object"}], "edges": [{"from": 0, "to": 3, "label": "x", "ownership": "strong"}]}"#
        .utf8
    ).write(to: badEdge)
    let output = directory.appendingPathComponent("out.svg")

    let cases: [(String, String)] = [
      (missing, "error: \(missing): no such file"),
      (notJSON.path, "error: \(notJSON.path): invalid graph snapshot: not JSON"),
      (wrongVersion.path, "version: 2 is not supported"),
      (badEdge.path, "edges[0].to: 3 is not the id of a node"),
    ]
    for (file, message) in cases {
      for run in [
        try Self.run("render", file, "--output", output.path), try Self.run("check", file),
        try Self.run("render", file, "--format", "png", "--output", output.path),
      ] {
        #expect(run.status == 2, "\(file)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(message), "\(run.stderr)")
      }
    }
    #expect(!FileManager.default.fileExists(atPath: output.path), "no output file on failure")
  }
}
