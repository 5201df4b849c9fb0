internal import Foundation

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// `read(2)`.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
  #if canImport(Glibc)
    Glibc.read(descriptor, buffer.baseAddress, buffer.count)
  #elseif canImport(Musl)
    Musl.read(descriptor, buffer.baseAddress, buffer.count)
  #else
    Darwin.read(descriptor, buffer.baseAddress, buffer.count)
  #endif
}

/// The format's name, the version written, and the versions read (version 1 has no edge `kind`,
/// `capture`, `method` or `property`).
enum JSONFormat {
  static let formatName = "retain-graph"
  static let version = 2
  static let readableVersions = 1...2
}

/// Reads a snapshot from its bytes in one pass (``JSONScanner``: no tree of Foundation objects) into
/// the graph's compact storage, and validates it by hand, so that every problem is reported with its
/// place. Problems are found in the order a reader of a parsed tree would find them, whatever the
/// order of the keys in the text: the syntax anywhere first, then `format`, `version`, `root`,
/// `truncated`, `nodes`, `edges`, `dangling`, `notes`, then where ids lead.
struct JSONReader {
  struct Parts {
    var root: Int
    var truncated: Bool
    var storage: GraphStorage
    var dangling: [DanglingReference]
    var notes: [String]
  }

  let data: Data

  func read() throws(GraphDecodingError) -> Parts {
    let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      Result { () throws(GraphDecodingError) -> Parts in
        let bytes = raw.bindMemory(to: UInt8.self)
        let utf8: (skip: Int, transcoded: [UInt8]?)
        do throws(JSONSyntaxError) {
          utf8 = try JSONScanner.utf8(of: bytes)
        } catch {
          throw GraphDecodingError("not JSON: \(error.reason)")
        }
        guard let transcoded = utf8.transcoded else {
          return try Self.read(UnsafeBufferPointer(rebasing: bytes[utf8.skip...]))
        }
        return try transcoded.withUnsafeBufferPointer { buffer in
          Result { () throws(GraphDecodingError) in try Self.read(buffer) }
        }.get()
      }
    }
    return try result.get()
  }

  /// Reads UTF-8 `text`.
  private static func read(_ text: UnsafeBufferPointer<UInt8>) throws(GraphDecodingError) -> Parts {
    var scanner = JSONScanner(text)
    defer { scanner.deallocate() }
    return try read(&scanner)
  }

  /// Reads the text at the scanner.
  private static func read(_ scanner: inout JSONScanner) throws(GraphDecodingError) -> Parts {
    var document = Document()
    var topLevel: String?
    do throws(JSONSyntaxError) {
      if scanner.skipWhitespaceReadingOn() == 0x7B {
        try scanner.members(readingOn: true) { scanner, key throws(JSONSyntaxError) in
          try document.read(key, &scanner)
        }
      } else {
        topLevel = try scanner.rereadingOn { scanner throws(JSONSyntaxError) in
          let offset = scanner.position
          try scanner.skipValue()
          return document.describe(at: offset, in: scanner)
        }
      }
      try scanner.expectEnd()
    } catch {
      // A file that fails to read ends early: that is the file's fault, not its text's.
      throw GraphDecodingError(scanner.readFailed ? JSONReader.readFailure : "not JSON: \(error.reason)")
    }
    if scanner.readFailed { throw GraphDecodingError(JSONReader.readFailure) }
    if let topLevel { throw GraphDecodingError("the top level: expected an object, found \(topLevel)") }
    return try document.validate()
  }

  /// The message when reading a file fails midway (never a message about a snapshot's text).
  static let readFailure = "\u{0}the file cannot be read"

  /// Reads a snapshot from the file open at `descriptor`, in a window of `windowSize` bytes (grown
  /// when one record needs more): its text is never in memory whole (a text in UTF-16 or UTF-32
  /// is, to be converted).
  static func read(descriptor: Int32, windowSize: Int = 1 << 20) throws(GraphDecodingError) -> Parts {
    let source = { (buffer: UnsafeMutableRawBufferPointer) -> Int in
      while true {
        let count = readBytes(descriptor, buffer)
        if count >= 0 || errno != EINTR { return count }
      }
    }
    // The first bytes tell the encoding.
    var first = [UInt8](repeating: 0, count: max(16, windowSize))
    var filled = 0
    while filled < first.count {
      let count = first.withUnsafeMutableBytes {
        source(UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
      }
      if count < 0 { throw GraphDecodingError(readFailure) }
      if count == 0 { break }
      filled += count
    }
    guard filled == first.count else {
      // The whole text is in memory.
      return try JSONReader(data: Data(first[0..<filled])).read()
    }
    let encoding = first.withUnsafeBufferPointer { JSONScanner.detectedEncoding(ofLongText: $0) }
    guard encoding.isUTF8 else {
      // Converted whole, as Foundation converts it.
      var rest = first
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let count = chunk.withUnsafeMutableBytes { source($0) }
        if count < 0 { throw GraphDecodingError(readFailure) }
        if count == 0 { break }
        rest += chunk[0..<count]
      }
      return try JSONReader(data: Data(rest)).read()
    }
    var scanner = first.withUnsafeBufferPointer { bytes in
      JSONScanner(
        initial: UnsafeBufferPointer(rebasing: bytes[encoding.skip...]), windowSize: windowSize,
        source: source)
    }
    defer { scanner.deallocate() }
    return try read(&scanner)
  }
}

