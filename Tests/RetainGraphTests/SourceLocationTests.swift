import Foundation
import RetainGraph
import Samples
import Testing

/// Every sample's fixes point at the line to change, checked against the sample's source text: the
/// expected line is found in the file by searching for the declaration's text (an independent
/// reading), so that editing a sample moves both together. Run in debug (`make test`) and in
/// release with debug information (`make test-release`): closures and properties are found in both.
struct SourceLocationTests {
  /// Per sample, each fix's declaration: its file in `Samples/` and texts searched for in order (the
  /// last one's line is the declaration's; the ones before it skip earlier lines), and whether it is
  /// a stored property (`var`/`let`, with a column) or a closure (a line only). Nil for a stored
  /// method reference: its edit is where it is assigned, which no binary records, and the method's
  /// own declaration is not one place in release (`-c release` merged `UseCase.handleResponse` into
  /// `FixedUseCase`'s identical body, and its DWARF declares only that one).
  static let expected: [String: [(file: String, texts: [String], isProperty: Bool)?]] = [
    "retain-cycle": [("RetainCycle.swift", ["public var b: CycleB?"], true)],
    "viper-module": [("ViperModule.swift", ["public var output: Presenter?"], true)],
    "lazy-closure": [("LazyClosure.swift", ["public lazy var greeting"], false)],
    "method-reference": [nil],
    "observer-token": [("ObserverToken.swift", ["notifier.observe {"], false)],
    "coordinator-parent": [
      ("Coordinators.swift", ["class CheckoutCoordinator", "public var parent"], true),
      ("Coordinators.swift", ["class ProfileCoordinator", "public var parent"], true),
    ],
    "strong-delegate": [
      ("StrongDelegate.swift", ["class PaymentViewController", "public var delegate"], true)
    ],
    "store-subscription": [("StoreSubscription.swift", ["store.subscribe { state in self.title"], false)],
    "network-completion": [nil],
    "generic-feed-method": [nil],
    "route-handler": [("GenericFeed.swift", ["router.append({"], false)],
    "observation-tracking": [("ObservationTracking.swift", ["onChange: { self.renders"], false)],
    "notes-cache": [("NotesCache.swift", ["public let library: NotesLibrary"], true)],
    "tool-host": [
      ("NotesCache.swift", ["class MCPToolHost", "server.register {"], false),
      ("NotesCache.swift", ["class MCPToolHost", "server.register {", "server.register {"], false),
    ],
  ]

  static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Samples")

