import Foundation
import RetainGraphRuntime
import Testing

@testable import RetainGraph

/// An object that holds a key path, hashed by identity so that it can be a subscript argument.
final class KeyPathHolder: Hashable, @unchecked Sendable {
  var keyPath: AnyKeyPath?
  static func == (lhs: KeyPathHolder, rhs: KeyPathHolder) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A fileprivate key holding an object: the argument's type is private to this file.
fileprivate struct HolderKey: Hashable {
  let holder: KeyPathHolder
  static func == (lhs: HolderKey, rhs: HolderKey) -> Bool { lhs.holder === rhs.holder }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(holder)) }
}

struct KeyPathTable {
  var inner = 0
  subscript(holder: KeyPathHolder) -> Int { 0 }
  subscript(number: Int) -> Int { number }
  subscript(number: Int, holder: KeyPathHolder) -> Int { number }
  fileprivate subscript(key: HolderKey) -> Int { 0 }
  subscript<Key: Hashable>(generic key: Key) -> Int { 0 }
}

struct KeyPathOuter {
  var table = KeyPathTable()
}

/// A key path stored by an object, and whether the runtime keeps the object alive after its
/// release (the key path holds its subscript arguments strongly).
struct KeyPathScenario: Sendable, CustomTestStringConvertible {
  let name: String
  let leaks: Bool
  let make: @Sendable (KeyPathHolder) -> AnyKeyPath
  var testDescription: String { name }

  static let all: [KeyPathScenario] = [
    KeyPathScenario(name: "\\Table[holder]", leaks: true) { \KeyPathTable.[$0] },
    KeyPathScenario(name: "\\Table[3, holder]", leaks: true) { \KeyPathTable.[3, $0] },
    KeyPathScenario(name: "\\Outer.table[holder]", leaks: true) { \KeyPathOuter.table[$0] },
    KeyPathScenario(name: "\\Table[fileprivate key holding holder]", leaks: true) {
      \KeyPathTable.[HolderKey(holder: $0)]
    },
    KeyPathScenario(name: "\\Table[generic: holder]", leaks: true) { \KeyPathTable.[generic: $0] },
    KeyPathScenario(name: "\\[KeyPathHolder: Int][holder]", leaks: true) { \[KeyPathHolder: Int].[$0] },
    KeyPathScenario(name: "\\Table[3] (a value argument)", leaks: false) { _ in \KeyPathTable.[3] },
    KeyPathScenario(name: "\\Table[another holder]", leaks: false) { _ in \KeyPathTable.[KeyPathHolder()] },
    KeyPathScenario(name: "\\Outer.table.inner (no argument)", leaks: false) { _ in \KeyPathOuter.table.inner
    },
  ]
}

@Suite("Key paths: what a key path holds for its subscript arguments")
struct KeyPathReferenceTests {
  // Needs the binary readers: what it checks is found through symbols (hidden field types, key
  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    /// The walk reads the key path's subscript arguments (no note) and finds the cycle exactly when
    /// the runtime keeps the holder alive after its release (weak probe).
    @Test(arguments: KeyPathScenario.all)
    func cycleThroughKeyPathMatchesTheRuntime(_ scenario: KeyPathScenario) {
      let (graph, probe) = walkAndRelease(scenario)
      #expect((probe.object != nil) == scenario.leaks, "the runtime disagrees\n\(graph.report())")
      let read = Self.argumentsWereRead(graph)
      if read {
        #expect(graph.walkNotes == [], "\(graph.report())")
        #expect(graph.predictedLeaks().contains(graph.root) == scenario.leaks, "\(graph.report())")
        #expect(graph.cycles.isEmpty == !scenario.leaks, "\(graph.report())")
      } else if scenario.leaks {
        withKnownIssue(
          "-c release: arguments whose witnesses have no symbol of their own are noted, not read"
        ) {
          #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
        }
      }
      (probe.object as? KeyPathHolder)?.keyPath = nil
      #expect(probe.object == nil, "dropping the key path frees the holder")
    }
  #endif

  /// Whether the walk read the key path's arguments: always in a debug build. In `-c release` the
  /// compiler may give a key path's witnesses no symbol of their own (measured, Swift 6.3.1: of
  /// this file's index types only `(KeyPathHolder)`'s equality keeps one), and then the walk notes
  /// the arguments instead of reading them: never silent.
  private static func argumentsWereRead(_ graph: ObjectGraph) -> Bool {
    #if DEBUG
      return true
    #else
      #expect(
        graph.walkNotes.allSatisfy { $0.description.contains("subscript arguments") }, "\(graph.walkNotes)")
      return graph.walkNotes.isEmpty
    #endif
  }

  @inline(never)
  private func walkAndRelease(_ scenario: KeyPathScenario) -> (ObjectGraph, WeakProbe) {
    let holder = KeyPathHolder()
    holder.keyPath = scenario.make(holder)
    let graph = ObjectGraph(reflecting: holder)
    return (graph, WeakProbe(holder))
  }

  // Needs the binary readers: what it checks is found through symbols (hidden field types, key

  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    /// The argument is an edge from the key path object to the holder.
    @Test func argumentIsAnEdgeFromTheKeyPath() {
      let holder = KeyPathHolder()
      holder.keyPath = \KeyPathTable.[3, holder]
      defer { holder.keyPath = nil }
      let graph = ObjectGraph(reflecting: holder)
      guard Self.argumentsWereRead(graph) else { return }
      let keyPath = graph.nodes.first { $0.typeName.contains("KeyPath<") }
      #expect(keyPath != nil, "\(graph.nodes)")
      #expect(
        graph.edges.contains {
          $0.from == keyPath?.id && $0.to == graph.root && $0.label == "subscript argument 1"
        },
        "\(graph.edges)")
    }
  #endif

  /// The witnesses' names type the arguments only when one of them is a function of its own: a
  /// merged body (`…Tm`) names one of the functions it serves, not necessarily this one.
  @Test func witnessNamesMustAgree() {
    #expect(KeyPathLayout.witnessTypes(equals: "$s1M5OwnerCTH", hash: "$s1M5OwnerCTh") == "1M5OwnerC")
    #expect(KeyPathLayout.witnessTypes(equals: "$s1M5OwnerCTH", hash: "$s1M5OwnerCThTm") == "1M5OwnerC")
    #expect(KeyPathLayout.witnessTypes(equals: "$s1M5OwnerCTHTm", hash: "$s1M5OwnerCTh") == "1M5OwnerC")
    #expect(KeyPathLayout.witnessTypes(equals: "$s1M5OwnerCTHTm", hash: "$s1M5OwnerCThTm") == nil)
    #expect(KeyPathLayout.witnessTypes(equals: "$s1M5OwnerCTH", hash: "$sSiTh") == nil)
    #expect(KeyPathLayout.witnessTypes(equals: "$s1M5OwnerCTK", hash: "$s1M5OwnerCTh") == nil)
  }
}
