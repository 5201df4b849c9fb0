internal import Foundation
internal import RetainGraphJSONScanner
internal import RetainGraphSupport

/// Where a record is, for messages (`nodes[3]`), made into text only for a message.
struct JSONPlace: CustomStringConvertible {
  var array: String
  var index: Int

  /// The top level.
  static let top = JSONPlace(array: "", index: -1)

  var description: String { index < 0 ? "" : "\(array)[\(index)]" }
}

/// An edge as read: its ends, its label's index in ``SnapshotContents/labels``, and its ownership's
/// code in ``SnapshotFormat/ownerships``.
package struct SnapshotEdge: Sendable {
  package var from: Int32
  package var to: Int32
  package var label: Int32
  package var ownership: UInt8
}

/// An edge's label and what version 2 says about it; the version 1 reading uses only the text.
package struct SnapshotLabel: Hashable, Sendable {
  /// The label's string id.
  package var label: Int32
  /// The kind's index in ``SnapshotFormat/edgeKinds``, or -1 when version 2 would reject the edge.
  package var kind: Int8
  /// The capture's index, or the method name's string id.
  package var argument: Int
  /// The property's string id, -1 for none.
  package var property: Int32
  /// The closure function's string id, -1 for none.
  package var function: Int32
}

/// The snapshot's top-level fields as read so far; a key given twice keeps its last value.
struct JSONDocument {
  var strings = JSONStringTable()
  var format = JSONField<String>.missing
  var version = JSONField<Int>.missing
  var root = JSONField<Int>.missing
  var truncated = JSONField<Bool>.missing
  var nodes = JSONField<NodeRecords>.missing
  var edges = JSONField<EdgeRecords>.missing
  var dangling = JSONField<DanglingRecords>.missing
  var notes = JSONField<NoteRecords>.missing
  var noteDetails = JSONField<NoteDetailRecords>.missing
  var sourceLocations = JSONField<SourceLocationRecords>.missing
  /// Whether a `sourceLocations` declaration is one the core reads (`property Type.name`,
  /// `closure name`): the core's grammar, given by the reader's caller.
  var isDeclarationKey: (String) -> Bool = { _ in true }

  struct NodeRecords {
    var count = 0
    /// The nodes before the first one with a wrong field, in the order of the text.
    var ids: [Int] = []
    var types: [Int32] = []
    /// Codes in ``SnapshotFormat/nodeKinds``.
    var kinds: [UInt8] = []
    var error: (index: Int, error: SnapshotReadingError)?
  }

  struct EdgeRecords {
    var count = 0
    /// The edges before the first one wrong in any version.
    var edges = ChunkedArray<SnapshotEdge>()
    var labels: [SnapshotLabel] = []
    var labelIDs: [SnapshotLabel: Int32] = [:]
    /// The first edge with an id beyond 32 bits, with its ids (stored as -1).
    var wide: (index: Int, from: Int, to: Int)?
    var error: (index: Int, error: SnapshotReadingError)?
    /// The first edge that only version 2 rejects (its kind or the kind's argument).
    var versionTwoError: (index: Int, error: SnapshotReadingError)?
  }

