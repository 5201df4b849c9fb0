import Foundation
import RetainGraph
import RetainGraphTestSupport
import Samples
import Testing

/// End-to-end tests of the built `retain-graph` executable.
@Suite struct CLITests {
  struct Run {
    var status: Int32
    var stdout: Data
    var stderr: String
    /// False when a signal ended the process (a trap, SIGPIPE): `status` is then the signal.
    var exited = true
    var text: String { String(decoding: stdout, as: UTF8.self) }

    /// The standard error with `directory` (a fresh temporary directory, a new name every run)
    /// written as `$TMP`: the one volatile part of the command's messages.
    func stderr(replacing directory: URL) -> String {
      stderr.replacingOccurrences(of: directory.path, with: "$TMP")
    }
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
    try run(arguments: arguments)
  }

  /// Runs `retain-graph` with `arguments`: its standard output is captured, or goes to `stdout` when
  /// given (a device, a pipe whose reader is gone). With `ignoringSIGPIPE`, it is started through
  /// `sh` with SIGPIPE ignored (`trap '' PIPE`, which `exec` keeps), as CI runners and Python do.
  static func run(
    arguments: [String], stdout: FileHandle? = nil, ignoringSIGPIPE: Bool = false,
    environment: [String: String] = [:]
  ) throws -> Run {
    let process = Process()
    let executable: URL = try #require(Self.executable, "retain-graph was not built next to the tests")
    if ignoringSIGPIPE {
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", "trap '' PIPE; exec \"$0\" \"$@\"", executable.path] + arguments
    } else {
      process.executableURL = executable
      process.arguments = arguments
    }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = stdout ?? output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    // Help is wrapped to the terminal's width, read from COLUMNS when there is no terminal: fix it.
    process.environment = ProcessInfo.processInfo.environment.merging(["COLUMNS": "80"]) { $1 }
      .merging(environment) { $1 }
    try process.run()
    let captured = stdout == nil ? output.fileHandleForReading.readDataToEndOfFile() : Data()
    let stderr = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, stdout: captured, stderr: String(decoding: stderr, as: UTF8.self),
      exited: process.terminationReason == .exit)
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
    assertGolden(run.text, named: "samples")
  }

  @Test func sampleTextPrintsTheLeakTrace() throws {
    let run = try Self.run("sample", "viper-module")
    #expect(run.status == 0)
    #expect(run.stderr.isEmpty)
    assertGolden(run.text, named: "sample-viper-module")
    #expect(try Self.run("sample", "viper-module", "--format", "text").stdout == run.stdout)
    let clean = try Self.run("sample", "viper-module-fixed")
    #expect(clean.status == 0)
    #expect(clean.text == "no retain cycle reachable from FixedViewController\n")
  }

  @Test func sampleDOTAndJSONGoToStandardOutput() throws {
    let dot = try Self.run("sample", "viper-module", "--format", "dot")
    #expect(dot.status == 0)
    assertGolden(dot.text, named: "sample-viper-module", pathExtension: "dot")
    let mermaid = try Self.run("sample", "viper-module", "--format", "mermaid")
    #expect(mermaid.status == 0)
    #expect(mermaid.stderr.isEmpty)
    assertGolden(mermaid.text, named: "sample-viper-module", pathExtension: "mmd")
    let cyclesOnly = try Self.run("sample", "delegate", "--format", "dot", "--cycles-only")
    #expect(cyclesOnly.status == 0)
    assertGolden(cyclesOnly.text, named: "sample-delegate-cycles-only", pathExtension: "dot")

    let json = try Self.run("sample", "viper-module", "--format", "json")
    #expect(json.status == 0)
    assertGolden(json.text, named: "sample-viper-module", pathExtension: "json")
    let graph = try ObjectGraph(jsonData: json.stdout)
    #expect(graph.cycles.count == 1)
    #expect(
      graph.nodes.map(\.typeName) == ["Samples.ViewController", "Samples.Presenter", "Samples.Interactor"])
  }

  // Graphviz writes the SVG (its version, fonts and layout vary by machine): checked by structure.
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
      assertGolden(refused.stderr, named: "sample-\(format)-without-output")

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
    assertGolden(run.stderr, named: "unknown-sample")
  }

  @Test func unwritableOutputIsExitTwoAndCreatesNothing() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("missing/viper.svg")
    for format in ["svg", "text", "png"] {
      let run = try Self.run("sample", "viper-module", "--format", format, "--output", file.path)
      #expect(run.status == 2)
      assertGolden(run.stderr(replacing: directory), named: "unwritable-output-\(format)")
    }
    #expect(Self.contents(of: directory).isEmpty)
  }

  @Test func anEndlessDeviceIsNotReadWithoutBound() throws {
    // Issue 29, item 8: `check /dev/zero` read until an allocation failed (2 GB).
    for command in ["check", "render"] {
      let run = try Self.run(command, "/dev/zero")
      #expect(run.status == 2)
      #expect(run.stdout.isEmpty)
      assertGolden(run.stderr, named: "dev-zero-\(command)")
    }
  }

  @Test func aFileWhoseDirectoryTakesNoNewFileSaysSo() throws {
    // Issue 29, item 8: `--output /proc/version` said "No such file or directory".
    let run = try Self.run("sample", "viper-module", "--format", "json", "--output", "/proc/version")
    #expect(run.status == 2)
    assertGolden(run.stderr, named: "proc-version-output")
  }

  @Test func usageErrorsAreExitTwo() throws {
    let unknownFormat = try Self.run("sample", "viper-module", "--format", "gif")
    #expect(unknownFormat.status == 2)
    assertGolden(unknownFormat.stderr, named: "unknown-format")
    #expect(try Self.run("sample").status == 2)
    #expect(try Self.run("render").status == 2)
    #expect(try Self.run("frobnicate").status == 2)
    #expect(try Self.run("sample", "viper-module", "--output", "").status == 2)
  }

  /// `--version` prints the package's version alone and exits 0.
  @Test func versionIsThePackagesVersion() throws {
    let version = try Self.run("--version")
    #expect(version.status == 0)
    #expect(version.text == "\(retainGraphVersion)\n")
    #expect(version.stderr.isEmpty)
  }

  @Test(arguments: [[], ["samples"], ["sample"], ["render"], ["check"], ["baseline"], ["leaks"], ["diff"]])
  func helpShowsExamples(_ command: [String]) throws {
    let process = try Self.run(arguments: command + ["--help"])
    #expect(process.status == 0)
    assertGolden(process.text, named: (["help"] + command).joined(separator: "-"))
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

    // Graphviz writes the SVG (its version, fonts and layout vary by machine): checked by structure.
    let svg = try Self.run("render", snapshot.path)
    #expect(svg.status == 0)
    #expect(svg.text.hasPrefix("<?xml"), "SVG by default")
    #expect(svg.text.contains("<title>n1</title>"))

    let dot = try Self.run("render", snapshot.path, "--format", "dot")
    #expect(dot.stdout == (try Self.run("sample", "viper-module", "--format", "dot").stdout))
    let cyclesOnly = try Self.run("render", snapshot.path, "--format", "dot", "--cycles-only")
    #expect(cyclesOnly.status == 0)
    assertGolden(cyclesOnly.text, named: "render-viper-module-cycles-only", pathExtension: "dot")

    let styled = try Self.run(
      "render", snapshot.path, "--format", "dot", "--rank-dir", "TB", "--max-nodes", "2", "--qualified-names")
    #expect(styled.status == 0)
    assertGolden(styled.text, named: "render-viper-module-styled", pathExtension: "dot")
    let noNodes = try Self.run("render", snapshot.path, "--format", "dot", "--max-nodes", "0")
    #expect(noNodes.status == 2)
    #expect(noNodes.stdout.isEmpty)
    #expect(noNodes.stderr.contains("--max-nodes must be at least 1 or 'all', got 0"), "\(noNodes.stderr)")
    let badDirection = try Self.run("render", snapshot.path, "--format", "dot", "--rank-dir", "up")
    #expect(badDirection.status == 2)
    #expect(badDirection.stderr.contains("'auto', 'LR' or 'TB'"), "\(badDirection.stderr)")

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
    assertGolden(leaking.text, named: "check-viper-module")
    #expect(leaking.stderr.isEmpty)
    let clean = try Self.run("check", try Self.snapshot(of: "viper-module-fixed", in: directory).path)
    #expect(clean.status == 0)
    #expect(clean.text == "no retain cycle reachable from FixedViewController\n")
    let dangling = try Self.run("check", try Self.snapshot(of: "dangling-unowned", in: directory).path)
    #expect(dangling.status == 0, "a dangling unowned reference is reported but is not a cycle")
    assertGolden(dangling.text, named: "check-dangling-unowned")
  }

  @Test func badSnapshotsAreExitTwoWithTheReason() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let missing = directory.appendingPathComponent("missing.json").path
    let notJSON = directory.appendingPathComponent("not.json")
    try Data("{ nope".utf8).write(to: notJSON)
    let wrongVersion = directory.appendingPathComponent("v3.json")
    try Data(
      #"{"format": "retain-graph", "version": 3, "root": 0, "truncated": false, "nodes": [], "edges": []}"#
        .utf8
    )
    .write(to: wrongVersion)
    let badEdge = directory.appendingPathComponent("edge.json")
    try Data(
      #"{"format": "retain-graph", "version": 1, "root": 0, "truncated": false, "nodes": [{"id": 0, "type": "A", "kind": "object"}], "edges": [{"from": 0, "to": 3, "label": "x", "ownership": "strong"}]}"#
        .utf8
    ).write(to: badEdge)
    let output = directory.appendingPathComponent("out.svg")

    // Each case's message, the same from every command.
    let cases: [(file: String, golden: String)] = [
      (missing, "bad-snapshot-missing"),
      (notJSON.path, "bad-snapshot-not-json"),
      (wrongVersion.path, "bad-snapshot-version-3"),
      (badEdge.path, "bad-snapshot-bad-edge"),
    ]
    for (file, golden) in cases {
      for run in [
        try Self.run("render", file, "--output", output.path), try Self.run("check", file),
        try Self.run("render", file, "--format", "png", "--output", output.path),
      ] {
        #expect(run.status == 2, "\(file)")
        #expect(run.stdout.isEmpty)
        assertGolden(run.stderr(replacing: directory), named: golden)
      }
    }
    #expect(!FileManager.default.fileExists(atPath: output.path), "no output file on failure")
  }
}
