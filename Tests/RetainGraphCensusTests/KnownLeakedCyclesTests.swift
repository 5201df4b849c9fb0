import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Synchronization
import Testing

@testable import RetainGraphCensus
@testable import RetainGraphKnownCycles

final class KnownPairListed: ScopedPairBase, @unchecked Sendable {}
final class KnownPairNew: ScopedPairBase, @unchecked Sendable {}
final class KnownPairExpired: ScopedPairBase, @unchecked Sendable {}
final class KnownPairUsage: ScopedPairBase, @unchecked Sendable {}

/// A temporary package (a `Package.swift` and a known-cycles file at its root), removed by
/// ``remove()``.
struct KnownCyclesPackage {
  let root: URL
  var knownFile: String { root.appendingPathComponent(KnownCycles.fileName).path }

  init(entries: [KnownCycles.Entry]) throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("known-leaks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try Data("// swift-tools-version: 6.1\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
    try Data(KnownCycles.text(of: entries).utf8).write(to: URL(fileURLWithPath: knownFile))
  }

  /// `text` with the package's path as `$PACKAGE`, for golden files.
  func masked(_ text: String) -> String { text.replacingOccurrences(of: root.path, with: "$PACKAGE") }

  func remove() { try? FileManager.default.removeItem(at: root) }

  /// The signature of a leaked pair of `type`, as a walk from one of its objects finds the cycle
  /// (``LeakSignature`` is the same).
  static func signature(of type: ScopedPairBase.Type) throws -> String {
    let first = type.init()
    let second = type.init()
    first.other = second
    second.other = first
    defer { first.other = nil }
    return try #require(ObjectGraph(reflecting: first).cycles.first).signature.description
  }

  static func entry(
    for type: ScopedPairBase.Type, reason: String, expires: String? = nil
  ) throws -> KnownCycles.Entry {
    KnownCycles.Entry(
      signature: try signature(of: type), reason: reason, expires: expires, types: ["\(type)"],
      fix: "make \(type).other weak")
  }
}

extension CensusTests {
  /// Known cycles in the heap-wide checks (issue 32.3): `assertNoLeakedCycles`, the
  /// `.noLeakedCycles` trait (and through the same check `checksLeakedCycles`) pass a leaked cycle
  /// the known-cycles file lists, fail a new one and an expired one, in `assertNoCycles`'s words.
  /// Each test makes pairs of classes of its own, in leak scopes of its own.
  @Suite struct KnownLeakedCycles {
    /// The trait and the assertion pass a leaked cycle the file lists (no issue: one would fail
    /// this test); without the file the same cycle fails both.
    @Test func aListedLeakedCyclePasses() async throws {
      let package = try KnownCyclesPackage(
        entries: [try KnownCyclesPackage.entry(for: KnownPairListed.self, reason: "APP-12")])
      defer { package.remove() }
      let test = try #require(Test.current)
      let made = Mutex<[WeakBox]>([])
      defer { for box in made.withLock({ $0 }) { box.breakCycle() } }

      try await LeakedCyclesTrait(knownCyclesFile: package.knownFile).provideScope(
        for: test, testCase: Test.Case.current
      ) {
        made.withLock { $0.append(KnownPairListed.make(leaking: true)) }
      }
      await HeapCensus.run {
        await assertNoLeakedCycles(knownCyclesFile: package.knownFile) {
          await Task.yield()
          made.withLock { $0.append(KnownPairListed.make(leaking: true)) }
        }
      }
      #expect(made.withLock { $0.allSatisfy { $0.object != nil } }, "the runtime keeps the leaked pairs")

      // Without the file: one issue each.
      let issues = Mutex(0)
      try await withKnownIssue {
        try await LeakedCyclesTrait().provideScope(for: test, testCase: Test.Case.current) {
          made.withLock { $0.append(KnownPairListed.make(leaking: true)) }
        }
        await HeapCensus.run {
          await assertNoLeakedCycles {
            await Task.yield()
            made.withLock { $0.append(KnownPairListed.make(leaking: true)) }
          }
        }
      } matching: { issue in
        issues.withLock { $0 += 1 }
        return issue.comments.contains { $0.rawValue.contains("(KnownPairListed)") }
      }
      #expect(issues.withLock { $0 } == 2)
    }