/// A field as read: missing, a value, a value of another type, or a string that names nothing known
/// (the last two by where the value is in the text, to describe it in a message).
private enum Field<Value> {
  case missing
  case value(Value)
  case wrongType(at: Int)
  case unknown(at: Int)
  /// A value of another type, described (a top-level field's, whose text may be gone by the time
  /// it is validated).
  case described(String)
}

/// Where a record is, for messages (`nodes[3]`), made into text only for a message.
private struct Place: CustomStringConvertible {
  var array: String
  var index: Int

  /// The top level.
  static let top = Place(array: "", index: -1)

  var description: String { index < 0 ? "" : "\(array)[\(index)]" }
}

/// An edge as read, before the version (which may come after the edges) tells how to read its label.
private struct RawEdge {
  var from: Int32
  var to: Int32
  var label: Int32
  var ownership: Ownership
}

/// An edge's label and what version 2 says about it; the version 1 reading uses only the text.
private struct RawLabel: Hashable {
  var label: Int32
  /// The kind's index in ``Edge/Kind/jsonNames``, or -1 when version 2 would reject the edge.
  var kind: Int8
  /// The capture's index, or the method name's string id.
  var argument: Int
  var property: Int32
  var function: Int32
}

/// The snapshot's top-level fields as read so far; a key given twice keeps its last value.
private struct Document {
  var strings = JSONStringTable()
  var format = Field<String>.missing
  var version = Field<Int>.missing
  var root = Field<Int>.missing
  var truncated = Field<Bool>.missing
  var nodes = Field<NodeRecords>.missing
  var edges = Field<EdgeRecords>.missing
  var dangling = Field<DanglingRecords>.missing
  var notes = Field<NoteRecords>.missing

  struct NodeRecords {
    var count = 0
    /// The nodes before the first one with a wrong field, in the order of the text.
    var ids: [Int] = []
    var types: [Int32] = []
    var kinds: [Node.Kind] = []
    var error: (index: Int, message: String)?
  }

  struct EdgeRecords {
    var count = 0
    /// The edges before the first one wrong in any version.
    var edges = ChunkedArray<RawEdge>()
    var labels: [RawLabel] = []
    var labelIDs: [RawLabel: Int32] = [:]
    /// The first edge with an id beyond 32 bits, with its ids (stored as -1).
    var wide: (index: Int, from: Int, to: Int)?
    var error: (index: Int, message: String)?
    /// The first edge that only version 2 rejects (its kind or the kind's argument).
    var versionTwoError: (index: Int, message: String)?
  }

  struct DanglingRecords {
    var references: [DanglingReference] = []
    var error: String?
  }

  struct NoteRecords {
    var notes: [String] = []
    var error: String?
  }

  // MARK: reading

