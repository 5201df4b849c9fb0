internal import RetainGraphStorage
internal import RetainGraphSupport

/// The compact binary form in which a forked child sends a walked graph to its parent: the
/// graph's own tables, not JSON and not a re-walk.
///
/// Little-endian throughout; strings are a `u32` byte count and UTF-8:
/// ```
/// "RGTX" magic, u32 version (2), u32 root, u8 flags (bit 0: truncated)
/// u32 count, then type names            u32 count, then labels, each:
///   u8 kind (Edge.Kind's transfer code), u8 numbering (0 none, 1 element, 2 repeated step),
///   u8 present (bit 0: property, bit 1: function), u32 capture index, u32 number (0xFFFF_FFFF for
///   none), strings path, tail, suffix, then the step (repeated), the method (method reference),
///   the property and the function when present
/// u32 node count, u32 type index per node, u8 kind per node (0 object, 1 closure, 2 value),
///   u64 object address per node (0 for none; the child's addresses are the parent's)
/// u32 edge count, then per edge: u32 from, u32 to, u32 (label << 2 | ownership), u32 element index
///   (0xFFFF_FFFF for none)
/// u32 count, then dangling references (u32 holder, string label)
/// u32 count, then notes, each: strings kind, type, description, then u32 node (0xFFFF_FFFF for none)
/// "DONE"
/// ```
/// The reader checks every count against the bytes left before allocating, every index against
/// its table and every string for valid UTF-8: a malformed stream is a ``ForkedWalkError``, never
/// a trap. The columns' bytes (integers, strings, the edges) are written and read by
/// `RetainGraphStorage`'s ``ColumnWriter`` and ``ColumnReader``; the order of the parts, the labels,
/// the nodes' kinds and the notes are written here and read in `GraphTransfer+Reader.swift`.
package enum GraphTransfer {
  static let magic: [UInt8] = Array("RGTX".utf8)
  static let endMarker: [UInt8] = Array("DONE".utf8)
  static let version: UInt32 = 3
  static let noIndex = ColumnWriter.noIndex

  /// The graph in transfer form.
  package static func encode(_ graph: ObjectGraph) -> [UInt8] {
    let storage = graph.storage
    func size(of strings: [String]) -> Int { strings.reduce(4) { $0 + 4 + $1.utf8.count } }
    let size =
      magic.count + 4 + 4 + 1 + size(of: storage.typeNames)
      + storage.labels.reduce(4) { $0 + $1.transferSize }
      + 4 + storage.nodeCount * 13 + 4 + storage.edges.count * ColumnWriter.edgeSize
      + graph.danglingReferences.reduce(4) { $0 + 8 + $1.label.utf8.count }
      + graph.walkNotes.reduce(4) {
        $0 + 16 + $1.kind.rawValue.utf8.count + $1.typeName.utf8.count + $1.description.utf8.count
      }
      + endMarker.count
    // Written in place: the child of a million-object walk sends tens of megabytes.
    return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      var writer = ColumnWriter(UnsafeMutableRawBufferPointer(buffer))
      writer.append(magic)
      writer.append(version)
      writer.append(UInt32(graph.root))
      writer.append(byte: graph.isTruncated ? 1 : 0)
      writer.append(strings: storage.typeNames)
      writer.append(UInt32(storage.labels.count))
      for label in storage.labels { writer.append(label: label) }
      writer.append(UInt32(storage.nodeCount))
      for type in storage.nodeTypes { writer.append(UInt32(bitPattern: type)) }
      for kind in storage.nodeKinds { writer.append(byte: kind.transferCode) }
      let addresses = graph.objectAddresses.addresses
      for node in 0..<storage.nodeCount { writer.append(UInt64(addresses.isEmpty ? 0 : addresses[node])) }
      writer.append(UInt32(storage.edges.count))
      writer.append(edges: storage.edges, wideLabels: storage.wideLabels)
      writer.append(UInt32(graph.danglingReferences.count))
      for dangling in graph.danglingReferences {
        writer.append(UInt32(dangling.holder))
        writer.append(string: dangling.label)
      }
      writer.append(UInt32(graph.walkNotes.count))
      for note in graph.walkNotes {
        writer.append(string: note.kind.rawValue)
        writer.append(string: note.typeName)
        writer.append(string: note.description)
        writer.append(note.node.map { UInt32($0) } ?? noIndex)
      }
      writer.append(endMarker)
      precondition(writer.offset == size, "transfer size miscounted")
      initialized = size
    }
  }

  /// Reads a graph in transfer form and computes its cycles.
  /// - Throws: ``ForkedWalkError/malformedData(_:)`` naming what is wrong and at which byte.
  package static func decode(
    _ bytes: [UInt8], libraryModules: Set<String> = GraphOptions.defaultLibraryModules,
    libraryRules: [LibraryRule] = []
  ) throws(ForkedWalkError) -> ObjectGraph {
    let result = bytes.withUnsafeBytes { raw in
      Result { () throws(ColumnReadError) -> ObjectGraph in
        var reader = ColumnReader(raw)
        return try reader.graph(libraryModules: libraryModules, libraryRules: libraryRules)
      }
    }
    return try result.mapError { ForkedWalkError.malformedData($0.message) }.get()
  }
}

extension ColumnWriter {
  /// A label, as ``ColumnReader/label(_:)`` reads it.
  mutating func append(label: ReferencePath) {
    append(byte: label.kind.transferCode)
    switch label.numbering {
    case .none: append(byte: 0)
    case .element: append(byte: 1)
    case .repeated: append(byte: 2)
    }
    append(byte: (label.property == nil ? 0 : 1) | (label.function == nil ? 0 : 2))
    if let index = label.kind.captureIndex {
      append(UInt32(truncatingIfNeeded: index))
    } else {
      append(UInt32(0))
    }
    append(label.number < 0 ? GraphTransfer.noIndex : UInt32(label.number))
    append(string: label.path)
    append(string: label.tail)
    append(string: label.suffix)
    if case .repeated(let step) = label.numbering { append(string: step) }
    if case .methodReference(let method) = label.kind { append(string: method) }
    if let property = label.property { append(string: property) }
    if let function = label.function { append(string: function) }
  }
}
