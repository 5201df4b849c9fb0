import Foundation
import RetainGraph
import Testing

/// A decoding error says what is wrong and where as values (``GraphDecodingError/reason``,
/// ``GraphDecodingError/location``), beside the unchanged message.
@Suite struct GraphDecodingErrorTests {
  typealias Reason = GraphDecodingError.Reason

  /// Bad inputs, each with the reason and the field it names (the messages are `JSONTests`').
  static let cases: [(json: String, reason: Reason, field: String?)] = [
    ("[1, 2]", .notAGraph, nil),
    (JSONTests.breaking(#""format": "retain-graph""#, with: #""format": "graphml""#), .notAGraph, "format"),
    (JSONTests.breaking(#""format": "retain-graph","#, with: ""), .missingField, "format"),
    (JSONTests.breaking(#""version": 1"#, with: #""version": 3"#), .unsupportedVersion, "version"),
    (JSONTests.breaking(#""version": 1"#, with: #""version": "1""#), .wrongType, "version"),
    (JSONTests.breaking(#""root": 0"#, with: #""root": 7"#), .unknownNode, "root"),
    (JSONTests.breaking(#""truncated": false"#, with: #""truncated": 0"#), .wrongType, "truncated"),
    (JSONTests.breaking(#""nodes": ["#, with: #""nodes": {}, "x": ["#), .wrongType, "nodes"),
    (
      JSONTests.breaking(#"{ "id": 0, "type": "App.Presenter", "kind": "object" }"#, with: "null"),
      .wrongType, "nodes[0]"
    ),
    (JSONTests.breaking(#""id": 1"#, with: #""ident": 1"#), .missingField, "nodes[1].id"),
    (JSONTests.breaking(#""id": 1"#, with: #""id": 0"#), .duplicateID, "nodes[1].id"),
    (JSONTests.breaking(#""id": 1"#, with: #""id": 2"#), .idOutOfPlace, "nodes[1].id"),
    (
      JSONTests.breaking(#""kind": "object" } ]"#, with: #""kind": "struct" } ]"#), .unknownValue,
      "nodes[1].kind"
    ),
    (JSONTests.breaking(#""to": 1"#, with: #""to": 5"#), .unknownNode, "edges[0].to"),
    (JSONTests.breaking(#""from": 0"#, with: #""from": 9"#), .unknownNode, "edges[0].from"),
    (
      JSONTests.breaking(#""ownership": "strong" },"#, with: #""ownership": "owned" },"#), .unknownValue,
      "edges[0].ownership"
    ),
    (
      JSONTests.breaking(#""edges": ["#, with: #""dangling": [{"holder": 4, "label": "x"}], "edges": ["#),
      .unknownNode, "dangling[0].holder"
    ),
    (
      JSONTests.breaking(#""edges": ["#, with: #""notes": ["ok", 2], "edges": ["#), .wrongType, "notes[1]"
    ),
  ]

  @Test(arguments: cases)
  func eachBadInputHasItsReasonAndField(_ json: String, _ reason: Reason, _ field: String?) {
    do {
      _ = try ObjectGraph(jsonData: Data(json.utf8))
      Issue.record("read: \(json)")
    } catch {
      #expect(error.reason == reason, "\(error)")
      #expect(error.location == field.map(GraphDecodingError.Location.field), "\(error)")
      // The message starts with the field the location names.
      if let field { #expect(error.message.hasPrefix("\(field): "), "\(error)") }
      #expect(error.description == "invalid graph: \(error.message)")
    }
  }

  /// A syntax error's location is the byte where reading stopped: at the bad token.
  @Test func aSyntaxErrorIsAtTheByteWhereReadingStopped() throws {
    let text = #"{ "format": "retain-graph", "version": tru }"#
    do {
      _ = try ObjectGraph(jsonData: Data(text.utf8))
      Issue.record("read: \(text)")
    } catch {
      #expect(error.reason == .notJSON)
      #expect(error.message.hasPrefix("not JSON: "))
      guard case .byteOffset(let offset) = error.location else {
        Issue.record("no byte offset: \(String(describing: error.location))")
        return
      }
      // Where the message says (Foundation's wording, which the reader keeps), in the bad token
      // `tru` or the space after it.
      let badToken = try #require(text.utf8.firstIndex(of: UInt8(ascii: "t"), after: "version"))
      #expect((badToken...badToken + 3).contains(offset), "\(error)")
      #expect(error.message.hasSuffix("around character \(offset)."), "\(error)")
    }
  }

  /// Parts given to `ObjectGraph(nodes:edges:)` are checked with the same reasons.
  @Test func partsAreCheckedWithTheSameReasons() {
    let nodes = [Node(id: 0, typeName: "A", kind: .object), Node(id: 1, typeName: "B", kind: .object)]
    let checks: [(edges: [Edge], nodes: [Node], root: Int, reason: Reason, field: String)] = [
      (
        [Edge(from: 0, to: 2, label: "b", ownership: .strong, kind: .property, property: "b")], nodes, 0,
        .unknownNode, "edges[0].to"
      ),
      ([], nodes, 5, .unknownNode, "root"),
      ([], [nodes[1]], 0, .idOutOfPlace, "nodes[0].id"),
    ]
    for check in checks {
      do {
        _ = try ObjectGraph(nodes: check.nodes, edges: check.edges, root: check.root)
        Issue.record("made a graph: \(check)")
      } catch {
        #expect(error.reason == check.reason, "\(error)")
        #expect(error.location == .field(check.field), "\(error)")
      }
    }
    // An error made from a message alone says nothing more.
    let plain = GraphDecodingError("edges[0].to: 3 is not the id of a node")
    #expect(plain.reason == .other && plain.location == nil)
  }

  /// Bytes that are no JSON in any encoding.
  @Test func zeroBytesAreNotJSON() throws {
    let data = Data([0, 0, 0, 0, 0])
    do {
      _ = try ObjectGraph(jsonData: data)
      Issue.record("read zero bytes")
    } catch {
      #expect(error.reason == .notJSON, "\(error)")
    }
  }
}

extension String.UTF8View {
  /// The offset of the first `byte` after the first occurrence of `marker`.
  fileprivate func firstIndex(of byte: UInt8, after marker: String) -> Int? {
    let bytes = Array(self)
    let needle = Array(marker.utf8)
    guard
      let start = (0...(bytes.count - needle.count)).first(where: {
        Array(bytes[$0..<$0 + needle.count]) == needle
      })
    else { return nil }
    return bytes[(start + needle.count)...].firstIndex(of: byte)
  }
}