  mutating func read(_ key: UnsafeBufferPointer<UInt8>, _ scanner: inout JSONScanner) throws(JSONSyntaxError)
  {
    if key.equals("edges") {
      edges = try array(&scanner) { records, scanner, index throws(JSONSyntaxError) in
        try readEdge(index, into: &records, &scanner)
      }
    } else if key.equals("nodes") {
      nodes = try array(&scanner) { records, scanner, index throws(JSONSyntaxError) in
        try readNode(index, into: &records, &scanner)
      }
    } else if key.equals("format") {
      format = settled(try scanner.stringField().map { String(decoding: $0, as: UTF8.self) }, scanner)
    } else if key.equals("version") {
      version = settled(try scanner.integerField(), scanner)
    } else if key.equals("root") {
      root = settled(try scanner.integerField(), scanner)
    } else if key.equals("truncated") {
      truncated = settled(try scanner.booleanField(), scanner)
    } else if key.equals("dangling") {
      dangling = try array(&scanner, optional: true) { records, scanner, index throws(JSONSyntaxError) in
        try readDangling(index, into: &records, &scanner)
      }
    } else if key.equals("notes") {
      notes = try array(&scanner, optional: true) { records, scanner, index throws(JSONSyntaxError) in
        guard records.error == nil else { return try scanner.skipValue() }
        let offset = scanner.position
        if case .value(let bytes) = try scanner.stringField() {
          records.notes.append(String(decoding: bytes, as: UTF8.self))
        } else {
          records.error = "notes[\(index)]: expected a string, found \(describe(at: offset, in: scanner))"
        }
      }
    } else {
      try scanner.skipValue()
    }
  }

  /// A top-level field of another type described now: its text may be gone when it is validated.
  private func settled<Value>(_ field: Field<Value>, _ scanner: JSONScanner) -> Field<Value> {
    guard case .wrongType(let offset) = field else { return field }
    return .described(describe(at: offset, in: scanner))
  }

  /// The array at the scanner, read element by element into `Records`; an optional array may be null.
  /// The window reads on between elements.
  private func array<Records>(
    _ scanner: inout JSONScanner, optional: Bool = false,
    _ element: (inout Records, inout JSONScanner, Int) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) -> Field<Records> where Records: EmptyInitializable {
    let offset = scanner.position
    guard scanner.byte(offset) == 0x5B else {
      if optional && scanner.byte(offset) == 0x6E, try scanner.literal() == nil { return .missing }
      try scanner.skipValue()
      return settled(Field<Records>.wrongType(at: offset), scanner)
    }
    var records = Records()
    try scanner.elements(readingOn: true) { scanner, index throws(JSONSyntaxError) in
      try element(&records, &scanner, index)
    }
    return .value(records)
  }

  private mutating func readNode(
    _ index: Int, into records: inout NodeRecords, _ scanner: inout JSONScanner
  ) throws(JSONSyntaxError) {
    records.count = index + 1
    guard records.error == nil else { return try scanner.skipValue() }
    let place = Place(array: "nodes", index: index)
    let offset = scanner.position
    guard scanner.byte(offset) == 0x7B else {
      try scanner.skipValue()
      records.error = (index, "\(place): expected an object, found \(describe(at: offset, in: scanner))")
      return
    }
    var id = Field<Int>.missing
    var type = Field<Int32>.missing
    var kind = Field<Node.Kind>.missing
    try scanner.members { scanner, key throws(JSONSyntaxError) in
      if key.equals("id") {
        id = try scanner.integerField()
      } else if key.equals("type") {
        type = try scanner.stringField().map { strings.intern($0) }
      } else if key.equals("kind") {
        kind = try scanner.enumField(Node.Kind.init(json:))
      } else {
        try scanner.skipValue()
      }
    }
    (id, type, kind) = (settled(id, scanner), settled(type, scanner), settled(kind, scanner))
    do throws(GraphDecodingError) {
      let id = try integer(id, "id", at: place)
      let type = try string(type, "type", at: place)
      guard case .value(let kind) = kind else {
        if case .unknown(let offset) = kind {
          let known = Node.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
          throw GraphDecodingError(
            "\(place).kind: unknown kind \"\(string(at: offset, in: scanner))\"; expected one of \(known)")
        }
        _ = try string(kind, "kind", at: place)
        return
      }
      records.ids.append(id)
      records.types.append(type)
      records.kinds.append(kind)
    } catch {
      records.error = (index, error.message)
    }
  }

