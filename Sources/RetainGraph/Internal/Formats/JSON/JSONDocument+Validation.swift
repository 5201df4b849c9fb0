internal import Foundation
internal import RetainGraphJSONScanner
internal import RetainGraphStorage
internal import RetainGraphSupport

/// Validating what was read, once the whole text is read (the version, which may come after the
/// edges, decides how the edges' labels read): each problem reported with its place, in the order a
/// reader of a parsed tree would find it.
extension JSONDocument {
  func validate() throws(GraphDecodingError) -> JSONReader.Parts {
    guard case .value(let format) = format else {
      _ = try string(format, "format", at: .top)
      throw GraphDecodingError("")
    }
    guard format == JSONFormat.formatName else {
      throw GraphDecodingError(
        .notAGraph, at: .field("format"),
        "format: expected \"\(JSONFormat.formatName)\", found \"\(format)\"; this is not a retain-graph JSON file"
      )
    }
    let version = try integer(version, "version", at: .top)
    guard JSONFormat.readableVersions.contains(version) else {
      throw GraphDecodingError(
        .unsupportedVersion, at: .field("version"),
        "version: \(version) is not supported; this reader understands versions 1 and \(JSONFormat.version)")
    }
    let root = try integer(root, "root", at: .top)
    let truncated = try boolean(truncated, "truncated", at: .top)

    let nodeRecords = try array(nodes, "nodes")
    let count = nodeRecords.count
    // The first node whose id is out of range or taken, before the first node with a wrong field.
    var slots = [Int](repeating: -1, count: count)
    for (index, id) in nodeRecords.ids.enumerated() {
      guard slots.indices.contains(id) else {
        throw GraphDecodingError(
          .idOutOfPlace, at: .field("nodes[\(index)].id"),
          "nodes[\(index)].id: \(id) is out of range; ids must be 0..<\(count), one per node, none missing")
      }
      guard slots[id] < 0 else {
        throw GraphDecodingError(
          .duplicateID, at: .field("nodes[\(index)].id"),
          "nodes[\(index)].id: duplicate id \(id) (also nodes[\(slots[id])].id)")
      }
      slots[id] = index
    }
    if let error = nodeRecords.error { throw error.error }

    let edgeRecords = try array(edges, "edges")
    let edgeError = [edgeRecords.error, version >= 2 ? edgeRecords.versionTwoError : nil].compactMap { $0 }
      .min { $0.index < $1.index }
    if let edgeError { throw edgeError.error }

    var danglingReferences: [DanglingReference] = []
    if case .value(let records) = dangling, records.error == nil {
      danglingReferences = records.values
    } else if let records = try optionalArray(dangling, "dangling"), let error = records.error {
      throw error
    }
    var noteTexts: [String] = []
    if case .value(let records) = notes, records.error == nil {
      noteTexts = records.values
    } else if let records = try optionalArray(notes, "notes"), let error = records.error {
      throw error
    }

    // Where ids lead, in the order `ObjectGraph(nodes:edges:…)` checks them.
    guard (0..<count).contains(root) else {
      throw .unknownNode("root", root, " (there are \(count) nodes)")
    }
    for (index, edge) in edgeRecords.edges.enumerated() {
      var (from, to) = (Int(edge.from), Int(edge.to))
      if let wide = edgeRecords.wide, wide.index == index { (from, to) = (wide.from, wide.to) }
      guard from >= 0 && from < count else {
        throw .unknownNode("edges[\(index)].from", from)
      }
      guard to >= 0 && to < count else {
        throw .unknownNode("edges[\(index)].to", to)
      }
    }
    for (index, dangling) in danglingReferences.enumerated() where !(0..<count).contains(dangling.holder) {
      throw .unknownNode("dangling[\(index)].holder", dangling.holder)
    }
    let notes = try noteValues(notes: noteTexts, nodeCount: count)
    let locations = try sourceLocationValues()
    let storage = try storage(nodes: nodeRecords, slots: slots, edges: edgeRecords, version: version)
    storage.sourceLocations.adopt(locations)
    return JSONReader.Parts(
      root: root, truncated: truncated, storage: storage, dangling: danglingReferences, notes: notes)
  }

