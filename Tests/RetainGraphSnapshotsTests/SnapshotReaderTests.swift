import Foundation
import RetainGraphSnapshots
import Testing

/// The snapshot reader on texts written by hand: what it reads into columns, and each problem's
/// reason, place and whole message. (Every accepted text and message against Foundation's reading
/// is the core's `JSONReaderDifferentialTests`.)
@Suite struct SnapshotReaderTests {
  static func read(_ text: String, declarations: @escaping (String) -> Bool = { _ in true })
    throws(SnapshotReadingError) -> SnapshotContents
  {
    try SnapshotReader(data: Data(text.utf8), isDeclarationKey: declarations).read()
  }

  static func problem(_ text: String) -> SnapshotReadingError? {
    do {
      _ = try read(text)
      return nil
    } catch {
      return error
    }
  }

  static let graph = """
    {"format": "retain-graph", "version": 2, "root": 0, "truncated": false,
     "nodes": [{"id": 1, "type": "App.Item", "kind": "object"}, {"id": 0, "type": "App.List", "kind": "value"},
               {"id": 2, "type": "App.Item", "kind": "closure"}],
     "edges": [{"from": 0, "to": 1, "label": "items[0]", "ownership": "strong", "kind": "element", "property": "items"},
               {"from": 1, "to": 0, "label": "list", "ownership": "unowned(unsafe)", "kind": "property"},
               {"from": 2, "to": 1, "label": "capture 3", "ownership": "weak", "kind": "capture", "capture": 3},
               {"from": 1, "to": 0, "label": "list", "ownership": "unowned(unsafe)", "kind": "property"}],
     "dangling": [{"holder": 2, "label": "gone"}], "notes": ["one"],
     "sourceLocations": [{"declaration": "property App.Item.list", "file": "A.swift", "line": 3, "column": null}]}
    """

  @Test func aSnapshotReadsIntoColumnsInIdOrder() throws {
    let contents = try Self.read(Self.graph)
    #expect(contents.version == 2 && contents.root == 0 && !contents.truncated)
    // Nodes by id, whatever the text's order; type names interned in id order.
    #expect(contents.typeNames == ["App.List", "App.Item"])
    #expect(contents.nodeTypes == [0, 1, 1])
    #expect(contents.nodeKinds.map { SnapshotFormat.nodeKinds[Int($0)] } == ["value", "object", "closure"])
    // Equal labels are one; each edge names its label and its ownership's code.
    #expect(contents.labels.count == 3)
    #expect(Array(contents.edges).map(\.label) == [0, 1, 2, 1])
    #expect(
      Array(contents.edges).map { SnapshotFormat.ownerships[Int($0.ownership)] } == [
        "strong", "unowned(unsafe)", "weak", "unowned(unsafe)",
      ])
    let capture = contents.labels[2]
    #expect(SnapshotFormat.edgeKinds[Int(capture.kind)] == "capture" && capture.argument == 3)
    #expect(contents.strings[contents.labels[0].property] == "items")
    #expect(
      contents.dangling.map(\.holder) == [2] && contents.notes == ["one"] && contents.noteDetails == nil)
    #expect(contents.sourceLocations.map(\.declaration) == ["property App.Item.list"])
    #expect(contents.sourceLocations.first?.column == nil)
  }

  @Test(
    arguments: [
      (
        #"[1]"#, SnapshotReadingError.Reason.notAGraph, nil,
        "the top level: expected an object, found an array"
      ),
      (#"{"format": 1}"#, .wrongType, "format", "format: expected a string, found the number 1"),
      (
        #"{"format": "other"}"#, .notAGraph, "format",
        #"format: expected "retain-graph", found "other"; this is not a retain-graph JSON file"#
      ),
      (
        #"{"format": "retain-graph", "version": 3}"#, .unsupportedVersion, "version",
        "version: 3 is not supported; this reader understands versions 1 and 2"
      ),
      (
        #"{"format": "retain-graph", "version": 2, "root": 0, "truncated": false, "nodes": [{"id": 0, "type": "T", "kind": "thing"}], "edges": []}"#,
        .unknownValue, "nodes[0].kind",
        #"nodes[0].kind: unknown kind "thing"; expected one of "object", "closure", "value", "task""#
      ),
      (
        #"{"format": "retain-graph", "version": 2, "root": 0, "truncated": false, "nodes": [{"id": 0, "type": "T", "kind": "object"}, {"id": 0, "type": "T", "kind": "object"}], "edges": []}"#,
        .duplicateID, "nodes[1].id", "nodes[1].id: duplicate id 0 (also nodes[0].id)"
      ),
      (
        #"{"format": "retain-graph", "version": 2, "root": 0, "truncated": false, "nodes": [{"id": 0, "type": "T", "kind": "object"}], "edges": [{"from": 0, "to": 5, "label": "x", "ownership": "strong", "kind": "property"}]}"#,
        .unknownNode, "edges[0].to", "edges[0].to: 5 is not the id of a node"
      ),
    ] as [(String, SnapshotReadingError.Reason, String?, String)])
  func eachProblemHasItsReasonPlaceAndMessage(
    text: String, reason: SnapshotReadingError.Reason, field: String?, message: String
  ) throws {
    let problem = try #require(Self.problem(text))
    #expect(problem.reason == reason)
    #expect(problem.location == field.map { .field($0) })
    #expect(problem.message == message)
  }

  /// A `sourceLocations` declaration the caller does not read is a problem at its place.
  @Test func aDeclarationOfNoKnownFormIsAProblem() throws {
    let text = Self.graph.replacingOccurrences(of: "property App.Item.list", with: "variable list")
    do {
      _ = try Self.read(text) { $0.hasPrefix("property ") }
      Issue.record("read \(text)")
    } catch {
      #expect(error.location == .field("sourceLocations[0].declaration"))
      #expect(
        error.message
          == #"sourceLocations[0].declaration: expected "property Type.name" or "closure name", found "variable list""#
      )
    }
  }

  /// Text that is not JSON stops at its byte.
  @Test func textThatIsNotJSONSaysWhereReadingStopped() throws {
    let problem = try #require(Self.problem(#"{"format": "retain-graph", "version": 2,]"#))
    #expect(problem.reason == .notJSON)
    #expect(problem.location == .byteOffset(40))  // the `]`
  }
}