  private mutating func readEdge(
    _ index: Int, into records: inout EdgeRecords, _ scanner: inout JSONScanner
  ) throws(JSONSyntaxError) {
    records.count = index + 1
    guard records.error == nil else { return try scanner.skipValue() }
    let place = Place(array: "edges", index: index)
    let offset = scanner.position
    guard scanner.byte(offset) == 0x7B else {
      try scanner.skipValue()
      records.error = (index, "\(place): expected an object, found \(describe(at: offset, in: scanner))")
      return
    }
    var from = Field<Int>.missing
    var to = Field<Int>.missing
    var label = Field<Int32>.missing
    var ownership = Field<Ownership>.missing
    var kind = Field<Int8>.missing
    var capture = Field<Int>.missing
    var method = Field<Int32>.missing
    var property = Field<Int32>.missing
    var function = Field<Int32>.missing
    try scanner.members { scanner, key throws(JSONSyntaxError) in
      switch key.count {
      case 2 where key.equals("to"): to = try scanner.integerField()
      case 4 where key.equals("from"): from = try scanner.integerField()
      case 4 where key.equals("kind"): kind = try scanner.enumField(Edge.Kind.jsonIndex(of:))
      case 5 where key.equals("label"): label = try scanner.stringField().map { strings.intern($0) }
      case 6 where key.equals("method"): method = try scanner.stringField().map { strings.intern($0) }
      case 7 where key.equals("capture"): capture = try scanner.integerField()
      case 8 where key.equals("property"):
        property = try scanner.stringField(optional: true).map { strings.intern($0) }
      case 8 where key.equals("function"):
        function = try scanner.stringField(optional: true).map { strings.intern($0) }
      case 9 where key.equals("ownership"): ownership = try scanner.enumField(Ownership.init(json:))
      default: try scanner.skipValue()
      }
    }
    (from, to, label, ownership) = (
      settled(from, scanner), settled(to, scanner), settled(label, scanner), settled(ownership, scanner)
    )
    (kind, capture, method) = (settled(kind, scanner), settled(capture, scanner), settled(method, scanner))
    (property, function) = (settled(property, scanner), settled(function, scanner))
    let edge: RawEdge
    do throws(GraphDecodingError) {
      let from = try integer(from, "from", at: place)
      let to = try integer(to, "to", at: place)
      let label = try string(label, "label", at: place)
      guard case .value(let ownership) = ownership else {
        if case .unknown(let offset) = ownership {
          let known = Ownership.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
          throw GraphDecodingError(
            "\(place).ownership: unknown ownership \"\(string(at: offset, in: scanner))\"; expected one of \(known)"
          )
        }
        _ = try string(ownership, "ownership", at: place)
        return
      }
      let narrowFrom = Int32(exactly: from)
      let narrowTo = Int32(exactly: to)
      if records.wide == nil && (narrowFrom == nil || narrowTo == nil) { records.wide = (index, from, to) }
      var raw = RawLabel(label: label, kind: -1, argument: 0, property: -1, function: -1)
      do throws(GraphDecodingError) {
        guard case .value(let kindIndex) = kind else {
          if case .unknown(let offset) = kind {
            let known = Edge.Kind.jsonNames.map { "\"\($0)\"" }.joined(separator: ", ")
            throw GraphDecodingError(
              "\(place).kind: unknown kind \"\(string(at: offset, in: scanner))\"; expected one of \(known)")
          }
          _ = try string(kind, "kind", at: place)
          throw GraphDecodingError("")
        }
        switch Edge.Kind.jsonNames[Int(kindIndex)] {
        case "capture": raw.argument = try integer(capture, "capture", at: place)
        case "methodReference": raw.argument = Int(try string(method, "method", at: place))
        default: break
        }
        raw.property = try optionalString(property, "property", at: place)
        raw.function = try optionalString(function, "function", at: place)
        raw.kind = kindIndex
      } catch {
        if records.versionTwoError == nil { records.versionTwoError = (index, error.message) }
        raw = RawLabel(label: label, kind: -1, argument: 0, property: -1, function: -1)
      }
      let labelID: Int32
      if let known = records.labelIDs[raw] {
        labelID = known
      } else {
        labelID = Int32(records.labels.count)
        records.labels.append(raw)
        records.labelIDs[raw] = labelID
      }
      edge = RawEdge(from: narrowFrom ?? -1, to: narrowTo ?? -1, label: labelID, ownership: ownership)
    } catch {
      records.error = (index, error.message)
      return
    }
    records.edges.append(edge)
  }