  /// The graph's storage, as `GraphStorage(nodes:edges:)` makes it: type names interned in id order,
  /// labels in edge order.
  func storage(
    nodes: NodeRecords, slots: [Int], edges: EdgeRecords, version: Int
  ) throws(GraphDecodingError) -> GraphStorage {
    var typeNames: [String] = []
    var typeIDs = [Int32](repeating: -1, count: strings.strings.count)
    var nodeTypes: [Int32] = []
    var nodeKinds: [Node.Kind] = []
    nodeTypes.reserveCapacity(slots.count)
    nodeKinds.reserveCapacity(slots.count)
    for record in slots {
      let raw = Int(nodes.types[record])
      if typeIDs[raw] < 0 {
        typeIDs[raw] = Int32(typeNames.count)
        typeNames.append(strings.strings[raw])
      }
      nodeTypes.append(typeIDs[raw])
      nodeKinds.append(nodes.kinds[record])
    }

    var labels = Interner<ReferencePath>()
    let labelIDs = edges.labels.map { raw in
      guard version >= 2 else { return labels.intern(ReferencePath(inferringFrom: strings[raw.label])) }
      let kind: Edge.Kind =
        switch raw.kind < 0 ? "property" : Edge.Kind.jsonNames[Int(raw.kind)] {
        case "capture": .capture(index: raw.argument)
        case "actorIsolation": .actorIsolation(index: raw.argument)
        case "methodReference": .methodReference(method: strings[Int32(raw.argument)])
        case let name: Edge.Kind(jsonName: name) ?? .property
        }
      var reference = ReferencePath(
        label: strings[raw.label], kind: kind, property: raw.property < 0 ? nil : strings[raw.property])
      reference.function = raw.function < 0 ? nil : strings[raw.function]
      return labels.intern(reference)
    }
    var compact = ChunkedArray<CompactEdge>()
    for edge in edges.edges {
      guard
        let packed = CompactEdge(
          from: Int(edge.from), to: Int(edge.to), label: labelIDs[Int(edge.label)], ownership: edge.ownership)
      else { throw .tooManyLabels() }
      compact.append(packed)
    }
    return GraphStorage(
      typeNames: typeNames, nodeTypes: nodeTypes, nodeKinds: nodeKinds, labels: labels.values, edges: compact)
  }

  // MARK: typed fields

  static func join(_ place: JSONPlace, _ key: String) -> String {
    place.index < 0 ? key : "\(place).\(key)"
  }

  func integer(_ field: JSONField<Int>, _ key: String, at place: JSONPlace) throws(GraphDecodingError) -> Int
  {
    switch field {
    case .value(let value): return value
    case .missing: throw .missingField(Self.join(place, key))
    case .described(let text):
      throw .wrongType(Self.join(place, key), expected: "an integer", found: text)
    case .wrongType, .unknown:
      throw .wrongType(Self.join(place, key), expected: "an integer", found: "a value")
    }
  }

  func boolean(_ field: JSONField<Bool>, _ key: String, at place: JSONPlace) throws(GraphDecodingError)
    -> Bool
  {
    switch field {
    case .value(let value): return value
    case .missing: throw .missingField(Self.join(place, key))
    case .described(let text):
      throw .wrongType(Self.join(place, key), expected: "true or false", found: text)
    case .wrongType, .unknown:
      throw .wrongType(Self.join(place, key), expected: "true or false", found: "a value")
    }
  }

  /// A string field's value; for a field that holds an unknown name, the caller reports it first.
  func string<Value>(_ field: JSONField<Value>, _ key: String, at place: JSONPlace)
    throws(GraphDecodingError)
    -> Value
  {
    switch field {
    case .value(let value): return value
    case .missing: throw .missingField(Self.join(place, key))
    case .described(let text):
      throw .wrongType(Self.join(place, key), expected: "a string", found: text)
    case .wrongType, .unknown:
      throw .wrongType(Self.join(place, key), expected: "a string", found: "a value")
    }
  }

  /// An optional string's id, or -1 when it is missing or null.
  func optionalString(_ field: JSONField<Int32>, _ key: String, at place: JSONPlace)
    throws(GraphDecodingError)
    -> Int32
  {
    if case .missing = field { return -1 }
    return try string(field, key, at: place)
  }

  func array<Records>(_ field: JSONField<Records>, _ key: String) throws(GraphDecodingError) -> Records {
    switch field {
    case .value(let records): return records
    case .missing: throw .missingField(key)
    case .described(let text):
      throw .wrongType(key, expected: "an array", found: text)
    case .wrongType, .unknown:
      throw .wrongType(key, expected: "an array", found: "a value")
    }
  }

  func optionalArray<Records>(_ field: JSONField<Records>, _ key: String) throws(GraphDecodingError)
    -> Records?
  {
    if case .missing = field { return nil }
    return try array(field, key)
  }

  // MARK: describing values

  /// The string at `offset` in the scanner's window.
  func string(at offset: Int, in window: JSONScanner) -> String { window.text(at: offset) }

  /// A short description of the value at `offset` in the scanner's window, for messages: its type
  /// and, for scalars, the value.
  func describe(at offset: Int, in window: JSONScanner) -> String { window.valueDescription(at: offset) }
}
