import Foundation
import RetainGraph
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

// Planted for the dumps' time budget (issue 39.3): eight types that grow, held by one registry.
final class DumpBudgetItem<Tag> {}
enum DumpBudgetTag1 {}
enum DumpBudgetTag2 {}
enum DumpBudgetTag3 {}
enum DumpBudgetTag4 {}
enum DumpBudgetTag5 {}
enum DumpBudgetTag6 {}
enum DumpBudgetTag7 {}
enum DumpBudgetTag8 {}

final class DumpBudgetRegistry {
  var items: [AnyObject] = []

  /// Eight types, the k-th grown by k + 1 instances.
  func grow() {
    let makers: [() -> AnyObject] = [
      { DumpBudgetItem<DumpBudgetTag1>() }, { DumpBudgetItem<DumpBudgetTag2>() },
      { DumpBudgetItem<DumpBudgetTag3>() }, { DumpBudgetItem<DumpBudgetTag4>() },
      { DumpBudgetItem<DumpBudgetTag5>() }, { DumpBudgetItem<DumpBudgetTag6>() },
      { DumpBudgetItem<DumpBudgetTag7>() }, { DumpBudgetItem<DumpBudgetTag8>() },
    ]
    for (kind, make) in makers.enumerated() {
      for _ in 0...kind { items.append(make()) }
    }
  }
}

extension CensusTests {
  /// A dump's holder searches are bounded by time, not by a count (issue 39.3): every type that grew
  /// gets its holder within the budget, the types the budget leaves out say so, and a written dump
  /// is announced on standard error.
  @Suite(.heapCensus) struct DumpBudget {
    static func planted(_ dump: CensusDump) -> [CensusDump.Growth] {
      dump.growth.filter { $0.typeName.contains("DumpBudgetItem<") }
    }

    /// Runs `body` with standard error written to a file; returns what was written there.
    static func capturingStandardError(_ body: () throws -> Void) throws -> String {
      let file = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
      let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      try #require(descriptor >= 0)
      let saved = dup(STDERR_FILENO)
      dup2(descriptor, STDERR_FILENO)
      close(descriptor)
      defer { try? FileManager.default.removeItem(at: file) }
      do {
        try body()
      } catch {
        dup2(saved, STDERR_FILENO)
        close(saved)
        throw error
      }
      dup2(saved, STDERR_FILENO)
      close(saved)
      return try String(contentsOf: file, encoding: .utf8)
    }

    @Test func everyTypeThatGrewGetsItsHolderWithinTheBudget() throws {
      let directory = try CensusTests.Dumps.temporaryDirectory()
      defer { try? FileManager.default.removeItem(at: directory) }
      let registry = DumpBudgetRegistry()
      try HeapCensus.writeDump(to: directory.appendingPathComponent("first.json").path)
      registry.grow()
      let second = directory.appendingPathComponent("second.json")
      let written = try Self.capturingStandardError {
        try HeapCensus.writeDump(to: second.path, timeBudget: .seconds(60))
      }
      let dump = try CensusTests.Dumps.read(second)
      let planted = Self.planted(dump)
      // More types than the five the count of searches used to allow, each with its holder.
      #expect(planted.count == 8, "\(dump.growth.map(\.typeName))")
      for growth in planted {
        #expect(growth.skipped == nil, "\(growth.typeName): \(dump.notes)")
        #expect(
          growth.holderPath?.hasPrefix("DumpBudgetRegistry.items[") == true,
          "\(growth.typeName): \(growth.holderPath ?? "no holder") \(dump.notes)")
      }
      #expect(dump.growth.allSatisfy { $0.skipped != .timeBudget })
      // One line on standard error, naming the file and the dump's count of live objects.
      let line = written.split(separator: "\n").first { $0.contains("census dump written: \(second.path)") }
      #expect(
        line?.hasPrefix("census dump written: \(second.path) (\(dump.liveObjects) objects, ") == true,
        "\(written)")
      #expect(line?.hasSuffix(" s)") == true)
      withExtendedLifetime(registry) {}
    }

    /// With no time left, only the largest growth is searched; every other type that grew says that
    /// the budget ran out. The setting is what a dump without a budget of its own reads.
    @Test func typesTheBudgetLeavesOutSaySo() throws {
      let directory = try CensusTests.Dumps.temporaryDirectory()
      defer { try? FileManager.default.removeItem(at: directory) }
      let registry = DumpBudgetRegistry()
      try HeapCensus.writeDump(to: directory.appendingPathComponent("first.json").path)
      registry.grow()
      let previous = HeapCensus.dumpTimeBudget
      HeapCensus.dumpTimeBudget = .zero
      defer { HeapCensus.dumpTimeBudget = previous }
      #expect(HeapCensus.dumpTimeBudget == .zero)
      let second = directory.appendingPathComponent("second.json")
      try HeapCensus.writeDump(to: second.path)
      let dump = try CensusTests.Dumps.read(second)
      let searchable = dump.growth.filter { $0.skipped != .noClassInstance }
      try #require(!searchable.isEmpty)
      #expect(searchable[0].skipped == nil && searchable[0].holderPath != nil, "\(searchable[0])")
      for growth in searchable.dropFirst() {
        #expect(growth.skipped == .timeBudget && growth.holderPath == nil && growth.retainers == nil)
      }
      #expect(Self.planted(dump).filter { $0.skipped == .timeBudget }.count >= 7)
      #expect(
        dump.notes.contains {
          if case .timeBudgetRanOut(searched: 1, let left) = $0 {
            left == searchable.count - 1
          } else {
            false
          }
        },
        "\(dump.notes)")
      // The field as the file spells it.
      let text = try String(contentsOf: second, encoding: .utf8)
      #expect(text.contains(#""skipped" : "time budget""#))
      withExtendedLifetime(registry) {}
    }
  }
}