  private mutating func readDangling(
    _ index: Int, into records: inout DanglingRecords, _ scanner: inout JSONScanner
  ) throws(JSONSyntaxError) {
    guard records.error == nil else { return try scanner.skipValue() }
    let place = Place(array: "dangling", index: index)
    let offset = scanner.position
    guard scanner.byte(offset) == 0x7B else {
      try scanner.skipValue()
      records.error = "\(place): expected an object, found \(describe(at: offset, in: scanner))"
      return
    }
    var holder = Field<Int>.missing
    var label = Field<Int32>.missing
    try scanner.members { scanner, key throws(JSONSyntaxError) in
      if key.equals("holder") {
        holder = try scanner.integerField()
      } else if key.equals("label") {
        label = try scanner.stringField().map { strings.intern($0) }
      } else {
        try scanner.skipValue()
      }
    }
    (holder, label) = (settled(holder, scanner), settled(label, scanner))
    do throws(GraphDecodingError) {
      let holder = try integer(holder, "holder", at: place)
      let label = try string(label, "label", at: place)
      records.references.append(DanglingReference(holder: holder, label: strings[label]))
    } catch {
      records.error = error.message
    }
  }

  // MARK: validating

  func validate() throws(GraphDecodingError) -> JSONReader.Parts {
    guard case .value(let format) = format else {
      _ = try string(format, "format", at: .top)
      throw GraphDecodingError("")
    }
    guard format == JSONFormat.formatName else {
      throw GraphDecodingError(
        "format: expected \"\(JSONFormat.formatName)\", found \"\(format)\"; this is not a retain-graph JSON file"
      )
    }
    let version = try integer(version, "version", at: .top)
    guard JSONFormat.readableVersions.contains(version) else {
      throw GraphDecodingError(
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
          "nodes[\(index)].id: \(id) is out of range; ids must be 0..<\(count), one per node, none missing")
      }
      guard slots[id] < 0 else {
        throw GraphDecodingError("nodes[\(index)].id: duplicate id \(id) (also nodes[\(slots[id])].id)")
      }
      slots[id] = index
    }
    if let error = nodeRecords.error { throw GraphDecodingError(error.message) }

    let edgeRecords = try array(edges, "edges")
    let edgeError = [edgeRecords.error, version >= 2 ? edgeRecords.versionTwoError : nil].compactMap { $0 }
      .min { $0.index < $1.index }
    if let edgeError { throw GraphDecodingError(edgeError.message) }

    var danglingReferences: [DanglingReference] = []
    if case .value(let records) = dangling, records.error == nil {
      danglingReferences = records.references
    } else if let records = try optionalArray(dangling, "dangling"), let error = records.error {
      throw GraphDecodingError(error)
    }
    var noteTexts: [String] = []
    if case .value(let records) = notes, records.error == nil {
      noteTexts = records.notes
    } else if let records = try optionalArray(notes, "notes"), let error = records.error {
      throw GraphDecodingError(error)
    }

