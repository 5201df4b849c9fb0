import Foundation
import RetainGraphTestSupport
import Testing

/// `retain-graph leaks` and `retain-graph diff` on census dumps (issue 31.3), here on dumps written as
/// `HeapCensus.writeDump(to:)` writes them (the fields the commands read; the census tests check the
/// writer, and CensusDumpSignalTests both ends on a live process).
@Suite struct DumpCommandTests {
  /// A dump: `counts` by type, `growth` as (type, before, after, holder).
  static func dump(
    number: Int, pid: Int = 4242, time: String = "2026-11-27T18:00:00Z", counts: [(String, Int)],
    growth: [(String, Int, Int, String?)] = [], leaks: Int = 0, leaksText: String = "", version: Int = 1
  ) -> String {
    let countsJSON = counts.map { #"{"count": \#($0.1), "typeName": "\#($0.0)"}"# }.joined(separator: ", ")
    let growthJSON = growth.map { entry in
      let holder = entry.3.map { #", "holderPath": "\#($0)""# } ?? ""
      return #"{"after": \#(entry.2), "before": \#(entry.1), "typeName": "\#(entry.0)"\#(holder)}"#
    }.joined(separator: ", ")
    let leaksJSON = (0..<leaks).map { _ in #"{"objectCount": 2}"# }.joined(separator: ", ")
    let text = leaksText.replacingOccurrences(of: "\n", with: "\\n")
    return """
      {"format": "retain-graph-census-dump", "version": \(version), "time": "\(time)", "pid": \(pid),
       "number": \(number), "liveObjects": \(counts.reduce(0) { $0 + $1.1 }), "counts": [\(countsJSON)],
       "leaks": {"leaks": [\(leaksJSON)], "liveObjects": 0}, "leaksText": "\(text)", "growth": [\(growthJSON)],
       "notes": []}
      """
  }

  static let leakText = """
    1 leaked cycle (2 objects) among 120 live objects the census recorded

    leaked cycle 1 of 1: 2 objects (Child, Parent), signature 8c1f0d2a9b3e4f57
    Parent
      ↓ child
    Child
      ↓ parent   ← break this
    Parent (loop closes)
    fix: make Child.parent weak
    """

  static func write(_ text: String, _ name: String, in directory: URL) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  @Test func leaksPrintsTheDumpsLeakedCyclesAndExitsOneWhenThereIsOne() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let leaky = try Self.write(
      Self.dump(number: 2, counts: [("App.Parent", 1)], leaks: 1, leaksText: Self.leakText), "leaky.json",
      in: directory)
    let run = try CLITests.run("leaks", leaky)
    #expect(run.status == 1)
    #expect(run.stderr == "")
    #expect(run.text == Self.leakText + "\n")

    let json = try CLITests.run("leaks", leaky, "--format", "json")
    #expect(json.status == 1)
    let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
    #expect((object?["leaks"] as? [Any])?.count == 1)

    let clean = try Self.write(
      Self.dump(number: 1, counts: [("App.Parent", 1)], leaksText: "no leaked cycles among 1 live objects"),
      "clean.json", in: directory)
    let none = try CLITests.run("leaks", clean)
    #expect(none.status == 0)
    #expect(none.text == "no leaked cycles among 1 live objects\n")
  }

  /// A grown type whose holder the dump's time budget left out says so (issue 39.3).
  @Test func diffSaysWhichHoldersTheTimeBudgetLeftOut() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let old = try Self.write(Self.dump(number: 1, counts: [("App.Session", 3)]), "old.json", in: directory)
    let new = try Self.write(
      Self.dump(number: 2, counts: [("App.Session", 5)], growth: [("App.Session", 3, 5, nil)])
        .replacingOccurrences(
          of: #""typeName": "App.Session"}"#, with: #""typeName": "App.Session", "skipped": "time budget"}"#),
      "new.json", in: directory)
    let run = try CLITests.run("diff", old, new)
    #expect(run.status == 0)
    #expect(
      run.text.hasSuffix(
        "App.Session: 3 → 5 (+2)\n  holder not searched: the dump's time budget ran out (HeapCensus.dumpTimeBudget)\n"
      ),
      "\(run.text)")
    let json = try CLITests.run("diff", old, new, "--format", "json")
    #expect(json.text.contains(#""skipped" : "time budget""#), "\(json.text)")
  }

  @Test func diffPrintsWhatGrewByTypeWithTheHolders() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let old = try Self.write(
      Self.dump(
        number: 1, counts: [("App.Session", 3), ("App.Cache", 1), ("App.Request", 4), ("App.Gone", 2)]),
      "old.json", in: directory)
    let new = try Self.write(
      Self.dump(
        number: 2, time: "2026-11-27T18:05:00Z",
        counts: [("App.Request", 1_204), ("App.Session", 5), ("App.Cache", 1), ("App.Token", 2)],
        growth: [
          ("App.Request", 4, 1_204, "Registry.shared.requests[1203]"), ("App.Session", 3, 5, nil),
          ("App.Token", 0, 2, "App.Session.tokens[1]"),
        ]), "new.json", in: directory)
    let run = try CLITests.run("diff", old, new)
    #expect(run.status == 0)
    #expect(run.stderr == "")
    assertGolden(run.text, named: "diff-grew")

    let json = try CLITests.run("diff", old, new, "--format", "json")
    #expect(json.status == 0)
    assertGolden(json.text, named: "diff-grew-json", pathExtension: "json")

    let same = try CLITests.run("diff", old, old)
    #expect(same.status == 0)
    assertGolden(same.text, named: "diff-nothing-grew")
  }

