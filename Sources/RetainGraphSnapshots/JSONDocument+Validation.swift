internal import Foundation
internal import RetainGraphJSONScanner
internal import RetainGraphSupport

/// Validating what was read, once the whole text is read (the version, which may come after the
/// edges, decides how the edges' labels read): each problem reported with its place, in the order a
/// reader of a parsed tree would find it.
extension JSONDocument {
  func validate() throws(SnapshotReadingError) -> SnapshotContents {
    guard case .value(let format) = format else {
      _ = try string(format, "format", at: .top)
      throw SnapshotReadingError(.other, at: nil, "")
    }
    guard format == SnapshotFormat.formatName else {
      throw SnapshotReadingError(
        .notAGraph, at: .field("format"),
        "format: expected \"\(SnapshotFormat.formatName)\", found \"\(format)\"; this is not a retain-graph JSON file"
      )
    }
    let version = try integer(version, "version", at: .top)
    guard SnapshotFormat.readableVersions.contains(version) else {
      throw SnapshotReadingError(
        .unsupportedVersion, at: .field("version"),
        "version: \(version) is not supported; this reader understands versions 1 and \(SnapshotFormat.version)"
      )
    }
    let root = try integer(root, "root", at: .top)
    let truncated = try boolean(truncated, "truncated", at: .top)

    let nodeRecords = try array(nodes, "nodes")
    let count = nodeRecords.count
    // The first node whose id is out of range or taken, before the first node with a wrong field.
    var slots = [Int](repeating: -1, count: count)
    for (index, id) in nodeRecords.ids.enumerated() {
      guard slots.indices.contains(id) else {
        throw SnapshotReadingError(
          .idOutOfPlace, at: .field("nodes[\(index)].id"),
          "nodes[\(index)].id: \(id) is out of range; ids must be 0..<\(count), one per node, none missing")
      }
      guard slots[id] < 0 else {
        throw SnapshotReadingError(
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

    var danglingReferences: [SnapshotDangling] = []
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
    let noteDetails = try noteValues(nodeCount: count)
    let locations = try sourceLocationValues()
    // Type names interned in id order, as `GraphStorage(nodes:edges:)` interns them.
    var typeNames: [String] = []
    var typeIDs = [Int32](repeating: -1, count: strings.strings.count)
    var nodeTypes: [Int32] = []
    var nodeKinds: [UInt8] = []
    nodeTypes.reserveCapacity(slots.count)
    nodeKinds.reserveCapacity(slots.count)
    for record in slots {
      let raw = Int(nodeRecords.types[record])
      if typeIDs[raw] < 0 {
        typeIDs[raw] = Int32(typeNames.count)
        typeNames.append(strings.strings[raw])
      }
      nodeTypes.append(typeIDs[raw])
      nodeKinds.append(nodeRecords.kinds[record])
    }
    return SnapshotContents(
      version: version, root: root, truncated: truncated, strings: strings, typeNames: typeNames,
      nodeTypes: nodeTypes, nodeKinds: nodeKinds, labels: edgeRecords.labels, edges: edgeRecords.edges,
      dangling: danglingReferences, notes: noteTexts, noteDetails: noteDetails, sourceLocations: locations)
  }

  // MARK: typed fields

  static func join(_ place: JSONPlace, _ key: String) -> String {
    place.index < 0 ? key : "\(place).\(key)"
  }

  func integer(_ field: JSONField<Int>, _ key: String, at place: JSONPlace) throws(SnapshotReadingError)
    -> Int
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

  func boolean(_ field: JSONField<Bool>, _ key: String, at place: JSONPlace) throws(SnapshotReadingError)
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
    throws(SnapshotReadingError)
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
    throws(SnapshotReadingError)
    -> Int32
  {
    if case .missing = field { return -1 }
    return try string(field, key, at: place)
  }

  func array<Records>(_ field: JSONField<Records>, _ key: String) throws(SnapshotReadingError) -> Records {
    switch field {
    case .value(let records): return records
    case .missing: throw .missingField(key)
    case .described(let text):
      throw .wrongType(key, expected: "an array", found: text)
    case .wrongType, .unknown:
      throw .wrongType(key, expected: "an array", found: "a value")
    }
  }

  func optionalArray<Records>(_ field: JSONField<Records>, _ key: String) throws(SnapshotReadingError)
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