  /// The line (from 1) of the last of `texts`, each searched for after the line of the one before,
  /// and the column of the line's `var` or `let`.
  static func place(of texts: [String], in file: String) throws -> (line: Int, column: Int?) {
    let lines = try String(contentsOf: samples.appendingPathComponent(file), encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false)
    var line = -1
    for text in texts {
      line = try #require(
        lines.indices.first { $0 > line && lines[$0].contains(text) }, "\(text) is not in \(file)")
    }
    let keyword = lines[line].range(of: "var ") ?? lines[line].range(of: "let ")
    return (
      line + 1, keyword.map { lines[line].utf8.distance(from: lines[line].startIndex, to: $0.lowerBound) + 1 }
    )
  }

  // Needs the binary readers: the locations are read from the debug information.
  #if BinaryReaders
    @Test(arguments: Sample.all.filter(\.hasCycle).map(\.name))
    func aSamplesFixesPointAtTheirDeclarations(_ name: String) throws {
      let instance = try #require(Sample.named(name)).make()
      defer { instance.breakCycles() }
      let graph = ObjectGraph(reflecting: instance.root)
      let fixes = graph.cycles.flatMap(\.fixPlan)
      let expected = try #require(Self.expected[name], "no expectation for sample \(name)")
      try #require(fixes.count == expected.count, "\(name): \(fixes.map(\.fix))")
      for (fix, declaration) in zip(fixes, expected) {
        guard let declaration else {
          #expect(fix.location == nil, "\(fix.fix)")
          continue
        }
        let (line, column) = try Self.place(of: declaration.texts, in: declaration.file)
        #expect(
          fix.location
            == CodeLocation(
              file: "Samples/\(declaration.file)", line: line, column: declaration.isProperty ? column : nil),
          "\(fix.fix)")
      }
    }

  #else
    /// Without the binary readers nothing is read from the debug information: no fix has a
    /// location (nothing is guessed).
    @Test(arguments: Sample.all.filter(\.hasCycle).map(\.name))
    func withoutTheReadersNoFixHasALocation(_ name: String) throws {
      let instance = try #require(Sample.named(name)).make()
      defer { instance.breakCycles() }
      let graph = ObjectGraph(reflecting: instance.root)
      #expect(!graph.cycles.flatMap(\.fixPlan).isEmpty)
      #expect(graph.cycles.flatMap(\.fixPlan).allSatisfy { $0.location == nil })
      #expect(!graph.report().contains(" — "))
    }
  #endif

  /// Every sample with a cycle has an expectation (a new sample needs one).
  @Test func everySampleWithACycleIsChecked() {
    #expect(Set(Sample.all.filter(\.hasCycle).map(\.name)) == Set(Self.expected.keys))
  }

  #if BinaryReaders
    /// A property a subclass inherits is placed at its superclass's declaration (the object holds it;
    /// the edit is there), checked against this file's text.
    @Test func anInheritedPropertyIsPlacedInItsSuperclass() throws {
      let holder = LocatedHolder()
      let child = LocatedChild()
      holder.child = child
      child.owner = holder
      defer { child.owner = nil }
      let graph = ObjectGraph(reflecting: holder)
      let fix = try #require(graph.cycles.first?.fixPlan.first)
      #expect(fix.fix == "make LocatedChild.owner weak")
      let lines = try String(contentsOfFile: "\(#filePath)", encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false)
      let line = try #require(lines.firstIndex { $0.hasPrefix("class LocatedBase") })
      let declaration = try #require(lines[line...].firstIndex { $0.contains("var owner: AnyObject?") })
      #expect(
        fix.location
          == CodeLocation(
            file: "Tests/RetainGraphTests/SourceLocationTests.swift", line: declaration + 1, column: 3))
    }
  #endif

  /// A snapshot keeps its locations (the reading binary's debug information is not asked); a
  /// snapshot without them has none, even when the reading binary could find them.
  #if BinaryReaders
    @Test func snapshotsKeepTheirLocations() throws {
      let instance = try #require(Sample.named("viper-module")).make()
      defer { instance.breakCycles() }
      let graph = ObjectGraph(reflecting: instance.root)
      let location = try #require(graph.cycles.first?.fixPlan.first?.location)
      let read = try ObjectGraph(jsonData: graph.jsonData())
      #expect(read.cycles.first?.fixPlan.first?.location == location)
      var object = try #require(try JSONSerialization.jsonObject(with: graph.jsonData()) as? [String: Any])
      object["sourceLocations"] = nil
      let without = try ObjectGraph(jsonData: JSONSerialization.data(withJSONObject: object))
      #expect(without.cycles.first?.fixPlan.first?.fix == graph.cycles.first?.fixPlan.first?.fix)
      #expect(without.cycles.first?.fixPlan.first?.location == nil)
    }

    /// A fix of an element (`hold the X in Registry.items[0] weakly`) or of a closure stored in an
    /// array keeps its location through a snapshot: the label read back (`items[0]`) is the
    /// holder's property and an element number, as the walk recorded it, not a path of its own.
    @Test func elementFixesKeepTheirLocationsThroughASnapshot() throws {
      let registry = LocatedRegistry()
      let entry = LocatedEntry()
      registry.entries = [entry]
      entry.registries = [registry]
      registry.handlers = [{ registry.entries.removeAll() }]
      defer {
        entry.registries = []
        registry.handlers = []
      }
      let graph = ObjectGraph(reflecting: registry)
      let fixes = graph.cycles.flatMap(\.fixPlan)
      #expect(fixes.count == 2)
      // The element's fix edits the property's declaration; the closure's, the closure (whose
      // debug information an optimised build may merge with an identical body's: debug only).
      let element = fixes.first { if case .weakElement = $0.advice { true } else { false } }
      #expect(element?.location != nil, "\(graph.report())")
      #if DEBUG
        #expect(fixes.allSatisfy { $0.location != nil }, "\(graph.report())")
      #endif
      for version in [graph, try ObjectGraph(jsonData: graph.jsonData())] {
        #expect(version.report() == graph.report())
        #expect(version.cycles.flatMap(\.fixPlan).map(\.location) == fixes.map(\.location))
      }
    }
  #endif
}

/// Elements that hold their holder (`elementFixesKeepTheirLocationsThroughASnapshot`).
final class LocatedRegistry {
  var entries: [LocatedEntry] = []
  var handlers: [() -> Void] = []
}

final class LocatedEntry {
  var registries: [LocatedRegistry] = []
}

/// A superclass declares the property its subclass's objects hold (`anInheritedPropertyIsPlacedInItsSuperclass`).
class LocatedBase {
  var owner: AnyObject?
}

final class LocatedChild: LocatedBase {
  var name = "child"
}

final class LocatedHolder {
  var child: LocatedChild?
}
