import Foundation
import Samples
import Testing

@testable import RetainGraph

/// `jsonData()` writes its JSON by hand (so that it cannot fail); these tests hold it to the bytes
/// Foundation's `JSONEncoder` writes for the same values, with the options the format was defined
/// with (`.prettyPrinted`, `.sortedKeys`, `.withoutEscapingSlashes`).
@Suite struct JSONWriterTests {
  /// The format as `Encodable` values, encoded by Foundation: the independent computation.
  struct Encoded: Encodable {
    struct NodeRecord: Encodable {
      var id: Int
      var type: String
      var kind: String
    }
    struct EdgeRecord: Encodable {
      var from: Int
      var to: Int
      var label: String
      var ownership: String
      var kind: String
      var capture: Int?
      var method: String?
      var property: String?
      var function: String?

      init(_ edge: Edge) {
        from = edge.from
        to = edge.to
        label = edge.label
        ownership = edge.ownership.rawValue
        kind = edge.kind.jsonName
        if case .capture(let index) = edge.kind { capture = index }
        if case .methodReference(let name) = edge.kind { method = name }
        property = edge.property
        function = edge.closureFunction
      }
    }
    struct DanglingRecord: Encodable {
      var holder: Int
      var label: String
    }
    var format = "retain-graph"
    var version = 2
    var root: Int
    var truncated: Bool
    var nodes: [NodeRecord]
    var edges: [EdgeRecord]
    var dangling: [DanglingRecord]?
    var notes: [String]?
    struct LocationRecord: Encodable {
      var column: Int?
      var declaration: String
      var file: String
      var line: Int
    }
    var sourceLocations: [LocationRecord]?

    init(_ graph: ObjectGraph) {
      root = graph.root
      truncated = graph.isTruncated
      nodes = graph.nodes.map { NodeRecord(id: $0.id, type: $0.typeName, kind: $0.kind.rawValue) }
      edges = graph.edges.map(EdgeRecord.init)
      dangling =
        graph.danglingReferences.isEmpty
        ? nil : graph.danglingReferences.map { DanglingRecord(holder: $0.holder, label: $0.label) }
      var seen: Set<String> = []
      let sentences = graph.walkNotes.filter { $0.kind != .truncated && seen.insert($0.description).inserted }
        .map(\.description)
      notes = sentences.isEmpty ? nil : sentences
      var located: [String: CodeLocation] = [:]
      for fix in graph.cycles.flatMap(\.fixPlan) {
        if let key = fix.declaration?.key, let location = fix.location { located[key] = location }
        if let key = fix.alternative?.declaration?.key, let location = fix.alternative?.location {
          located[key] = location
        }
      }
      sourceLocations =
        located.isEmpty
        ? nil
        : located.sorted { $0.key < $1.key }.map {
          LocationRecord(
            column: $0.value.column, declaration: $0.key, file: $0.value.file, line: $0.value.line)
        }
    }
  }