    /// Without `knownCyclesFile`, the assertion reads the file of its caller's package (as
    /// `assertNoCycles` does): a package at a fixed path (`filePath` is a literal), made again by
    /// each run and left in place (two runs at once write the same bytes, atomically).
    @Test func theAssertionReadsThePackageFileOfItsCaller() async throws {
      let root = URL(fileURLWithPath: "/tmp/retain-graph-known-leak-lookup")
      try FileManager.default.createDirectory(
        at: root.appendingPathComponent("Tests/AppTests"), withIntermediateDirectories: true)
      try Data("// swift-tools-version: 6.1\n".utf8).write(
        to: root.appendingPathComponent("Package.swift"), options: .atomic)
      let entry = try KnownCyclesPackage.entry(for: KnownPairListed.self, reason: "APP-12")
      try Data(KnownCycles.text(of: [entry]).utf8).write(
        to: root.appendingPathComponent(KnownCycles.fileName), options: .atomic)
      let made = Mutex<[WeakBox]>([])
      await HeapCensus.run {
        // Passes: an issue would fail this test.
        await assertNoLeakedCycles(
          filePath: "/tmp/retain-graph-known-leak-lookup/Tests/AppTests/AppTests.swift"
        ) {
          await Task.yield()
          made.withLock { $0.append(KnownPairListed.make(leaking: true)) }
        }
      }
      #expect(made.withLock { $0.first?.object } != nil, "the runtime keeps the leaked pair")
      for box in made.withLock({ $0 }) { box.breakCycle() }
    }

    /// A block that leaves a listed cycle and a new one fails: the message gives both traces and
    /// says which is known and which new (compared whole).
    @Test func aNewLeakedCycleFailsBesideAKnownOne() async throws {
      let package = try KnownCyclesPackage(
        entries: [try KnownCyclesPackage.entry(for: KnownPairListed.self, reason: "APP-12")])
      defer { package.remove() }
      let made = Mutex<[WeakBox]>([])
      let recorded = Mutex<[String]>([])
      await HeapCensus.run {
        await withKnownIssue {
          await assertNoLeakedCycles(knownCyclesFile: package.knownFile) {
            await Task.yield()
            made.withLock {
              $0.append(KnownPairListed.make(leaking: true))
              $0.append(KnownPairNew.make(leaking: true))
            }
          }
        } matching: { issue in
          recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
          return issue.sourceLocation?.fileName == "KnownLeakedCyclesTests.swift"
        }
      }
      for box in made.withLock({ $0 }) { box.breakCycle() }
      let messages = recorded.withLock { $0 }
      #expect(messages.count == 1)
      assertGolden(package.masked(messages.first ?? ""), named: "known-and-new-leaked-cycles")
    }

    /// The trait fails a test whose leaked cycle's entry expired, with the entry's reason (compared
    /// whole); the same entry unexpired passes.
    @Test func anExpiredEntryFailsWithItsReason() async throws {
      let expired = try KnownCyclesPackage(entries: [
        try KnownCyclesPackage.entry(
          for: KnownPairExpired.self, reason: "APP-12: the pair is rewritten in Q1", expires: "2020-01-31")
      ])
      defer { expired.remove() }
      let test = try #require(Test.current)
      let made = Mutex<[WeakBox]>([])
      let recorded = Mutex<[String]>([])
      try await withKnownIssue {
        try await LeakedCyclesTrait(knownCyclesFile: expired.knownFile).provideScope(
          for: test, testCase: Test.Case.current
        ) {
          made.withLock { $0.append(KnownPairExpired.make(leaking: true)) }
        }
      } matching: { issue in
        recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
        return true
      }
      let messages = recorded.withLock { $0 }
      #expect(messages.count == 1)
      #expect(messages.first?.contains("APP-12: the pair is rewritten in Q1") == true)
      assertGolden(expired.masked(messages.first ?? ""), named: "expired-leaked-cycle")

      let later = try KnownCyclesPackage(entries: [
        try KnownCyclesPackage.entry(
          for: KnownPairExpired.self, reason: "APP-12: the pair is rewritten in Q1", expires: "2999-12-31")
      ])
      defer { later.remove() }
      // An issue recorded here would fail this test.
      try await LeakedCyclesTrait(knownCyclesFile: later.knownFile).provideScope(
        for: test, testCase: Test.Case.current
      ) {
        made.withLock { $0.append(KnownPairExpired.make(leaking: true)) }
      }
      for box in made.withLock({ $0 }) { box.breakCycle() }
      #expect(made.withLock { $0.allSatisfy { $0.object == nil } }, "freed once broken")
    }

