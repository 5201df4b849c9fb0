import Foundation
import RetainGraph
import Testing

/// `RETAIN_GRAPH_LIBRARY_MODULES` names a program's (or a test target's) own library modules once,
/// read when the process starts: the command line's `check` plans a snapshot with them.
@Suite("Library modules named in the environment")
struct LibraryModulesEnvironmentTests {
  /// A screen of the app's and a box of a vendor's module, holding each other; the box's reference
  /// is named `owner`.
  private static func snapshot() throws -> Data {
    let graph = try ObjectGraph(
      nodes: [
        Node(id: 0, typeName: "App.Screen", kind: .object),
        Node(id: 1, typeName: "Vendor.Box", kind: .object),
      ],
      edges: [
        Edge(from: 0, to: 1, label: "box", ownership: .strong, kind: .property, property: "box"),
        Edge(from: 1, to: 0, label: "owner", ownership: .strong, kind: .property, property: "owner"),
      ])
    return graph.jsonData()
  }

  @Test func aModuleNamedInTheEnvironmentIsALibrary() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("graph.json")
    try Self.snapshot().write(to: file)

    // Vendor is not known: `owner` is a back reference of the app's to weaken.
    let plain = try CLITests.run(arguments: ["check", file.path])
    #expect(plain.status == 1)
    #expect(plain.text.contains("fix: make Box.owner weak"), "\(plain.text)")

    // Named in the environment, Vendor is a library: its reference is advised as the library's.
    let named = try CLITests.run(
      arguments: ["check", file.path], environment: ["RETAIN_GRAPH_LIBRARY_MODULES": "Other, Vendor"])
    #expect(named.status == 1)
    #expect(
      named.text.contains(
        "fix: Box.owner is Vendor's reference to Screen: end what holds the Screen when done (cancel, "
          + "close, finish, invalidate or remove it): the reference is Vendor's and cannot be made weak"),
      "\(named.text)")
  }
}