  static func foundationJSON(_ graph: ObjectGraph) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(Encoded(graph)) + Data([0x0A])
  }

  // Needs the binary readers: the Foundation oracle predates note kinds, and without the readers

  // the samples carry a note of names not read.
  #if BinaryReaders
    @Test(arguments: Sample.all.map(\.name))
    func everySampleMatchesFoundation(_ name: String) throws {
      let instance = try #require(Sample.named(name)).make()
      defer { instance.breakCycles() }
      let graph = ObjectGraph(reflecting: instance.root)
      #expect(
        String(decoding: graph.jsonData(), as: UTF8.self)
          == String(decoding: try Self.foundationJSON(graph), as: UTF8.self))
    }
  #endif

  /// Every character class a type name, label or note can hold: each control character, quotes,
  /// backslashes, slashes, DEL, non-ASCII letters, an emoji, line and paragraph separators, byte order
  /// marks (which Foundation's reader dropped at a string's start; the snapshot reader keeps them).
  static let awkward: [String] = {
    var texts = (0..<0x20).map { "a\(Character(Unicode.Scalar(UInt8($0))))b" }
    texts += [
      "", "\"", "\\", "/", "</script>", "\u{7F}", "é", "日本", "🎉", "\u{2028}\u{2029}",
      "closure #1 in A.f(_:) (stored in B.handlers[0])", "Dictionary<String, Array<Int>>", "\\u0041",
      "\u{FEFF}", "\u{FEFF}a\u{FEFF}",
    ]
    return texts
  }()

  @Test func awkwardTextsMatchFoundation() throws {
    let texts = Self.awkward
    let nodes = texts.indices.map {
      Node(id: $0, typeName: texts[$0], kind: [.object, .closure, .value][$0 % 3])
    }
    let edges = texts.indices.map {
      Edge(
        from: $0, to: ($0 + 1) % texts.count, label: texts[texts.count - 1 - $0],
        ownership: Ownership.allCases[$0 % Ownership.allCases.count], kind: .element,
        property: texts[$0])
    }
    let graph = try ObjectGraph(
      nodes: nodes, edges: edges, root: 3, isTruncated: true,
      danglingReferences: texts.indices.map { DanglingReference(holder: $0, label: texts[$0]) }, notes: texts)
    #expect(
      String(decoding: graph.jsonData(), as: UTF8.self)
        == String(decoding: try Self.foundationJSON(graph), as: UTF8.self))
    let read = try ObjectGraph(jsonData: graph.jsonData())
    #expect(read.nodes == graph.nodes)
    #expect(read.edges == graph.edges)
    #expect(read.walkNotes.map(\.description) == texts)
  }

  @Test func emptyAndSmallestGraphsMatchFoundation() throws {
    let single = try ObjectGraph(nodes: [Node(id: 0, typeName: "A", kind: .value)], edges: [])
    #expect(
      String(decoding: single.jsonData(), as: UTF8.self)
        == String(decoding: try Self.foundationJSON(single), as: UTF8.self))
    #expect(String(decoding: single.jsonData(), as: UTF8.self).contains("\"edges\" : [\n\n  ],"))
  }

  /// Random graphs of random texts, from a fixed seed so that a failure repeats.
  @Test func randomGraphsMatchFoundation() throws {
    var random = SplitMix(seed: 0x5EED_0018)
    let pool = Array("ab\"\\/\n\t\u{1}\u{1F}\u{7F}é日🎉 .[]()#:,{}")
    func text() -> String {
      String((0..<Int(random.next() % 12)).map { _ in pool[Int(random.next() % UInt64(pool.count))] })
    }
    for _ in 0..<200 {
      let count = 1 + Int(random.next() % 8)
      let nodes = (0..<count).map {
        Node(id: $0, typeName: text(), kind: Node.Kind.allCases[Int(random.next() % 3)])
      }
      let edges = (0..<Int(random.next() % 12)).map { _ in
        Edge(
          from: Int(random.next() % UInt64(count)), to: Int(random.next() % UInt64(count)), label: text(),
          ownership: Ownership.allCases[Int(random.next() % 4)], kind: .property, property: nil)
      }
      let dangling = (0..<Int(random.next() % 3)).map { _ in
        DanglingReference(holder: Int(random.next() % UInt64(count)), label: text())
      }
      let graph = try ObjectGraph(
        nodes: nodes, edges: edges, root: Int(random.next() % UInt64(count)),
        isTruncated: random.next() % 2 == 0,
        danglingReferences: dangling, notes: (0..<Int(random.next() % 3)).map { _ in text() })
      let expected = try Self.foundationJSON(graph)
      #expect(graph.jsonData() == expected, "\(String(decoding: expected, as: UTF8.self))")
    }
  }
}

/// A small seeded generator (SplitMix64), so that the random graphs are the same on every run.
private struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
