import Foundation
import RetainGraph
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

// Planted for the dumps (issue 31.3): a registry that grows, a leaked pair, and its fixed twin.
final class DumpRegistry {
  var items: [DumpItem] = []
}

final class DumpItem {
  let id: Int
  init(id: Int) { self.id = id }
}

final class DumpLeakParent {
  var child: DumpLeakChild?
}

final class DumpLeakChild {
  var parent: DumpLeakParent?
}

/// The fixed twin: the back reference is weak, so dropping the parent frees both.
final class DumpFixedParent {
  var child: DumpFixedChild?
}

final class DumpFixedChild {
  weak var parent: DumpFixedParent?
}

extension CensusTests {
  /// `HeapCensus.writeDump(to:)` (issue 31.3): the dump's counts, leaks and growth, checked against
  /// the runtime (weak probes) and the census's own counts.
  @Suite(.heapCensus) struct Dumps {
    static func read(_ url: URL) throws -> CensusDump {
      try JSONDecoder().decode(CensusDump.self, from: Data(contentsOf: url))
    }

    static func temporaryDirectory() throws -> URL {
      let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "census-dump-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      return url
    }

    @Test func aDumpHasTheCountsTheLeaksAndWhatGrewWithItsHolder() throws {
      let directory = try Self.temporaryDirectory()
      defer { try? FileManager.default.removeItem(at: directory) }
      let registry = DumpRegistry()
      let firstFile = directory.appendingPathComponent("first.json")
      try HeapCensus.writeDump(to: firstFile.path)

      registry.items = (0..<6).map { DumpItem(id: $0) }
      weak var leaked: DumpLeakParent?
      weak var fixed: DumpFixedParent?
      do {
        let parent = DumpLeakParent()
        parent.child = DumpLeakChild()
        parent.child?.parent = parent
        leaked = parent
        let twin = DumpFixedParent()
        twin.child = DumpFixedChild()
        twin.child?.parent = twin
        fixed = twin
      }
      defer { leaked?.child = nil }
      let secondFile = directory.appendingPathComponent("second.json")
      try HeapCensus.writeDump(to: secondFile.path, timeBudget: .seconds(60))
      #expect(leaked != nil, "the runtime keeps the leaked pair alive")
      #expect(fixed == nil, "the fixed twin was freed")

      let first = try Self.read(firstFile)
      let second = try Self.read(secondFile)
      for dump in [first, second] {
        #expect(dump.format == "retain-graph-census-dump")
        #expect(dump.version == 2)
        #expect(dump.pid == getpid())
        #expect(dump.liveObjects == dump.counts.reduce(0) { $0 + $1.count })
      }
      #expect(second.number == first.number + 1)
      #expect(first.number > 1 || first.growth.isEmpty, "the first dump of the process has no growth")

      // The counts, against the census's own count of the live instances.
      func count(_ dump: CensusDump, _ name: String) -> Int {
        dump.counts.first { $0.typeName.hasSuffix(".\(name)") }?.count ?? 0
      }
      #expect(count(first, "DumpItem") == 0)
      #expect(count(second, "DumpItem") == 6)
      #expect(count(second, "DumpItem") == HeapCensus.liveCount(of: DumpItem.self))
      #expect(count(second, "DumpRegistry") == 1)
      #expect(count(second, "DumpFixedParent") == 0)

      // The leaks: the pair, with its fix; neither the registry nor the fixed twin.
      let found = second.leaks.leaks(involving: "DumpLeakParent")
      try #require(found.count == 1, "\(second.leaks)")
      #expect(found[0].fixes == ["make DumpLeakChild.parent weak"])
      let fix = try #require(found[0].sections.first?.fixes.first)
      #expect(fix.reference?.holder == "DumpLeakChild" && fix.reference?.label == "parent")
      #expect(fix.idiom == .backReference && fix.alternative == nil)
      #expect(fix.location?.file == "Tests/RetainGraphCensusTests/CensusDumpTests.swift")
      #expect(second.leaks.leaks(involving: "DumpRegistry").isEmpty)
      #expect(second.leaks.leaks(involving: "DumpItem").isEmpty)
      #expect(second.leaks.leaks(involving: "DumpFixedParent").isEmpty)

      // What grew, with the holder of one new instance.
      func growth(_ name: String) -> CensusDump.Growth? {
        second.growth.first { $0.typeName.hasSuffix(".\(name)") }
      }
      let items = try #require(growth("DumpItem"), "\(second.growth.map(\.typeName))")
      #expect(items.before == 0 && items.after == 6)
      #expect(
        items.holderPath == "DumpRegistry.items[5] (held by something the census cannot see)",
        "\(second.growth.prefix(8).map { ($0.typeName, $0.before, $0.after) }) \(second.notes)")
      #expect(items.retainers?.origin == .unseenHolder)
      #expect(items.retainers?.path.map(\.label) == ["items[5]"])
      #expect(
        items.retainers?.description.hasPrefix("DumpItem is referenced by 1 holder:\n  DumpRegistry.items[5]")
          == true)
      #expect(growth("DumpRegistry") == nil, "the registry was there at the first dump")
      #expect(growth("DumpFixedParent") == nil, "the fixed twin is gone")
      let pair = try #require(growth("DumpLeakParent"))
      #expect(pair.before == 0 && pair.after == 1)
      #expect(
        pair.holderPath?.hasSuffix("(its own retain cycle, which nothing else holds)") == true,
        "\(second.growth.prefix(8).map { ($0.typeName, $0.before, $0.after) }) \(second.notes)")
      #expect(
        second.growth.map { $0.after - $0.before } == second.growth.map { $0.after - $0.before }.sorted(by: >)
      )
      #expect(registry.items.count == 6)
    }

    @Test func aDumpThatCannotBeWrittenThrowsNamingTheFile() throws {
      let directory = try Self.temporaryDirectory()
      defer { try? FileManager.default.removeItem(at: directory) }
      #expect(throws: CensusDumpError.cannotWrite(path: directory.path, reason: "it is a directory")) {
        try HeapCensus.writeDump(to: directory.path)
      }
      let missing = directory.appendingPathComponent("missing/dump.json").path
      do {
        try HeapCensus.writeDump(to: missing)
        Issue.record("a dump into a missing directory was written")
      } catch {
        guard case .cannotWrite(let path, _) = error else {
          Issue.record("\(error)")
          return
        }
        #expect(path == missing)
      }
      #expect((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) == [])
    }
  }
}
