import Foundation
import RetainGraph
import RetainGraphTestSupport
import Testing

/// `retain-graph check` never says "clear" without having looked: a snapshot whose walk was cut or
/// could not read a part of the user's objects exits 3 and says what was not seen.
@Suite struct CheckIncompleteTests {
  @Test func anIncompleteSnapshotExitsThree() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }

    // A walk cut at 3 nodes: no cycle in what it saw.
    let cut = directory.appendingPathComponent("cut.json")
    let chain = CheckChain(length: 10)
    try ObjectGraph(reflecting: chain, options: GraphOptions(maxNodes: 3)).jsonData().write(to: cut)
    let truncated = try CLITests.run("check", cut.path)
    #expect(truncated.status == 3)
    assertGolden(truncated.text, named: "check-truncated")

    // A part of the user's object not read: a noted node in the file.
    let unread = directory.appendingPathComponent("unread.json")
    let graph = try ObjectGraph(
      nodes: [Node(id: 0, typeName: "App.Slots", kind: .object)], edges: [],
      walkNotes: [
        GraphNote(
          kind: .unreadElements, node: 0, typeName: "App.Slots",
          description:
            "App.Slots: the elements a ManagedBuffer stores after its header are not walked (conform it to GraphReflectable to show them)"
        )
      ])
    try graph.jsonData().write(to: unread)
    let noted = try CLITests.run("check", unread.path)
    #expect(noted.status == 3)
    assertGolden(noted.text, named: "check-unread")

    // The same note in a library's object: shown short, and the check passes.
    let library = directory.appendingPathComponent("library.json")
    try ObjectGraph(
      nodes: [
        Node(id: 0, typeName: "App.Service", kind: .object),
        Node(id: 1, typeName: "closure #1 in Logging.Logger.init(label:)", kind: .closure),
      ],
      edges: [Edge(from: 0, to: 1, label: "log", ownership: .strong, kind: .property, property: "log")],
      walkNotes: [
        GraphNote(
          kind: .unrecognisedClosure, node: 1, typeName: "closure #1 in Logging.Logger.init(label:)",
          description:
            "closure #1 in Logging.Logger.init(label:): closure context layout not recognised; its captures are not shown"
        )
      ]
    ).jsonData().write(to: library)
    let benign = try CLITests.run("check", library.path)
    #expect(benign.status == 0)
    #expect(benign.text == "no retain cycle reachable from Service\n")

    // Walked whole, the chain is clean.
    let whole = directory.appendingPathComponent("whole.json")
    try ObjectGraph(reflecting: chain).jsonData().write(to: whole)
    let clean = try CLITests.run("check", whole.path)
    #expect(clean.status == 0)
    #expect(clean.text == "no retain cycle reachable from CheckChain\n")
  }
}

final class CheckChain {
  var next: CheckChain?
  init(length: Int) {
    if length > 1 { next = CheckChain(length: length - 1) }
  }
}