    // Where ids lead, in the order `ObjectGraph(nodes:edges:…)` checks them.
    guard (0..<count).contains(root) else {
      throw GraphDecodingError("root: \(root) is not the id of a node (there are \(count) nodes)")
    }
    for (index, edge) in edgeRecords.edges.enumerated() {
      var (from, to) = (Int(edge.from), Int(edge.to))
      if let wide = edgeRecords.wide, wide.index == index { (from, to) = (wide.from, wide.to) }
      guard from >= 0 && from < count else {
        throw GraphDecodingError("edges[\(index)].from: \(from) is not the id of a node")
      }
      guard to >= 0 && to < count else {
        throw GraphDecodingError("edges[\(index)].to: \(to) is not the id of a node")
      }
    }
    for (index, dangling) in danglingReferences.enumerated() where !(0..<count).contains(dangling.holder) {
      throw GraphDecodingError("dangling[\(index)].holder: \(dangling.holder) is not the id of a node")
    }
    let storage = try storage(nodes: nodeRecords, slots: slots, edges: edgeRecords, version: version)
    return JSONReader.Parts(
      root: root, truncated: truncated, storage: storage, dangling: danglingReferences, notes: noteTexts)
  }

  /// The graph's storage, as `GraphStorage(nodes:edges:)` makes it: type names interned in id order,
  /// labels in edge order.
  private func storage(
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
      else { throw GraphDecodingError("edges: more than \(1 << 29) distinct labels") }
      compact.append(packed)
    }
    return GraphStorage(
      typeNames: typeNames, nodeTypes: nodeTypes, nodeKinds: nodeKinds, labels: labels.values, edges: compact)
  }

  // MARK: typed fields

  private static func join(_ place: Place, _ key: String) -> String {
    place.index < 0 ? key : "\(place).\(key)"
  }

  private func integer(_ field: Field<Int>, _ key: String, at place: Place) throws(GraphDecodingError) -> Int
  {
    switch field {
    case .value(let value): return value
    case .missing: throw GraphDecodingError("\(Self.join(place, key)): missing field")
    case .described(let text):
      throw GraphDecodingError("\(Self.join(place, key)): expected an integer, found \(text)")
    case .wrongType, .unknown:
      throw GraphDecodingError("\(Self.join(place, key)): expected an integer, found a value")
    }
  }

  private func boolean(_ field: Field<Bool>, _ key: String, at place: Place) throws(GraphDecodingError)
    -> Bool
  {
    switch field {
    case .value(let value): return value
    case .missing: throw GraphDecodingError("\(Self.join(place, key)): missing field")
    case .described(let text):
      throw GraphDecodingError("\(Self.join(place, key)): expected true or false, found \(text)")
    case .wrongType, .unknown:
      throw GraphDecodingError("\(Self.join(place, key)): expected true or false, found a value")
    }
  }

  /// A string field's value; for a field that holds an unknown name, the caller reports it first.
  private func string<Value>(_ field: Field<Value>, _ key: String, at place: Place)
    throws(GraphDecodingError)
    -> Value
  {
    switch field {
    case .value(let value): return value
    case .missing: throw GraphDecodingError("\(Self.join(place, key)): missing field")
    case .described(let text):
      throw GraphDecodingError("\(Self.join(place, key)): expected a string, found \(text)")
    case .wrongType, .unknown:
      throw GraphDecodingError("\(Self.join(place, key)): expected a string, found a value")
    }
  }

  /// An optional string's id, or -1 when it is missing or null.
  private func optionalString(_ field: Field<Int32>, _ key: String, at place: Place)
    throws(GraphDecodingError)
    -> Int32
  {
    if case .missing = field { return -1 }
    return try string(field, key, at: place)
  }

  private func array<Records>(_ field: Field<Records>, _ key: String) throws(GraphDecodingError) -> Records {
    switch field {
    case .value(let records): return records
    case .missing: throw GraphDecodingError("\(key): missing field")
    case .described(let text):
      throw GraphDecodingError("\(key): expected an array, found \(text)")
    case .wrongType, .unknown:
      throw GraphDecodingError("\(key): expected an array, found a value")
    }
  }

  private func optionalArray<Records>(_ field: Field<Records>, _ key: String) throws(GraphDecodingError)
    -> Records?
  {
    if case .missing = field { return nil }
    return try array(field, key)
  }

  // MARK: describing values

  /// The string at `offset` in the scanner's window.
  func string(at offset: Int, in window: JSONScanner) -> String {
    var scanner = window.rereading(at: offset)
    defer { scanner.deallocate() }
    guard let bytes = try? scanner.string() else { return "" }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A short description of the value at `offset` in the scanner's window, for messages: its type
  /// and, for scalars, the value.
  func describe(at offset: Int, in window: JSONScanner) -> String {
    var scanner = window.rereading(at: offset)
    defer { scanner.deallocate() }
    switch scanner.byte(offset) {
    case 0x22:
      let text = string(at: offset, in: window)
      let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
      return "the string \"\(shown)\""
    case 0x5B: return "an array"
    case 0x7B: return "an object"
    case 0x74: return "true"
    case 0x66: return "false"
    case 0x6E: return "null"
    default:
      guard let number = try? scanner.number() else { return "a value" }
      return "the number \(number.description)"
    }
  }
}

private protocol EmptyInitializable { init() }
extension Document.NodeRecords: EmptyInitializable {}
extension Document.EdgeRecords: EmptyInitializable {}
extension Document.DanglingRecords: EmptyInitializable {}
extension Document.NoteRecords: EmptyInitializable {}

extension Field {
  fileprivate func map<Other>(_ transform: (Value) -> Other) -> Field<Other> {
    switch self {
    case .missing: .missing
    case .value(let value): .value(transform(value))
    case .wrongType(let offset): .wrongType(at: offset)
    case .unknown(let offset): .unknown(at: offset)
    case .described(let text): .described(text)
    }
  }
}

