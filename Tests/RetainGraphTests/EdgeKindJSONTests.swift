import Foundation
import RetainGraph
import Testing

/// An edge kind has one JSON form, the graph's: encoded alone (`JSONEncoder`) it writes the same
/// `kind`, `capture` and `method` fields an edge of the graph's JSON has; the form Swift's
/// synthesised coding wrote before still reads.
@Suite struct EdgeKindJSONTests {
  static let everyKind: [Edge.Kind] = [
    .property, .enumPayload, .element, .closure, .singleCapture, .methodReference(method: "Screen.refresh()"),
    .capture(index: 2), .actorIsolation(index: 0), .global, .suspendedFrame,
  ]

  /// A JSON object's fields, through Foundation's parser.
  static func fields(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  @Test func aKindAloneIsWrittenAsAnEdgeOfTheGraphWritesIt() throws {
    let nodes = [
      Node(id: 0, typeName: "App.Screen", kind: .object), Node(id: 1, typeName: "App.Model", kind: .object),
    ]
    let edges = Self.everyKind.map {
      Edge(from: 0, to: 1, label: "l", ownership: .weak, kind: $0, property: nil)
    }
    let graph = try ObjectGraph(nodes: nodes, edges: edges)
    let written = try #require(Self.fields(graph.jsonData())["edges"] as? [[String: Any]])
    #expect(written.count == Self.everyKind.count)
    for (kind, edge) in zip(Self.everyKind, written) {
      let alone = try Self.fields(JSONEncoder().encode(kind))
      let expected = edge.filter { ["kind", "capture", "method"].contains($0.key) }
      #expect(NSDictionary(dictionary: alone).isEqual(to: expected), "\(kind): \(alone) \(expected)")
      #expect(try JSONDecoder().decode(Edge.Kind.self, from: JSONEncoder().encode(kind)) == kind)
    }
  }

  @Test(arguments: [
    (#"{"property":{}}"#, Edge.Kind.property), (#"{"capture":{"index":3}}"#, .capture(index: 3)),
    (#"{"actorIsolation":{"index":1}}"#, .actorIsolation(index: 1)),
    (#"{"methodReference":{"method":"UseCase.handle(_:)"}}"#, .methodReference(method: "UseCase.handle(_:)")),
    (#"{"suspendedFrame":{}}"#, .suspendedFrame),
  ])
  func theFormerSynthesisedFormStillReads(_ json: String, _ kind: Edge.Kind) throws {
    #expect(try JSONDecoder().decode(Edge.Kind.self, from: Data(json.utf8)) == kind)
  }

  @Test(arguments: [#"{"kind":"struct"}"#, #"{"kind":"capture"}"#, #"{"closure":{},"global":{}}"#, "{}"])
  func aKindThatNamesNothingIsAnError(_ json: String) {
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Edge.Kind.self, from: Data(json.utf8)) }
  }
}
