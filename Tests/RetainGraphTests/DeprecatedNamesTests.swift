import Foundation
import RetainGraph
import Samples
import Testing

/// The names issue 18 replaced still compile, as deprecated aliases of the new ones.
///
/// The old names are used only inside ``OldNames``'s members, which are deprecated themselves (so
/// using a deprecated name there draws no warning) and are called through a protocol (so calling
/// them draws none either): `swift build` stays warning-free while the old spellings are compiled.
@Suite struct DeprecatedNamesTests {
  let old: any OldNameUses.Type = OldNames.self

  @Test func snapshotErrorIsGraphDecodingError() {
    let same = old.snapshotErrorIsTheNewType()
    #expect(same)
    let error = old.makeSnapshotError("edges[0].to: 3 is not the id of a node")
    #expect(error == GraphDecodingError("edges[0].to: 3 is not the id of a node"))
    #expect(error.description == "invalid graph: edges[0].to: 3 is not the id of a node")
  }

  @Test func readingBadJSONThrowsWhatTheOldNameCatches() {
    let missingFormat = old.messageCaughtAsSnapshotError(Data("{}".utf8))
    #expect(missingFormat == "format: missing field")
    let array = old.messageCaughtAsSnapshotError(Data("[]".utf8))
    #expect(array == "the top level: expected an object, found an array")
  }

  @Test func predictedLeakedNodesAreThePredictedLeaksNodes() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root)
    #expect(!graph.predictedLeaks().isEmpty)
    let nodes = old.predictedLeakedNodes(of: graph)
    #expect(nodes == graph.predictedLeaks().map(graph.node))
  }

  @Test func suggestedBreakIsTheSuggestedEdge() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let cycle = try #require(ObjectGraph(reflecting: instance.root).cycles.first)
    #expect(cycle.suggestedEdge != nil)
    #expect(old.suggestedBreak(of: cycle) == cycle.suggestedEdge)
  }

  // Needs the binary readers: what it checks is found through symbols (hidden field types, key

  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    @Test func suggestedBreakOfALibrarysOwnLoopIsTheLoopsFirstReference() throws {
      let screen = TrackingScreen()
      screen.observeWeakly()
      defer { screen.model.value += 1 }  // ends the tracking
      let cycle = try #require(ObjectGraph(reflecting: screen).cycles.first { $0.isLibraryOnly })
      #expect(cycle.suggestedEdge == nil)
      #expect(old.suggestedBreak(of: cycle) == cycle.path.first)
    }
  #endif

  /// The labels' texts still match as they did: `items[0]` one element, `Holder.leaf` by the holder's
  /// short type name.
  @Test func ignoredLabelsStillLeaveOutTheirLabels() {
    let leaves = [Leaf(), Leaf()]
    let root = Holder(leaves[0])
    let box = GenericBox(root)
    let options = old.options(ignoringLabels: ["Holder.leaf", "strongValue"])
    #expect(old.ignoredLabels(of: options) == ["Holder.leaf", "strongValue"])
    let graph = ObjectGraph(reflecting: box, options: options)
    #expect(!graph.edges.contains { $0.label == "leaf" || $0.label == "strongValue" })
    #expect(graph.edges.contains { $0.label == "weakValue" })
    #expect(ObjectGraph(reflecting: box).edges.contains { $0.label == "strongValue" })
  }

  /// The process-wide modules still reach every default (read only here: setting them would touch
  /// every test running at the same time).
  @Test func additionalLibraryModulesAreInTheDefault() {
    #expect(GraphOptions.defaultLibraryModules.isSuperset(of: old.additionalLibraryModules()))
  }

  @Test func snapshotWalkErrorIsForkedWalkError() {
    let same = old.snapshotWalkErrorIsTheNewType()
    #expect(same)
    let exited = old.makeSnapshotWalkError(status: 3)
    #expect(exited == ForkedWalkError.childExited(status: 3))
    #expect(
      ForkedWalkError.childExited(status: 3).description
        == "forked walk failed: the forked child exited with status 3 before sending the whole graph")
  }
}

protocol OldNameUses {
  static func snapshotErrorIsTheNewType() -> Bool
  static func makeSnapshotError(_ message: String) -> GraphDecodingError
  static func messageCaughtAsSnapshotError(_ data: Data) -> String?
  static func snapshotWalkErrorIsTheNewType() -> Bool
  static func makeSnapshotWalkError(status: Int32) -> ForkedWalkError
  static func predictedLeakedNodes(of graph: ObjectGraph) -> [Node]
  static func suggestedBreak(of cycle: Cycle) -> Edge
  static func options(ignoringLabels labels: Set<String>) -> GraphOptions
  static func ignoredLabels(of options: GraphOptions) -> Set<String>
  static func additionalLibraryModules() -> Set<String>
}

enum OldNames: OldNameUses {
  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func snapshotErrorIsTheNewType() -> Bool { SnapshotError.self == GraphDecodingError.self }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func makeSnapshotError(_ message: String) -> GraphDecodingError { SnapshotError(message) }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func messageCaughtAsSnapshotError(_ data: Data) -> String? {
    do {
      _ = try ObjectGraph(jsonData: data)
      return nil
    } catch {
      let caught: SnapshotError = error  // the typed error is the old name's type
      return caught.message
    }
  }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func snapshotWalkErrorIsTheNewType() -> Bool { SnapshotWalkError.self == ForkedWalkError.self }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func makeSnapshotWalkError(status: Int32) -> ForkedWalkError {
    SnapshotWalkError.childExited(status: status)
  }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func predictedLeakedNodes(of graph: ObjectGraph) -> [Node] { graph.predictedLeakedNodes() }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func suggestedBreak(of cycle: Cycle) -> Edge { cycle.suggestedBreak }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func options(ignoringLabels labels: Set<String>) -> GraphOptions {
    GraphOptions(ignoredLabels: labels)
  }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func ignoredLabels(of options: GraphOptions) -> Set<String> { options.ignoredLabels }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func additionalLibraryModules() -> Set<String> { GraphOptions.additionalLibraryModules }
}