extension JSONScanner {
  /// An integer field's value: a number that is an integer, or where the value of another type is.
  fileprivate mutating func integerField() throws(JSONSyntaxError) -> Field<Int> {
    let offset = position
    switch byte(offset) {
    case 0x2D, 0x30...0x39:
      guard let value = try number().integerValue else { return .wrongType(at: offset) }
      return .value(value)
    default:
      try skipValue()
      return .wrongType(at: offset)
    }
  }

  /// A string field's UTF-8 (valid until the next string is read); `optional`, null is no value.
  fileprivate mutating func stringField(optional: Bool = false) throws(JSONSyntaxError)
    -> Field<UnsafeBufferPointer<UInt8>>
  {
    let offset = position
    switch byte(offset) {
    case 0x22: return .value(try string())
    case 0x6E where optional:
      _ = try literal()
      return .missing
    default:
      try skipValue()
      return .wrongType(at: offset)
    }
  }

  fileprivate mutating func booleanField() throws(JSONSyntaxError) -> Field<Bool> {
    let offset = position
    switch byte(offset) {
    case 0x74, 0x66: return try literal().map { .value($0) } ?? .wrongType(at: offset)
    default:
      try skipValue()
      return .wrongType(at: offset)
    }
  }

  /// A string field naming one of a few values: the value, or where the unknown name is.
  fileprivate mutating func enumField<Value>(_ named: (UnsafeBufferPointer<UInt8>) -> Value?)
    throws(JSONSyntaxError) -> Field<Value>
  {
    let offset = position
    guard byte(offset) == 0x22 else {
      try skipValue()
      return .wrongType(at: offset)
    }
    return named(try string()).map { .value($0) } ?? .unknown(at: offset)
  }
}

extension UnsafeBufferPointer<UInt8> {
  /// Whether these bytes are `name`'s UTF-8.
  @inline(__always) fileprivate func equals(_ name: StaticString) -> Bool {
    guard count == name.utf8CodeUnitCount else { return false }
    let expected = name.utf8Start
    for index in 0..<count where self[index] != expected[index] { return false }
    return true
  }
}

extension Node.Kind {
  fileprivate init?(json bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.equals("object") {
      self = .object
    } else if bytes.equals("closure") {
      self = .closure
    } else if bytes.equals("value") {
      self = .value
    } else if bytes.equals("task") {
      self = .task
    } else {
      return nil
    }
  }
}

extension Ownership {
  fileprivate init?(json bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.equals("strong") {
      self = .strong
    } else if bytes.equals("weak") {
      self = .weak
    } else if bytes.equals("unowned") {
      self = .unowned
    } else if bytes.equals("unowned(unsafe)") {
      self = .unownedUnsafe
    } else {
      return nil
    }
  }
}

extension Edge.Kind {
  /// Every kind's name in a JSON snapshot, in declaration order.
  static let jsonNames = [
    "property", "enumPayload", "element", "closure", "singleCapture", "methodReference", "capture", "global",
    "suspendedFrame",
  ]

  private static let jsonNameBytes: [[UInt8]] = jsonNames.map { Array($0.utf8) }

  /// The index in ``jsonNames`` of the kind named by `bytes`.
  fileprivate static func jsonIndex(of bytes: UnsafeBufferPointer<UInt8>) -> Int8? {
    for (index, name) in jsonNameBytes.enumerated() where name.elementsEqual(bytes) { return Int8(index) }
    return nil
  }

  /// The kind's name in a JSON snapshot.
  var jsonName: String {
    switch self {
    case .property: "property"
    case .enumPayload: "enumPayload"
    case .element: "element"
    case .closure: "closure"
    case .singleCapture: "singleCapture"
    case .methodReference: "methodReference"
    case .capture: "capture"
    case .global: "global"
    case .suspendedFrame: "suspendedFrame"
    }
  }

  /// A kind without an argument, by its JSON name.
  init?(jsonName: String) {
    switch jsonName {
    case "property": self = .property
    case "enumPayload": self = .enumPayload
    case "element": self = .element
    case "closure": self = .closure
    case "singleCapture": self = .singleCapture
    case "global": self = .global
    case "suspendedFrame": self = .suspendedFrame
    default: return nil
    }
  }
}