  /// An optional array's elements (`dangling`, `notes`, `noteDetails`) up to the first wrong one,
  /// whose error is kept (the rest are skipped).
  struct OptionalRecords<Value> {
    var values: [Value] = []
    var error: SnapshotReadingError?
  }
  typealias DanglingRecords = OptionalRecords<SnapshotDangling>
  typealias NoteRecords = OptionalRecords<String>

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
      format = try text(&scanner)
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
          records.values.append(String(decoding: bytes, as: UTF8.self))
        } else {
          records.error = .wrongType(
            "notes[\(index)]", expected: "a string", found: describe(at: offset, in: scanner))
        }
      }
    } else if key.equals("noteDetails") {
      noteDetails = try array(&scanner, optional: true) { records, scanner, index throws(JSONSyntaxError) in
        try readNoteDetail(index, into: &records, &scanner)
      }
    } else if key.equals("sourceLocations") {
      sourceLocations = try array(&scanner, optional: true) {
        records, scanner, index throws(JSONSyntaxError) in
        try readSourceLocation(index, into: &records, &scanner)
      }
    } else {
      try scanner.skipValue()
    }
  }

  /// A top-level field of another type described now: its text may be gone when it is validated.
  func settled<Value>(_ field: JSONField<Value>, _ scanner: JSONScanner) -> JSONField<Value> {
    guard case .wrongType(let offset) = field else { return field }
    return .described(describe(at: offset, in: scanner))
  }

  /// The string at the scanner as text, settled.
  func text(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> JSONField<String> {
    settled(try scanner.stringField().map { String(decoding: $0, as: UTF8.self) }, scanner)
  }

  /// The integer at the scanner, settled; null reads as missing (an optional field).
  func optionalInteger(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> JSONField<Int> {
    if scanner.byte(scanner.position) == 0x6E, try scanner.literal() == nil { return .missing }
    return settled(try scanner.integerField(), scanner)
  }

  /// The array at the scanner, read element by element into `Records`; an optional array may be null.
  /// The window reads on between elements.
  private func array<Records>(
    _ scanner: inout JSONScanner, optional: Bool = false,
    _ element: (inout Records, inout JSONScanner, Int) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) -> JSONField<Records> where Records: JSONRecords {
    let offset = scanner.position
    guard scanner.byte(offset) == 0x5B else {
      if optional && scanner.byte(offset) == 0x6E, try scanner.literal() == nil { return .missing }
      try scanner.skipValue()
      return settled(JSONField<Records>.wrongType(at: offset), scanner)
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
    let place = JSONPlace(array: "nodes", index: index)
    let offset = scanner.position
    guard scanner.byte(offset) == 0x7B else {
      try scanner.skipValue()
      records.error = (
        index, .wrongType("\(place)", expected: "an object", found: describe(at: offset, in: scanner))
      )
      return
    }
    var id = JSONField<Int>.missing
    var type = JSONField<Int32>.missing
    var kind = JSONField<Int8>.missing
    try scanner.members { scanner, key throws(JSONSyntaxError) in
      if key.equals("id") {
        id = try scanner.integerField()
      } else if key.equals("type") {
        type = try scanner.stringField().map { strings.intern($0) }
      } else if key.equals("kind") {
        kind = try scanner.enumField { SnapshotFormat.index(of: $0, in: SnapshotFormat.nodeKindBytes) }
      } else {
        try scanner.skipValue()
      }
    }
    (id, type, kind) = (settled(id, scanner), settled(type, scanner), settled(kind, scanner))
    do throws(SnapshotReadingError) {
      let id = try integer(id, "id", at: place)
      let type = try string(type, "type", at: place)
      guard case .value(let kind) = kind else {
        if case .unknown(let offset) = kind {
          let known = SnapshotFormat.listed(SnapshotFormat.nodeKinds)
          throw .unknownValue("\(place).kind", "kind", string(at: offset, in: scanner), known: known)
        }
        _ = try string(kind, "kind", at: place)
        return
      }
      records.ids.append(id)
      records.types.append(type)
      records.kinds.append(UInt8(kind))
    } catch {
      records.error = (index, error)
    }
  }

  private mutating func readEdge(
    _ index: Int, into records: inout EdgeRecords, _ scanner: inout JSONScanner
  ) throws(JSONSyntaxError) {
    records.count = index + 1
    guard records.error == nil else { return try scanner.skipValue() }
    let place = JSONPlace(array: "edges", index: index)
    let offset = scanner.position
    guard scanner.byte(offset) == 0x7B else {
      try scanner.skipValue()
      records.error = (
        index, .wrongType("\(place)", expected: "an object", found: describe(at: offset, in: scanner))
      )
      return
    }
    var from = JSONField<Int>.missing
    var to = JSONField<Int>.missing
    var label = JSONField<Int32>.missing
    var ownership = JSONField<Int8>.missing
    var kind = JSONField<Int8>.missing
    var capture = JSONField<Int>.missing
    var method = JSONField<Int32>.missing
    var property = JSONField<Int32>.missing
    var function = JSONField<Int32>.missing
    try scanner.members { scanner, key throws(JSONSyntaxError) in
      switch key.count {
      case 2 where key.equals("to"): to = try scanner.integerField()
      case 4 where key.equals("from"): from = try scanner.integerField()
      case 4 where key.equals("kind"):
        kind = try scanner.enumField { SnapshotFormat.index(of: $0, in: SnapshotFormat.edgeKindBytes) }
      case 5 where key.equals("label"): label = try scanner.stringField().map { strings.intern($0) }
      case 6 where key.equals("method"): method = try scanner.stringField().map { strings.intern($0) }
      case 7 where key.equals("capture"): capture = try scanner.integerField()
      case 8 where key.equals("property"):
        property = try scanner.stringField(optional: true).map { strings.intern($0) }
      case 8 where key.equals("function"):
        function = try scanner.stringField(optional: true).map { strings.intern($0) }
      case 9 where key.equals("ownership"):
        ownership = try scanner.enumField { SnapshotFormat.index(of: $0, in: SnapshotFormat.ownershipBytes) }
      default: try scanner.skipValue()
      }
    }
    (from, to, label, ownership) = (
      settled(from, scanner), settled(to, scanner), settled(label, scanner), settled(ownership, scanner)
    )
    (kind, capture, method) = (settled(kind, scanner), settled(capture, scanner), settled(method, scanner))
    (property, function) = (settled(property, scanner), settled(function, scanner))
    let edge: SnapshotEdge
    do throws(SnapshotReadingError) {
      let from = try integer(from, "from", at: place)
      let to = try integer(to, "to", at: place)
      let label = try string(label, "label", at: place)
      guard case .value(let ownership) = ownership else {
        if case .unknown(let offset) = ownership {
          let known = SnapshotFormat.listed(SnapshotFormat.ownerships)
          throw .unknownValue(
            "\(place).ownership", "ownership", string(at: offset, in: scanner), known: known)
        }
        _ = try string(ownership, "ownership", at: place)
        return
      }
      let narrowFrom = Int32(exactly: from)
      let narrowTo = Int32(exactly: to)
      if records.wide == nil && (narrowFrom == nil || narrowTo == nil) { records.wide = (index, from, to) }
      var raw = SnapshotLabel(label: label, kind: -1, argument: 0, property: -1, function: -1)
      do throws(SnapshotReadingError) {
        guard case .value(let kindIndex) = kind else {
          if case .unknown(let offset) = kind {
            let known = SnapshotFormat.listed(SnapshotFormat.edgeKinds)
            throw .unknownValue("\(place).kind", "kind", string(at: offset, in: scanner), known: known)
          }
          _ = try string(kind, "kind", at: place)
          throw SnapshotReadingError(.other, at: nil, "")
        }
        switch SnapshotFormat.edgeKinds[Int(kindIndex)] {
        case "capture", "actorIsolation": raw.argument = try integer(capture, "capture", at: place)
        case "methodReference": raw.argument = Int(try string(method, "method", at: place))
        default: break
        }
        raw.property = try optionalString(property, "property", at: place)
        raw.function = try optionalString(function, "function", at: place)
        raw.kind = kindIndex
      } catch {
        if records.versionTwoError == nil { records.versionTwoError = (index, error) }
        raw = SnapshotLabel(label: label, kind: -1, argument: 0, property: -1, function: -1)
      }
      let labelID: Int32
      if let known = records.labelIDs[raw] {
        labelID = known
      } else {
        labelID = Int32(records.labels.count)
        records.labels.append(raw)
        records.labelIDs[raw] = labelID
      }
      edge = SnapshotEdge(
        from: narrowFrom ?? -1, to: narrowTo ?? -1, label: labelID, ownership: UInt8(ownership))
    } catch {
      records.error = (index, error)
      return
    }
    records.edges.append(edge)
  }

  private mutating func readDangling(
    _ index: Int, into records: inout DanglingRecords, _ scanner: inout JSONScanner
  ) throws(JSONSyntaxError) {
    var holder = JSONField<Int>.missing
    var label = JSONField<Int32>.missing
    try readObject(index, of: "dangling", into: &records, &scanner) {
      document, scanner, key throws(JSONSyntaxError) in
      if key.equals("holder") {
        holder = try scanner.integerField()
      } else if key.equals("label") {
        label = try scanner.stringField().map { document.strings.intern($0) }
      } else {
        try scanner.skipValue()
      }
    } value: { document, scanner, place throws(SnapshotReadingError) in
      let holder = try document.integer(document.settled(holder, scanner), "holder", at: place)
      let label = try document.string(document.settled(label, scanner), "label", at: place)
      return SnapshotDangling(holder: holder, label: document.strings[label])
    }
  }

  /// Reads element `index` of the optional array `array` of objects into `records`: `member` reads
  /// each member (into the caller's fields), then `value` makes the element of them, or throws what
  /// is wrong with it, which becomes the records' error. Once an element is wrong the others are
  /// skipped. The one reader of `dangling` and `noteDetails` records.
  mutating func readObject<Value>(
    _ index: Int, of array: String, into records: inout OptionalRecords<Value>, _ scanner: inout JSONScanner,
    member: (inout JSONDocument, inout JSONScanner, UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) ->
      Void,
    value: (JSONDocument, JSONScanner, JSONPlace) throws(SnapshotReadingError) -> Value
  ) throws(JSONSyntaxError) {
    guard records.error == nil else { return try scanner.skipValue() }
    let place = JSONPlace(array: array, index: index)
    let offset = scanner.position
    guard scanner.byte(offset) == 0x7B else {
      try scanner.skipValue()
      records.error = .wrongType("\(place)", expected: "an object", found: describe(at: offset, in: scanner))
      return
    }
    try scanner.members { scanner, key throws(JSONSyntaxError) in try member(&self, &scanner, key) }
    do throws(SnapshotReadingError) {
      records.values.append(try value(self, scanner, place))
    } catch {
      records.error = error
    }
  }
}

/// A kind of record array a document collects (``JSONDocument/NodeRecords`` and the others).
protocol JSONRecords { init() }
extension JSONDocument.NodeRecords: JSONRecords {}
extension JSONDocument.EdgeRecords: JSONRecords {}
extension JSONDocument.OptionalRecords: JSONRecords {}
