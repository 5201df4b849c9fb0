import Foundation
import RetainGraph
import RetainGraphTestSupport
import Samples
import Testing

@Suite struct JSONTests {
  static func graph(of sample: Sample) -> ObjectGraph {
    let instance = sample.make()
    defer { instance.breakCycles() }
    return ObjectGraph(reflecting: instance.root)
  }

  static let valid = """
    { "format": "retain-graph", "version": 1, "root": 0, "truncated": false,
      "nodes": [ { "id": 0, "type": "App.Presenter", "kind": "object" },
                 { "id": 1, "type": "App.Interactor", "kind": "object" } ],
      "edges": [ { "from": 0, "to": 1, "label": "interactor", "ownership": "strong" },
                 { "from": 1, "to": 0, "label": "output", "ownership": "strong" } ] }
    """

  @Test(arguments: Sample.all.map(\.name))
  func roundTripIsLossless(_ name: String) throws {
    let graph = Self.graph(of: try #require(Sample.named(name)))
    let data = graph.jsonData()
    let read = try ObjectGraph(jsonData: data)
    #expect(read.root == graph.root)
    #expect(read.nodes == graph.nodes)
    #expect(read.edges == graph.edges)
    #expect(read.isTruncated == graph.isTruncated)
    #expect(read.cycles == graph.cycles)
    #expect(read.danglingReferences == graph.danglingReferences)
    #expect(read.walkNotes == graph.walkNotes)
    #expect(read.report() == graph.report())
    #expect(read.jsonData() == data, "writing it again gives the same bytes")
    #expect(graph.jsonData() == data, "deterministic")
  }

  @Test func writesFormatVersionTwo() throws {
    let graph = Self.graph(of: try #require(Sample.named("viper-module")))
    let data = graph.jsonData()
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object["format"] as? String == "retain-graph")
    #expect(object["version"] as? Int == 2)
    #expect(object["root"] as? Int == 0)
    #expect(object["truncated"] as? Bool == false)
    #expect(object["dangling"] == nil, "optional arrays are left out when empty")
    let nodes = try #require(object["nodes"] as? [[String: Any]])
    #expect(nodes.first?["type"] as? String == "Samples.ViewController")
    #expect(nodes.first?["kind"] as? String == "object")
    #expect(Set(nodes.first?.keys.map { $0 } ?? []) == ["id", "type", "kind"])
    let edges = try #require(object["edges"] as? [[String: Any]])
    #expect(
      Set(edges.first?.keys.map { $0 } ?? []) == ["from", "to", "label", "ownership", "kind", "property"])
    #expect(edges.first?["kind"] as? String == "property")
    #expect(edges.first?["property"] as? String == edges.first?["label"] as? String)
    #expect(edges.contains { $0["ownership"] as? String == "weak" })
    let text = try #require(String(data: data, encoding: .utf8))
    #expect(text.hasPrefix("{\n"))
    #expect(
      text.range(of: "\"edges\"")?.lowerBound ?? text.endIndex < text.range(of: "\"format\"")?.lowerBound
        ?? text.startIndex)
  }

  @Test func unownedUnsafeDanglingAndNotesSurvive() throws {
    let graph = try ObjectGraph(
      nodes: [
        Node(id: 0, typeName: "A \"quoted\"\n日本", kind: .value), Node(id: 1, typeName: "B", kind: .closure),
      ],
      edges: [
        Edge(from: 0, to: 1, label: "x", ownership: .unownedUnsafe, kind: .property, property: "x"),
        Edge(from: 1, to: 1, label: "me", ownership: .strong, kind: .property, property: "me"),
      ],
      root: 0, isTruncated: true, danglingReferences: [DanglingReference(holder: 1, label: "owner")],
      notes: ["could not read a field"])
    let data = graph.jsonData()
    let text = String(decoding: data, as: UTF8.self)
    assertGolden(text, named: "unowned-unsafe-dangling-and-notes", pathExtension: "json")
    let read = try ObjectGraph(jsonData: data)
    #expect(read.nodes == graph.nodes)
    #expect(read.edges == graph.edges)
    #expect(read.isTruncated)
    #expect(read.danglingReferences == graph.danglingReferences)
    #expect(read.walkNotes == graph.walkNotes)
    #expect(read.cycles.count == 1)
  }

  @Test func readsTheDesignDocumentExampleAndOptionalArrays() throws {
    let graph = try ObjectGraph(jsonData: Data(Self.valid.utf8))
    #expect(graph.nodes.count == 2)
    #expect(graph.cycles.count == 1)
    #expect(graph.danglingReferences.isEmpty)
    #expect(graph.walkNotes.isEmpty)
  }

  @Test func nodesMayComeInAnyOrder() throws {
    let json = """
      { "format": "retain-graph", "version": 1, "root": 1, "truncated": false,
        "nodes": [ { "id": 1, "type": "B", "kind": "object" }, { "id": 0, "type": "A", "kind": "object" } ],
        "edges": [], "extra": "ignored" }
      """
    let graph = try ObjectGraph(jsonData: Data(json.utf8))
    #expect(graph.nodes.map(\.typeName) == ["A", "B"])
    #expect(graph.root == 1)
  }

  /// Replaces the first occurrence of `target` in the valid snapshot.
  static func breaking(_ target: String, with replacement: String) -> String {
    guard let range = valid.range(of: target) else { return "target \(target) not found" }
    return valid.replacingCharacters(in: range, with: replacement)
  }

  static let malformed: [(String, String)] = [
    // After `not JSON: ` comes Foundation's parser's reason, worded differently per platform.
    ("", "not JSON: "),
    ("{ \"format\": ", "not JSON: "),
    ("\u{FF}\u{FE}", "not JSON: "),
    ("[1, 2]", "the top level: expected an object, found an array"),
    ("42", "the top level: expected an object, found the number 42"),
    (
      breaking(#""format": "retain-graph""#, with: #""format": "graphml""#),
      #"format: expected "retain-graph", found "graphml"; this is not a retain-graph JSON file"#
    ),
    (breaking(#""format": "retain-graph","#, with: ""), "format: missing field"),
    (
      breaking(#""version": 1"#, with: #""version": 3"#),
      "version: 3 is not supported; this reader understands versions 1 and 2"
    ),
    (
      breaking(#""version": 1"#, with: #""version": 0"#),
      "version: 0 is not supported; this reader understands versions 1 and 2"
    ),
    (
      breaking(#""version": 1"#, with: #""version": "1""#),
      #"version: expected an integer, found the string "1""#
    ),
    (breaking(#""root": 0"#, with: #""root": 7"#), "root: 7 is not the id of a node (there are 2 nodes)"),
    (breaking(#""root": 0"#, with: #""root": 0.5"#), "root: expected an integer, found the number 0.5"),
    (breaking(#""root": 0"#, with: #""root": true"#), "root: expected an integer, found true"),
    (
      breaking(#""truncated": false"#, with: #""truncated": 0"#),
      "truncated: expected true or false, found the number 0"
    ),
    (breaking(#""truncated": false,"#, with: ""), "truncated: missing field"),
    (breaking(#""nodes": ["#, with: #""nodes": {}, "x": ["#), "nodes: expected an array, found an object"),
    (
      breaking(#"{ "id": 0, "type": "App.Presenter", "kind": "object" }"#, with: "null"),
      "nodes[0]: expected an object, found null"
    ),
    (
      breaking(#""id": 1"#, with: #""id": "one""#),
      #"nodes[1].id: expected an integer, found the string "one""#
    ),
    (breaking(#""id": 1"#, with: #""ident": 1"#), "nodes[1].id: missing field"),
    (breaking(#""id": 1"#, with: #""id": 0"#), "nodes[1].id: duplicate id 0 (also nodes[0].id)"),
    (
      breaking(#""id": 1"#, with: #""id": 2"#),
      "nodes[1].id: 2 is out of range; ids must be 0..<2, one per node, none missing"
    ),
    (
      breaking(#""id": 1"#, with: #""id": -1"#),
      "nodes[1].id: -1 is out of range; ids must be 0..<2, one per node, none missing"
    ),
    (
      breaking(#""type": "App.Interactor""#, with: #""type": 3"#),
      "nodes[1].type: expected a string, found the number 3"
    ),
    (
      breaking(#""kind": "object" } ]"#, with: #""kind": "struct" } ]"#),
      #"nodes[1].kind: unknown kind "struct"; expected one of "object", "closure", "value", "task""#
    ),
    (breaking(#""to": 1"#, with: #""to": 5"#), "edges[0].to: 5 is not the id of a node"),
    (breaking(#""from": 0"#, with: #""from": 9"#), "edges[0].from: 9 is not the id of a node"),
    (
      breaking(#""label": "output""#, with: #""label": ["output"]"#),
      "edges[1].label: expected a string, found an array"
    ),
    (
      breaking(#""ownership": "strong" },"#, with: #""ownership": "owned" },"#),
      #"edges[0].ownership: unknown ownership "owned"; expected one of "strong", "weak", "unowned", "unowned(unsafe)""#
    ),
    (breaking(#""ownership": "strong" },"#, with: "},"), "edges[0].ownership: missing field"),
    (
      breaking(#""edges": ["#, with: #""dangling": [{"holder": 4, "label": "x"}], "edges": ["#),
      "dangling[0].holder: 4 is not the id of a node"
    ),
    (
      breaking(#""edges": ["#, with: #""dangling": [{"holder": 0}], "edges": ["#),
      "dangling[0].label: missing field"
    ),
    (
      breaking(#""edges": ["#, with: #""dangling": 3, "edges": ["#),
      "dangling: expected an array, found the number 3"
    ),
    (
      breaking(#""edges": ["#, with: #""notes": ["ok", 2], "edges": ["#),
      "notes[1]: expected a string, found the number 2"
    ),
  ]

  @Test(arguments: malformed)
  func malformedSnapshotsNameWhatAndWhere(_ json: String, _ expected: String) {
    #expect(throws: GraphDecodingError.self) { try ObjectGraph(jsonData: Data(json.utf8)) }
    do {
      _ = try ObjectGraph(jsonData: Data(json.utf8))
    } catch {
      if expected == "not JSON: " {
        #expect(error.message.hasPrefix(expected), "\(error.message)")
      } else {
        #expect(error.message == expected)
      }
      #expect(error.description.hasPrefix("invalid graph: "))
    }
  }

  /// 10,000 mutated snapshots: truncations, byte flips, insertions, and structural swaps of fields
  /// and values. None may crash; every rejection is a `GraphDecodingError` with a message; every accepted
  /// one is a consistent graph.
  @Test func fuzzedSnapshotsNeverCrash() throws {
    var bases: [Data] = [Data(Self.valid.utf8)]
    for sample in Sample.all { bases.append(Self.graph(of: sample).jsonData()) }
    var random = SplitMix64(seed: 0x5eed_2024)
    var rejected = 0
    var accepted = 0
    for _ in 0..<10_000 {
      let base = bases[Int(random.next() % UInt64(bases.count))]
      let mutated = Self.mutate(base, using: &random)
      switch Result(catching: { () throws(GraphDecodingError) in try ObjectGraph(jsonData: mutated) }) {
      case .success(let graph):
        accepted += 1
        #expect(graph.nodes.indices.contains(graph.root))
        #expect(
          graph.edges.allSatisfy {
            graph.nodes.indices.contains($0.from) && graph.nodes.indices.contains($0.to)
          })
        #expect(try ObjectGraph(jsonData: graph.jsonData()).edges == graph.edges)
      case .failure(let error):
        rejected += 1
        #expect(!error.message.isEmpty)
      }
    }
    #expect(accepted + rejected == 10_000)
    #expect(rejected > 5_000, "most mutations must be caught (rejected \(rejected))")
    #expect(accepted > 100, "some mutations keep the snapshot valid (accepted \(accepted))")
  }

  static func mutate(_ data: Data, using random: inout SplitMix64) -> Data {
    var bytes = [UInt8](data)
    switch random.next() % 6 {
    case 0:  // truncation
      bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
    case 1:  // byte flips
      for _ in 0...(random.next() % 3) where !bytes.isEmpty {
        let index = Int(random.next() % UInt64(bytes.count))
        bytes[index] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8))
      }
    case 2:  // a random printable or structural byte inserted
      let alphabet = Array("{}[]\":,0123456789-.eE truefalsnul\\".utf8)
      let index = Int(random.next() % UInt64(bytes.count + 1))
      bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: index)
    default:  // structural: swap, drop or retype a field somewhere in the document
      guard let object = try? JSONSerialization.jsonObject(with: data) else { return data }
      let mutated = mutateStructure(object, using: &random)
      return (try? JSONSerialization.data(withJSONObject: mutated, options: [.fragmentsAllowed])) ?? data
    }
    return Data(bytes)
  }

  /// Walks to a random object (iteratively) and swaps two of its values, drops a key or replaces a
  /// value with one of another type.
  static func mutateStructure(_ value: Any, using random: inout SplitMix64) -> Any {
    // The path from the top to the object to change, as keys and indices.
    var path: [Any] = []
    var current = value
    while random.next() % 3 != 0 {
      if let object = current as? [String: Any], !object.isEmpty {
        let key = object.keys.sorted()[Int(random.next() % UInt64(object.count))]
        guard let next = object[key], next is [String: Any] || next is [Any] else { break }
        path.append(key)
        current = next
      } else if let array = current as? [Any], !array.isEmpty {
        let index = Int(random.next() % UInt64(array.count))
        path.append(index)
        current = array[index]
      } else {
        break
      }
    }
    let replacements: [Any] = [
      NSNull(), "x", -1, 1, 2, 1_000_000, 0.5, true, [Any](), [String: Any](), "strong", "weak", "closure",
    ]
    var changed = current
    if var object = current as? [String: Any], !object.isEmpty {
      let keys = object.keys.sorted()
      let first = keys[Int(random.next() % UInt64(keys.count))]
      let second = keys[Int(random.next() % UInt64(keys.count))]
      switch random.next() % 3 {
      case 0: (object[first], object[second]) = (object[second], object[first])
      case 1: object[first] = nil
      default: object[first] = replacements[Int(random.next() % UInt64(replacements.count))]
      }
      changed = object
    } else if var array = current as? [Any], !array.isEmpty {
      let first = Int(random.next() % UInt64(array.count))
      let second = Int(random.next() % UInt64(array.count))
      switch random.next() % 3 {
      case 0: array.swapAt(first, second)
      case 1: array.append(array[first])
      default: array[first] = replacements[Int(random.next() % UInt64(replacements.count))]
      }
      changed = array
    }
    // Put the changed value back, from the innermost container out.
    var containers: [Any] = [value]
    for step in path.dropLast() {
      let container = containers[containers.count - 1]
      if let key = step as? String, let object = container as? [String: Any], let next = object[key] {
        containers.append(next)
      } else if let index = step as? Int, let array = container as? [Any] {
        containers.append(array[index])
      }
    }
    for (container, step) in zip(containers, path).reversed() {
      if let key = step as? String, var object = container as? [String: Any] {
        object[key] = changed
        changed = object
      } else if let index = step as? Int, var array = container as? [Any] {
        array[index] = changed
        changed = array
      }
    }
    return changed
  }
}

@Suite struct SnapshotVersionTests {
  /// A version 1 snapshot (no edge kinds), as written before version 2.
  static let versionOne = """
    { "format": "retain-graph", "version": 1, "root": 0, "truncated": false,
      "nodes": [ { "id": 0, "type": "App.Screen", "kind": "object" },
                 { "id": 1, "type": "App.Model", "kind": "object" },
                 { "id": 2, "type": "closure #1 in App.Screen.init()", "kind": "closure" },
                 { "id": 3, "type": "task (closure #1 in App.Screen.load())", "kind": "task" } ],
      "edges": [ { "from": 0, "to": 1, "label": "model", "ownership": "strong" },
                 { "from": 0, "to": 1, "label": "items[3].owner", "ownership": "strong" },
                 { "from": 0, "to": 1, "label": "cache[\\"a\\"]", "ownership": "weak" },
                 { "from": 0, "to": 2, "label": "onTap (closure)", "ownership": "strong" },
                 { "from": 2, "to": 0, "label": "capture 1", "ownership": "strong" },
                 { "from": 0, "to": 0, "label": "greeting (closure) → capture 0", "ownership": "strong" },
                 { "from": 1, "to": 0, "label": "done (method Screen.finish(_:))", "ownership": "strong" },
                 { "from": 1, "to": 1, "label": "state.loading", "ownership": "strong" },
                 { "from": 3, "to": 0, "label": "suspended frame", "ownership": "strong" },
                 { "from": 2, "to": 1, "label": "capture 0 (actor isolation)", "ownership": "strong" } ] }
    """

  @Test func versionOneStillReadsWithKindsFromItsLabels() throws {
    let graph = try ObjectGraph(jsonData: Data(Self.versionOne.utf8))
    let kinds = graph.edges.map { [$0.label: "\($0.kind) \($0.property ?? "-")"] }
    #expect(
      kinds == [
        ["model": "property model"], ["items[3].owner": "element items"], [#"cache["a"]"#: "element cache"],
        ["onTap (closure)": "closure onTap"], ["capture 1": "capture(index: 1) -"],
        ["greeting (closure) → capture 0": "singleCapture greeting"],
        ["done (method Screen.finish(_:))": #"methodReference(method: "Screen.finish(_:)") done"#],
        // A version 1 label cannot tell an enum payload from a property.
        ["state.loading": "property state"],
        // Not a property named `suspended`: a word of the task's frames.
        ["suspended frame": "suspendedFrame -"],
        ["capture 0 (actor isolation)": "actorIsolation(index: 0) -"],
      ])
    // Written again it is version 2, which reads back to the same edges.
    let again = try ObjectGraph(jsonData: graph.jsonData())
    #expect(again.edges == graph.edges)
    #expect(again.report() == graph.report())
  }

  @Test func versionTwoRoundTripsEveryKind() throws {
    let kinds: [(String, Edge.Kind, String?)] = [
      ("model", .property, "model"), ("state.loading", .enumPayload, "state"),
      ("items[2]", .element, "items"),
      ("onTap (closure)", .closure, "onTap"), ("greeting (closure) → capture 0", .singleCapture, "greeting"),
      ("done (method Screen.finish(_:))", .methodReference(method: "Screen.finish(_:)"), "done"),
      ("capture 3", .capture(index: 3), nil), ("App.shared", .global, "App.shared"),
      ("suspended frame", .suspendedFrame, nil),
      ("capture 0 (actor isolation)", .actorIsolation(index: 0), nil),
    ]
    let edges = kinds.map {
      Edge(from: 0, to: 1, label: $0.0, ownership: .strong, kind: $0.1, property: $0.2)
    }
    let graph = try ObjectGraph(
      nodes: [Node(id: 0, typeName: "A", kind: .value), Node(id: 1, typeName: "B", kind: .object)],
      edges: edges)
    #expect(graph.edges == edges)
    let data = graph.jsonData()
    let read = try ObjectGraph(jsonData: data)
    #expect(read.edges == edges)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let records = try #require(object["edges"] as? [[String: Any]])
    #expect(records.map { $0["kind"] as? String } == Edge.Kind.allJSONNamesForTests)
    #expect(records[5]["method"] as? String == "Screen.finish(_:)")
    #expect(records[6]["capture"] as? Int == 3)
    #expect(records[6]["property"] == nil, "no property inside a closure context")
    #expect(records[9]["capture"] as? Int == 0)
  }

  static let versionTwo = """
    { "format": "retain-graph", "version": 2, "root": 0, "truncated": false,
      "nodes": [ { "id": 0, "type": "A", "kind": "object" } ],
      "edges": [ { "from": 0, "to": 0, "label": "x", "ownership": "strong", "kind": "property" } ] }
    """

  static let malformedKinds: [(String, String)] = [
    (
      #""kind": "field""#,
      #"edges[0].kind: unknown kind "field"; expected one of "property", "enumPayload", "element", "closure", "singleCapture", "methodReference", "capture", "global", "suspendedFrame", "actorIsolation""#
    ),
    (#""kind": 3"#, "edges[0].kind: expected a string, found the number 3"),
    (#""kind": "capture""#, "edges[0].capture: missing field"),
    (#""kind": "capture", "capture": "1""#, #"edges[0].capture: expected an integer, found the string "1""#),
    (#""kind": "methodReference""#, "edges[0].method: missing field"),
    (#""kind": "property", "property": 7"#, "edges[0].property: expected a string, found the number 7"),
    (#""kind": "property", "x": 1"#, ""),
  ]

  @Test(arguments: malformedKinds)
  func malformedKindsNameWhere(_ replacement: String, _ expected: String) throws {
    let json = Self.versionTwo.replacingOccurrences(of: #""kind": "property""#, with: replacement)
    guard !expected.isEmpty else {
      #expect(try ObjectGraph(jsonData: Data(json.utf8)).edges.first?.kind == .property)
      return
    }
    #expect(throws: GraphDecodingError.self) { try ObjectGraph(jsonData: Data(json.utf8)) }
    do {
      _ = try ObjectGraph(jsonData: Data(json.utf8))
    } catch {
      #expect(error.message == expected)
    }
  }

  @Test func aVersionTwoEdgeWithoutKindIsRejected() {
    let json = Self.versionTwo.replacingOccurrences(of: #", "kind": "property""#, with: "")
    #expect(throws: GraphDecodingError("edges[0].kind: missing field")) {
      try ObjectGraph(jsonData: Data(json.utf8))
    }
  }
}

extension Edge.Kind {
  /// The JSON names of the kinds in ``SnapshotVersionTests/versionTwoRoundTripsEveryKind()``'s order.
  static let allJSONNamesForTests: [String?] = [
    "property", "enumPayload", "element", "closure", "singleCapture", "methodReference", "capture", "global",
    "suspendedFrame", "actorIsolation",
  ]
}
