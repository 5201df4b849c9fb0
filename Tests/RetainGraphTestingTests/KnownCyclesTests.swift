import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing

@testable import RetainGraphKnownCycles

/// A known-cycles file through the assertions: a failing sample passes when the file lists its
/// cycle, a new cycle still fails, an expired entry fails with its reason, a malformed file is an
/// error naming its line.
@Suite("Known cycles")
struct KnownCyclesTests {
  /// A temporary package: a `Package.swift`, a known-cycles file, a test file under `Tests/`.
  struct Package {
    let root: URL
    var testFile: String { root.appendingPathComponent("Tests/AppTests/AppTests.swift").path }
    var knownFile: String { root.appendingPathComponent(KnownCycles.fileName).path }

    init(known: String?) throws {
      root = FileManager.default.temporaryDirectory.appendingPathComponent("known-\(UUID().uuidString)")
      try FileManager.default.createDirectory(
        at: root.appendingPathComponent("Tests/AppTests"), withIntermediateDirectories: true)
      try Data("// swift-tools-version: 6.1\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
      if let known { try Data(known.utf8).write(to: URL(fileURLWithPath: knownFile)) }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
  }

  static func signature(of sample: String) throws -> CycleSignature {
    let instance = try #require(Sample.named(sample)).make()
    defer { instance.breakCycles() }
    return try #require(ObjectGraph(reflecting: instance.root).cycles.first).signature
  }

  /// A file of one entry for `sample`'s cycle.
  static func file(listing sample: String, reason: String, expires: String? = nil) throws -> String {
    let entry = KnownCycles.Entry(
      signature: try signature(of: sample).description, reason: reason, expires: expires,
      types: ["Interactor", "Presenter"], fix: "make Interactor.output weak")
    return KnownCycles.text(of: [entry])
  }

  @Test func aListedCyclePassesCheckNoCycles() throws {
    let package = try Package(known: try Self.file(listing: "viper-module", reason: "rewritten in Q1"))
    defer { package.remove() }
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    #expect(checkNoCycles(instance.root) != nil)
    var options = GraphOptions()
    options.knownCyclesFile = package.knownFile
    #expect(checkNoCycles(instance.root, options: options) == nil)
  }

  /// `assertNoCycles` finds the file at the root of the package its caller's file is in, and a listed
  /// cycle passes it (no issue), while the same cycle fails it without the file.
  @Test func assertNoCyclesReadsThePackagesFile() throws {
    let package = try Package(known: try Self.file(listing: "viper-module", reason: "rewritten in Q1"))
    defer { package.remove() }
    #expect(KnownCycles.packageFile(above: package.testFile) == package.knownFile)
    let bare = try Package(known: nil)
    defer { bare.remove() }
    #expect(KnownCycles.packageFile(above: bare.testFile) == nil)
    // This package has no file: nothing is read.
    #expect(KnownCycles.packageFile(above: #filePath) == nil)
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    var options = GraphOptions()
    options.knownCyclesFile = package.knownFile
    assertNoCycles(instance.root, options: options)
    let seen = SeenIssues()
    withKnownIssue {
      assertNoCycles(instance.root)
    } matching: { issue in
      seen.see(issue)
    }
    #expect(seen.text.contains("make Interactor.output weak"))
  }

  /// `checkNoCycles` finds the file as `assertNoCycles` does, from its caller's `#filePath`: a
  /// package at a fixed path (a `StaticString` is a literal), made again by each run, and left in
  /// place (two runs at once write the same bytes, atomically).
  @Test func checkNoCyclesReadsThePackageFileOfItsCaller() throws {
    let root = URL(fileURLWithPath: "/tmp/retain-graph-known-lookup")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("Tests/AppTests"), withIntermediateDirectories: true)
    try Data("// swift-tools-version: 6.1\n".utf8).write(
      to: root.appendingPathComponent("Package.swift"), options: .atomic)
    try Data(try Self.file(listing: "viper-module", reason: "rewritten in Q1").utf8).write(
      to: root.appendingPathComponent(KnownCycles.fileName), options: .atomic)
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    #expect(checkNoCycles(instance.root) != nil, "this package has no file")
    #expect(
      checkNoCycles(instance.root, filePath: "/tmp/retain-graph-known-lookup/Tests/AppTests/AppTests.swift")
        == nil)
    // An explicit file wins over the caller's package's.
    let bare = try Package(known: "{\n  \"version\": 1,\n  \"knownCycles\": []\n}\n")
    defer { bare.remove() }
    var options = GraphOptions()
    options.knownCyclesFile = bare.knownFile
    #expect(
      checkNoCycles(
        instance.root, options: options,
        filePath: "/tmp/retain-graph-known-lookup/Tests/AppTests/AppTests.swift")
        != nil)
  }

  @Test func aNewCycleStillFails() throws {
    let package = try Package(known: try Self.file(listing: "viper-module", reason: "rewritten in Q1"))
    defer { package.remove() }
    let instance = try #require(Sample.named("retain-cycle")).make()
    defer { instance.breakCycles() }
    var options = GraphOptions()
    options.knownCyclesFile = package.knownFile
    let failure = try #require(checkNoCycles(instance.root, options: options))
    assertGolden(
      failure.description.replacingOccurrences(of: package.root.path, with: "$PACKAGE"), named: "new-cycle")
  }

  @Test func anExpiredEntryFailsWithItsReason() throws {
    let package = try Package(
      known: try Self.file(
        listing: "viper-module", reason: "rewritten in Q1 (ticket APP-12)", expires: "2020-01-31"))
    defer { package.remove() }
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    var options = GraphOptions()
    options.knownCyclesFile = package.knownFile
    let failure = try #require(checkNoCycles(instance.root, options: options))
    #expect(failure.description.contains("rewritten in Q1 (ticket APP-12)"))
    assertGolden(
      failure.description.replacingOccurrences(of: package.root.path, with: "$PACKAGE"), named: "expired")
    // The same entry, not expired yet: passes.
    let later = try Package(
      known: try Self.file(listing: "viper-module", reason: "rewritten in Q1", expires: "2999-12-31"))
    defer { later.remove() }
    options.knownCyclesFile = later.knownFile
    #expect(checkNoCycles(instance.root, options: options) == nil)
  }

  /// Each malformed file: the error names the file, the line and what is wrong.
  @Test func aMalformedFileIsAnErrorNamingItsLine() throws {
    let cases: [(String, String)] = [
      ("empty", ""),
      (
        "not JSON",
        "{\n  \"version\": 1,\n  \"knownCycles\": [\n    {\"signature\": \"0123456789abcdef\",,}\n  ]\n}\n"
      ),
      ("an array", "[]\n"),
      ("no version", "{\n  \"knownCycles\": []\n}\n"),
      ("version 2", "{\n  \"version\": 2,\n  \"knownCycles\": []\n}\n"),
      ("unknown field", "{\n  \"version\": 1,\n  \"knownCycle\": []\n}\n"),
      (
        "bad signature",
        "{\n  \"version\": 1,\n  \"knownCycles\": [\n    {\n      \"signature\": \"Interactor\",\n"
          + "      \"reason\": \"x\"\n    }\n  ]\n}\n"
      ),
      (
        "no reason",
        "{\n  \"version\": 1,\n  \"knownCycles\": [\n    {\n      \"signature\": \"0123456789abcdef\"\n    }\n  ]\n}\n"
      ),
      (
        "bad day",
        "{\n  \"version\": 1,\n  \"knownCycles\": [\n    {\n      \"signature\": \"0123456789abcdef\",\n"
          + "      \"reason\": \"x\",\n      \"expires\": \"2026-02-30\"\n    }\n  ]\n}\n"
      ),
      (
        "misspelt field",
        "{\n  \"version\": 1,\n  \"knownCycles\": [\n    {\n      \"signature\": \"0123456789abcdef\",\n"
          + "      \"reason\": \"x\",\n      \"expiry\": \"2026-02-28\"\n    }\n  ]\n}\n"
      ),
      ("types not strings", "{\n  \"version\": 1,\n  \"knownCycles\": [\n    {\"types\": [1]}\n  ]\n}\n"),
    ]
    var lines: [String] = []
    for (name, text) in cases {
      do {
        _ = try KnownCycles.parse(Data(text.utf8), path: "known.json")
        Issue.record("\(name): read without an error")
      } catch {
        lines.append("\(name): \(error)")
      }
    }
    let missing = Result { () throws(KnownCyclesFileError) in
      try KnownCycles.read(at: "/nonexistent/known.json")
    }
    if case .failure(let error) = missing { lines.append("missing: \(error)") }
    assertGolden(lines.joined(separator: "\n"), named: "malformed")
  }

  /// Through the assertion: a malformed file fails the check, naming the file and line.
  @Test func aMalformedFileFailsTheAssertion() throws {
    let package = try Package(known: "{\n  \"version\": 1,\n  \"knownCycles\": [ 3 ]\n}\n")
    defer { package.remove() }
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    var options = GraphOptions()
    options.knownCyclesFile = package.knownFile
    let failure = try #require(checkNoCycles(instance.root, options: options))
    #expect(failure.description.hasPrefix("the known-cycles file cannot be used: \(package.knownFile):3: "))
  }

  /// The file as written reads back to the same entries, sorted, whatever order they came in.
  @Test func aBaselineReadsBackAndIsSorted() throws {
    let viper = try Self.signature(of: "viper-module")
    let pair = try Self.signature(of: "retain-cycle")
    let entries = KnownCycles.baseline(
      of: [(viper, "make Interactor.output weak"), (pair, nil), (viper, nil)], reason: "a \"quoted\"\nreason",
      expires: "2027-01-01", previous: nil)
    #expect(entries.map(\.signature) == [viper.description, pair.description].sorted())
    let text = KnownCycles.text(of: entries)
    let read = try KnownCycles.parse(Data(text.utf8), path: "baseline.json")
    #expect(read.entries.map { $0.signature } == entries.map(\.signature))
    #expect(read.entries.allSatisfy { $0.reason == "a \"quoted\"\nreason" && $0.expires == "2027-01-01" })
    #expect(read.entries.map(\.types) == entries.map(\.types))
    #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    // A previous entry keeps its reason and expiry.
    let again = KnownCycles.baseline(of: [(viper, nil)], reason: "new", expires: nil, previous: read)
    #expect(again.map(\.reason) == ["a \"quoted\"\nreason"])
    #expect(again.map(\.expires) == ["2027-01-01"])
  }

  @Test func daysAreRealDays() {
    #expect(KnownCycles.isDay("2024-02-29"))
    #expect(!KnownCycles.isDay("2023-02-29"))
    #expect(!KnownCycles.isDay("2024-13-01"))
    #expect(!KnownCycles.isDay("2024-1-01"))
    #expect(!KnownCycles.isDay("２０２４-01-01"))
    #expect(KnownCycles.day(of: Date(timeIntervalSince1970: 0)) == "1970-01-01")
    let entry = KnownCycles.Entry(signature: "0123456789abcdef", reason: "x", expires: "2026-01-31")
    #expect(!entry.hasExpired(on: "2026-01-31"))
    #expect(entry.hasExpired(on: "2026-02-01"))
  }
}
