import Foundation
import RetainGraph
import RetainGraphTestSupport
import Testing

/// `retain-graph baseline` and `check --known`: a known-cycles file makes a failing snapshot pass,
/// a new cycle still fails, an expired entry fails with its reason, a malformed file is an error
/// naming its line.
@Suite struct KnownCyclesCommandTests {
  /// Snapshots of `samples` in a fresh directory (`NAME.json`), removed by the caller.
  static func snapshots(_ samples: String...) throws -> URL {
    let directory = try CLITests.temporaryDirectory()
    for sample in samples {
      let path = directory.appendingPathComponent("\(sample).json").path
      let run = try CLITests.run("sample", sample, "--format", "json", "--output", path)
      try #require(run.status == 0, "\(run.stderr)")
    }
    return directory
  }

  @Test func aBaselineMakesAFailingSnapshotPass() throws {
    let directory = try Self.snapshots("viper-module")
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = directory.appendingPathComponent("viper-module.json").path
    let known = directory.appendingPathComponent(".retain-graph-known.json").path
    #expect(try CLITests.run("check", snapshot).status == 1)
    let baseline = try CLITests.run(
      "baseline", snapshot, "--output", known, "--reason", "the module is rewritten in Q1")
    #expect(baseline.status == 0, "\(baseline.stderr)")
    #expect(baseline.text.isEmpty)
    let file = try String(contentsOfFile: known, encoding: .utf8)
    assertGolden(file, named: "baseline-viper-module", pathExtension: "json")
    let check = try CLITests.run("check", snapshot, "--known", known)
    #expect(check.status == 0, "\(check.stderr)")
    assertGolden(
      check.stderr(replacing: directory) + check.text.replacingOccurrences(of: directory.path, with: "$TMP"),
      named: "check-known-viper-module")
    // Written again over itself: the same bytes (sorted, stable; the reason kept).
    let again = try CLITests.run("baseline", snapshot, "--output", known)
    #expect(again.status == 0)
    #expect(try String(contentsOfFile: known, encoding: .utf8) == file)
  }

  @Test func aNewCycleStillFails() throws {
    let directory = try Self.snapshots("viper-module", "retain-cycle")
    defer { try? FileManager.default.removeItem(at: directory) }
    let known = directory.appendingPathComponent("known.json").path
    let baseline = try CLITests.run(
      "baseline", directory.appendingPathComponent("viper-module.json").path, "--output", known)
    try #require(baseline.status == 0, "\(baseline.stderr)")
    let check = try CLITests.run(
      "check", directory.appendingPathComponent("retain-cycle.json").path, "--known", known)
    #expect(check.status == 1)
    assertGolden(
      check.text.replacingOccurrences(of: directory.path, with: "$TMP"), named: "check-known-new-cycle")
  }

  @Test func anExpiredEntryFailsWithItsReason() throws {
    let directory = try Self.snapshots("viper-module")
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = directory.appendingPathComponent("viper-module.json").path
    let known = directory.appendingPathComponent("known.json").path
    let baseline = try CLITests.run(
      "baseline", snapshot, "--output", known, "--reason", "rewritten in Q1 (APP-12)", "--expires",
      "2020-01-31")
    try #require(baseline.status == 0, "\(baseline.stderr)")
    let check = try CLITests.run("check", snapshot, "--known", known)
    #expect(check.status == 1)
    #expect(check.text.contains("expired on 2020-01-31: rewritten in Q1 (APP-12)"))
    assertGolden(
      check.text.replacingOccurrences(of: directory.path, with: "$TMP"), named: "check-known-expired")
  }

  @Test func aMalformedFileIsAnErrorNamingItsLine() throws {
    let directory = try Self.snapshots("viper-module")
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = directory.appendingPathComponent("viper-module.json").path
    let known = directory.appendingPathComponent("known.json")
    try Data(
      "{\n  \"version\": 1,\n  \"knownCycles\": [\n    { \"signature\": \"abc\", \"reason\": \"x\" }\n  ]\n}\n"
        .utf8
    )
    .write(to: known)
    let check = try CLITests.run("check", snapshot, "--known", known.path)
    #expect(check.status == 2)
    #expect(check.text.isEmpty)
    // Over a malformed file, baseline stops rather than lose its reasons.
    let baseline = try CLITests.run("baseline", snapshot, "--output", known.path)
    #expect(baseline.status == 2)
    let badDay = try CLITests.run("baseline", snapshot, "--output", "-", "--expires", "2026-02-30")
    #expect(badDay.status == 2)
    assertGolden(
      [
        check.stderr(replacing: directory), baseline.stderr(replacing: directory),
        badDay.stderr(replacing: directory),
      ]
      .joined(separator: "---\n"), named: "known-malformed")
  }
}
