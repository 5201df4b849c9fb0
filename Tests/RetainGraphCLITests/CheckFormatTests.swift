import Foundation
import RetainGraph
import RetainGraphTestSupport
import Testing

/// `retain-graph check --format diagnostics|sarif --output FILE`: the library's texts, the exit
/// status of the text, known cycles left out, and nothing written when the check cannot run.
@Suite struct CheckFormatTests {
  @Test func diagnosticsAndSARIFAreTheLibrarysAndExitAsTheTextDoes() throws {
    let directory = try KnownCyclesCommandTests.snapshots("viper-module", "viper-module-fixed")
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = directory.appendingPathComponent("viper-module.json")
    let graph = try ObjectGraph(jsonData: Data(contentsOf: snapshot))

    let diagnostics = try CLITests.run("check", snapshot.path, "--format", "diagnostics")
    #expect(diagnostics.status == 1)
    #expect(diagnostics.stderr.isEmpty)
    #expect(diagnostics.text == graph.diagnostics())
    assertGolden(diagnostics.text, named: "check-viper-module", pathExtension: "log")

    let sarif = try CLITests.run("check", snapshot.path, "-f", "sarif")
    #expect(sarif.status == 1)
    #expect(sarif.stdout == graph.sarifData())
    #expect(SARIFRequirements.violations(of: try JSONSerialization.jsonObject(with: sarif.stdout)) == [])
    // The log names the tool and its version: the package's.
    let sarifLog = try #require(try JSONSerialization.jsonObject(with: sarif.stdout) as? [String: Any])
    let driver = try #require(
      ((sarifLog["runs"] as? [[String: Any]])?.first?["tool"] as? [String: Any])?["driver"] as? [String: Any])
    #expect(driver["name"] as? String == "retain-graph")
    #expect(driver["version"] as? String == retainGraphVersion)

    // Into a file: the same bytes, standard output empty, the same status.
    let output = directory.appendingPathComponent("retain-graph.sarif")
    let written = try CLITests.run("check", snapshot.path, "--format", "sarif", "--output", output.path)
    #expect(written.status == 1)
    #expect(written.stdout.isEmpty)
    #expect(try Data(contentsOf: output) == sarif.stdout)
    let text = directory.appendingPathComponent("report.txt")
    let textRun = try CLITests.run("check", snapshot.path, "--output", text.path)
    #expect(textRun.status == 1)
    #expect(try Data(contentsOf: text) == CLITests.run("check", snapshot.path).stdout)

    // No cycle: nothing to say, exit 0; SARIF still a whole log, with no result.
    let fixed = directory.appendingPathComponent("viper-module-fixed.json").path
    let clean = try CLITests.run("check", fixed, "--format", "diagnostics")
    #expect(clean.status == 0)
    #expect(clean.stdout.isEmpty)
    let cleanSARIF = try CLITests.run("check", fixed, "--format", "sarif")
    #expect(cleanSARIF.status == 0)
    let log = try JSONSerialization.jsonObject(with: cleanSARIF.stdout)
    #expect(SARIFRequirements.violations(of: log) == [])
    let runs = (log as? [String: Any])?["runs"] as? [[String: Any]]
    #expect((runs?.first?["results"] as? [Any])?.isEmpty == true)
  }

  /// With `--known`, a known cycle gives no diagnostic and passes; what the file says goes to
  /// standard error.
  @Test func knownCyclesAreLeftOut() throws {
    let directory = try KnownCyclesCommandTests.snapshots("viper-module")
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = directory.appendingPathComponent("viper-module.json").path
    let known = directory.appendingPathComponent("known.json").path
    try #require(try CLITests.run("baseline", snapshot, "--output", known, "--reason", "APP-12").status == 0)
    for format in ["diagnostics", "sarif"] {
      let run = try CLITests.run("check", snapshot, "--known", known, "--format", format)
      #expect(run.status == 0, "\(format): \(run.stderr)")
      #expect(run.stderr.contains("APP-12"), "\(format)")
      if format == "diagnostics" { #expect(run.stdout.isEmpty) }
    }
  }

  /// A walk cut short: no line (nothing seen to fix), what was not seen on standard error, exit 3.
  @Test func anIncompleteWalkSaysSoOnStandardError() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let cut = directory.appendingPathComponent("cut.json")
    try ObjectGraph(reflecting: CheckChain(length: 10), options: GraphOptions(maxNodes: 3)).jsonData().write(
      to: cut)
    let text = try CLITests.run("check", cut.path)
    for format in ["diagnostics", "sarif"] {
      let run = try CLITests.run("check", cut.path, "--format", format)
      #expect(run.status == 3, "\(format)")
      #expect(!run.stderr.isEmpty && text.text.hasSuffix(run.stderr), "\(format): \(run.stderr)")
    }
  }

  /// A snapshot that cannot be read: exit 2, the reason on standard error, no output file, nothing
  /// on standard output; an existing output file is left as it was.
  @Test func aFailedCheckWritesNothing() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let missing = directory.appendingPathComponent("missing.json").path
    for format in ["text", "diagnostics", "sarif"] {
      let output = directory.appendingPathComponent("out.\(format)")
      let run = try CLITests.run("check", missing, "--format", format, "--output", output.path)
      #expect(run.status == 2, "\(format)")
      #expect(run.stdout.isEmpty)
      #expect(run.stderr(replacing: directory) == "error: $TMP/missing.json: no such file\n", "\(format)")
      #expect(!FileManager.default.fileExists(atPath: output.path), "\(format)")
    }
    let existing = directory.appendingPathComponent("previous.sarif")
    try Data("previous".utf8).write(to: existing)
    #expect(try CLITests.run("check", missing, "--format", "sarif", "--output", existing.path).status == 2)
    #expect(try String(contentsOf: existing, encoding: .utf8) == "previous")
    #expect(CLITests.contents(of: directory) == ["previous.sarif"])
  }

  /// `check --format` takes the report formats alone, and says which.
  @Test func checkTakesTheReportFormatsAlone() throws {
    let run = try CLITests.run("check", "snapshot.json", "--format", "svg")
    #expect(run.status == 2)
    assertGolden(run.stderr, named: "check-unknown-format")
  }
}