  @Test func badDumpsAreExitTwoNamingTheFileAndTheField() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let good = try Self.write(Self.dump(number: 1, counts: [("App.A", 1)]), "good.json", in: directory)
    let badCount = Self.dump(number: 2, counts: [("App.A", 1), ("App.B", 2)]).replacingOccurrences(
      of: #""count": 2, "#, with: "")
    let cases: [(file: String, golden: String)] = [
      (directory.appendingPathComponent("missing.json").path, "bad-dump-missing"),
      (try Self.write("{ nope", "not.json", in: directory), "bad-dump-not-json"),
      (
        try Self.write(#"{"format": "retain-graph", "version": 1}"#, "snapshot.json", in: directory),
        "bad-dump-format"
      ),
      (
        try Self.write(Self.dump(number: 1, counts: [], version: 3), "v3.json", in: directory),
        "bad-dump-version-3"
      ),
      (try Self.write(badCount, "count.json", in: directory), "bad-dump-missing-count"),
      (
        try Self.write(
          Self.dump(number: 1, counts: []).replacingOccurrences(of: "4242", with: "\"x\""), "pid.json",
          in: directory),
        "bad-dump-pid-string"
      ),
    ]
    for (file, golden) in cases {
      for run in [try CLITests.run("leaks", file), try CLITests.run("diff", good, file)] {
        #expect(run.status == 2, "\(file)")
        #expect(run.text == "", "\(file)")
        assertGolden(run.stderr(replacing: directory), named: golden)
      }
    }
    #expect(try CLITests.run("diff", good).status == 2, "diff needs two dumps")
  }

  /// `--output`: the text goes to the file, written whole, and nothing to standard output; `leaks`
  /// still exits 1 for a leaked cycle. A dump that cannot be read leaves an existing file as it was.
  @Test func outputGoesToAFileWrittenOnlyOnSuccess() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let leaky = try Self.write(
      Self.dump(number: 2, counts: [("App.Parent", 1)], leaks: 1, leaksText: Self.leakText), "leaky.json",
      in: directory)
    let old = try Self.write(Self.dump(number: 1, counts: [("App.Parent", 0)]), "old.json", in: directory)
    let report = directory.appendingPathComponent("leaks.txt").path
    let leaks = try CLITests.run("leaks", leaky, "--output", report)
    #expect(leaks.status == 1)
    #expect(leaks.text == "" && leaks.stderr == "")
    #expect(try String(contentsOfFile: report, encoding: .utf8) == Self.leakText + "\n")

    let diffFile = directory.appendingPathComponent("diff.json").path
    let diff = try CLITests.run("diff", old, leaky, "-f", "json", "-o", diffFile)
    #expect(diff.status == 0 && diff.text == "")
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: diffFile)))
    #expect(((object as? [String: Any])?["growth"] as? [Any])?.count == 1)

    let missing = directory.appendingPathComponent("missing.json").path
    let failed = try CLITests.run("leaks", missing, "--output", report)
    #expect(failed.status == 2)
    #expect(try String(contentsOfFile: report, encoding: .utf8) == Self.leakText + "\n", "left as it was")
  }
}