    /// A malformed file fails the check, naming its line, with the report after it.
    @Test func aMalformedFileFailsTheCheck() async throws {
      let package = try KnownCyclesPackage(entries: [])
      defer { package.remove() }
      try Data("{\n  \"version\": 1,\n  \"knownCycles\": [ 3 ]\n}\n".utf8).write(
        to: URL(fileURLWithPath: package.knownFile))
      let made = Mutex<[WeakBox]>([])
      let recorded = Mutex<[String]>([])
      await HeapCensus.run {
        await withKnownIssue {
          await assertNoLeakedCycles(knownCyclesFile: package.knownFile) {
            await Task.yield()
            made.withLock { $0.append(KnownPairNew.make(leaking: true)) }
          }
        } matching: { issue in
          recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
          return true
        }
      }
      for box in made.withLock({ $0 }) { box.breakCycle() }
      let messages = recorded.withLock { $0 }
      #expect(messages.count == 1)
      #expect(
        messages.first?.hasPrefix(
          "the known-cycles file cannot be used: \(package.knownFile):3: an entry is not an object")
          == true, "\(messages)")
      #expect(messages.first?.contains("(KnownPairNew), signature ") == true)
    }

    /// Entries no check matched: before any check both entries of the file are listed; once a
    /// (passing) check matched one, only the other is, in `check --known`'s words (compared whole).
    @Test func entriesNoCheckMatchedAreListed() async throws {
      let package = try KnownCyclesPackage(entries: [
        try KnownCyclesPackage.entry(for: KnownPairUsage.self, reason: "APP-12"),
        KnownCycles.Entry(signature: "0123456789abcdef", reason: "APP-7", types: ["Old", "Thing"]),
      ])
      defer { package.remove() }
      let before = KnownCycles.Usage.unusedLines(of: package.knownFile)
      #expect(before.count == 4, "\(before)")
      #expect(
        KnownCycles.Usage.unusedReport()?.contains(package.knownFile) != true, "not used by a check yet")

      let made = Mutex<[WeakBox]>([])
      await HeapCensus.run {
        // Passes (an issue would fail this test): the entry is known.
        await assertNoLeakedCycles(knownCyclesFile: package.knownFile) {
          await Task.yield()
          made.withLock { $0.append(KnownPairUsage.make(leaking: true)) }
        }
      }
      for box in made.withLock({ $0 }) { box.breakCycle() }
      let after = KnownCycles.Usage.unusedLines(of: package.knownFile)
      assertGolden(package.masked(after.joined(separator: "\n")), named: "unused-entries")
      #expect(KnownCycles.Usage.unusedReport()?.contains(after.joined(separator: "\n")) == true)

      // Once every entry matched, the listing says so.
      KnownCycles.Usage.matched(["0123456789abcdef"], in: package.knownFile)
      #expect(
        KnownCycles.Usage.unusedLines(of: package.knownFile) == [
          "RETAIN_GRAPH_KNOWN_UNUSED: every entry of \(package.knownFile) (2 entries) matched a check in this process"
        ])
    }
  }
}
