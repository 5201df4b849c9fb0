import Foundation
import RetainGraphTestSupport
import Testing

/// `RETAIN_GRAPH_LEAKS=1` reads the known-cycles file of the package it runs in, and
/// `RETAIN_GRAPH_KNOWN_UNUSED=1` lists at exit the entries no check matched: the probe
/// (`retain-graph-fork-probe known-leak`) leaves one leaked cycle and exits, in a temporary package.
@Suite struct KnownCyclesAtExitTests {
  struct Run {
    var status: Int32
    var stderr: String

    /// The known-cycles part of the report, to the end (the leak report above it counts the live
    /// objects, which vary).
    var knownPart: String {
      guard let start = stderr.range(of: "RETAIN_GRAPH_LEAKS: known cycles") else { return stderr }
      return String(stderr[start.lowerBound...])
    }
  }

  static func runProbe(in directory: URL, listingUnused: Bool) throws -> Run {
    let probe = try #require(
      DumpSignalTests.probe, "retain-graph-fork-probe was not built next to retain-graph")
    let process = Process()
    process.executableURL = probe
    process.arguments = ["known-leak"]
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["RETAIN_GRAPH_LEAKS"] = "1"
    environment["RETAIN_GRAPH_KNOWN_UNUSED"] = listingUnused ? "1" : nil
    process.environment = environment
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Run(status: process.terminationStatus, stderr: text)
  }

  /// The file: the probe's cycle (`signature`, expiring on `expires`) and an entry no check matches.
  static func known(signature: String, expires: String) -> String {
    """
    {
      "knownCycles" : [
        {
          "expires" : "\(expires)",
          "reason" : "APP-12: the probe's pair is rewritten",
          "signature" : "\(signature)",
          "types" : [ "ProbeLeakPair" ]
        },
        {
          "reason" : "APP-7",
          "signature" : "0123456789abcdef",
          "types" : [ "Old", "Thing" ]
        }
      ],
      "version" : 1
    }

    """
  }

  @Test func aKnownCyclePassesTheRunAndAnExpiredOneFailsIt() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "known-exit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("// swift-tools-version: 6.1\n".utf8).write(
      to: directory.appendingPathComponent("Package.swift"))
    let knownFile = directory.appendingPathComponent(".retain-graph-known.json")

    // No file: the cycle fails the run.
    let bare = try Self.runProbe(in: directory, listingUnused: true)
    #expect(bare.status == 1, "\(bare.stderr)")
    let match = try #require(
      bare.stderr.firstMatch(of: /\(ProbeLeakPair\), signature ([0-9a-f]{16})/), "\(bare.stderr)")
    let signature = String(match.output.1)
    #expect(!bare.stderr.contains("known cycles"), "no file, nothing said of one")
    #expect(!bare.stderr.contains("RETAIN_GRAPH_KNOWN_UNUSED"), "no file, no listing")

    // Listed: the run passes, and the listing names the entry nothing matched.
    try Data(Self.known(signature: signature, expires: "2999-12-31").utf8).write(to: knownFile)
    let listed = try Self.runProbe(in: directory, listingUnused: true)
    #expect(listed.status == 0, "\(listed.stderr)")
    assertGolden(
      listed.knownPart.replacingOccurrences(of: directory.path, with: "$PACKAGE")
        .replacingOccurrences(of: signature, with: "$SIGNATURE"), named: "known-at-exit")

    // Expired: the run fails, with the entry's reason.
    try Data(Self.known(signature: signature, expires: "2020-01-31").utf8).write(to: knownFile)
    let expired = try Self.runProbe(in: directory, listingUnused: false)
    #expect(expired.status == 1, "\(expired.stderr)")
    assertGolden(
      expired.knownPart.replacingOccurrences(of: directory.path, with: "$PACKAGE")
        .replacingOccurrences(of: signature, with: "$SIGNATURE"), named: "expired-at-exit")
  }
}
