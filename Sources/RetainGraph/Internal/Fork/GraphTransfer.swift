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
/// u32 count, then notes                 "DONE"
/// ```
/// The reader checks every count against the bytes left before allocating, every index against
/// its table and every string for valid UTF-8: a malformed stream is a ``ForkedWalkError``, never
/// a trap.
package enum GraphTransfer {
  static let magic: [UInt8] = Array("RGTX".utf8)
  static let endMarker: [UInt8] = Array("DONE".utf8)
  static let version: UInt32 = 2
  static let noIndex: UInt32 = 0xFFFF_FFFF

  /// The graph in transfer form.
  package static func encode(_ graph: ObjectGraph) -> [UInt8] {
    let storage = graph.storage
    func size(of strings: [String]) -> Int { strings.reduce(4) { $0 + 4 + $1.utf8.count } }
    let size =
      magic.count + 4 + 4 + 1 + size(of: storage.typeNames)
      + storage.labels.reduce(4) { $0 + $1.transferSize }
      + 4 + storage.nodeCount * 13 + 4 + storage.edges.count * 16
      + graph.danglingReferences.reduce(4) { $0 + 8 + $1.label.utf8.count } + size(of: graph.notes)
      + endMarker.count
    // Written in place: the child of a million-object walk sends tens of megabytes.
    return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      var writer = Writer(UnsafeMutableRawBufferPointer(buffer))
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
      for edge in storage.edges {
        writer.append(UInt32(bitPattern: edge.from))
        writer.append(UInt32(bitPattern: edge.to))
        writer.append(UInt32(bitPattern: edge.label) << 2 | UInt32(edge.ownership.code))
        writer.append(edge.index < 0 ? noIndex : UInt32(edge.index))
      }
      writer.append(UInt32(graph.danglingReferences.count))
      for dangling in graph.danglingReferences {
        writer.append(UInt32(dangling.holder))
        writer.append(string: dangling.label)
      }
      writer.append(strings: graph.notes)
      writer.append(endMarker)
      precondition(writer.offset == size, "transfer size miscounted")
      initialized = size
    }
  }

  /// Reads a graph in transfer form and computes its cycles.
  /// - Throws: ``ForkedWalkError/malformedData(_:)`` naming what is wrong and at which byte.
  package static func decode(
    _ bytes: [UInt8], libraryModules: Set<String> = GraphOptions.defaultLibraryModules
  ) throws(ForkedWalkError) -> ObjectGraph {
    let result = bytes.withUnsafeBytes { raw in
      Result { () throws(ForkedWalkError) -> ObjectGraph in
        var reader = Reader(raw)
        return try reader.graph(libraryModules: libraryModules)
      }
    }
    return try result.get()
  }

  /// Writes into a buffer sized beforehand.
  private struct Writer {
    let buffer: UnsafeMutableRawBufferPointer
    var offset = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    mutating func append(byte: UInt8) {
      buffer[offset] = byte
      offset += 1
    }

    mutating func append(_ raw: [UInt8]) {
      for byte in raw { append(byte: byte) }
    }

    mutating func append(_ value: UInt32) {
      buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
      offset += 4
    }

    mutating func append(_ value: UInt64) {
      buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
      offset += 8
    }

    mutating func append(string: String) {
      var string = string
      string.withUTF8 { utf8 in
        append(UInt32(utf8.count))
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + utf8.count]).copyMemory(
          from: UnsafeRawBufferPointer(utf8))
        offset += utf8.count
      }
    }

    mutating func append(label: ReferencePath) {
      append(byte: label.kind.transferCode)
      switch label.numbering {
      case .none: append(byte: 0)
      case .element: append(byte: 1)
      case .repeated: append(byte: 2)
      }
      append(byte: (label.property == nil ? 0 : 1) | (label.function == nil ? 0 : 2))
      if case .capture(let index) = label.kind {
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

    mutating func append(strings: [String]) {
      append(UInt32(strings.count))
      for string in strings { append(string: string) }
    }
  }

  private struct Reader {
    let raw: UnsafeRawBufferPointer
    var offset = 0

    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    var left: Int { raw.count - offset }

    func malformed(_ what: String, at position: Int? = nil) -> ForkedWalkError {
      .malformedData("\(what) (at byte \(position ?? offset) of \(raw.count))")
    }

    mutating func u32(_ what: @autoclosure () -> String) throws(ForkedWalkError) -> UInt32 {
      guard left >= 4 else { throw malformed("the stream ends inside \(what())") }
      let value = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
      offset += 4
      return value
    }

    mutating func u64(_ what: @autoclosure () -> String) throws(ForkedWalkError) -> UInt64 {
      guard left >= 8 else { throw malformed("the stream ends inside \(what())") }
      let value = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      offset += 8
      return value
    }

    mutating func u8(_ what: @autoclosure () -> String) throws(ForkedWalkError) -> UInt8 {
      guard left >= 1 else { throw malformed("the stream ends inside \(what())") }
      defer { offset += 1 }
      return raw[offset]
    }

    /// An index into a table of `count` entries.
    mutating func index(_ what: @autoclosure () -> String, below count: Int) throws(ForkedWalkError) -> Int {
      let start = offset
      let value = Int(try u32(what()))
      guard value < count else {
        throw malformed("\(what()): \(value) is out of range 0..<\(count)", at: start)
      }
      return value
    }

    /// A count of entries each at least `minimumSize` bytes long, checked against the bytes left.
    mutating func count(_ what: String, minimumSize: Int) throws(ForkedWalkError) -> Int {
      let start = offset
      let value = Int(try u32("the count of \(what)"))
      guard value <= left / minimumSize, value <= Int(Int32.max) else {
        throw malformed("\(value) \(what) cannot fit in the \(left) bytes left", at: start)
      }
      return value
    }

    mutating func expect(_ marker: [UInt8], _ what: String) throws(ForkedWalkError) {
      guard left >= marker.count, marker.indices.allSatisfy({ raw[offset + $0] == marker[$0] }) else {
        throw malformed("\(what) is missing")
      }
      offset += marker.count
    }

    mutating func string(_ what: @autoclosure () -> String) throws(ForkedWalkError) -> String {
      let start = offset
      let length = Int(try u32("the length of \(what())"))
      guard length <= left else {
        throw malformed("\(what()): \(length) bytes announced, \(left) left", at: start)
      }
      let utf8 = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + length])
      guard let string = String(validating: utf8.bindMemory(to: UInt8.self), as: UTF8.self) else {
        throw malformed("\(what()) is not valid UTF-8", at: start)
      }
      offset += length
      return string
    }

    mutating func strings(_ what: String) throws(ForkedWalkError) -> [String] {
      let count = try count(what, minimumSize: 4)
      var strings: [String] = []
      strings.reserveCapacity(count)
      for index in 0..<count { strings.append(try string("\(what)[\(index)]")) }
      return strings
    }

    mutating func label(_ place: String) throws(ForkedWalkError) -> ReferencePath {
      let kindStart = offset
      let kindCode = try u8("\(place).kind")
      let numberingCode = try u8("\(place).numbering")
      let present = try u8("\(place).present")
      guard numberingCode <= 2 else {
        throw malformed("\(place).numbering: unknown \(numberingCode)", at: offset - 2)
      }
      guard present <= 3 else { throw malformed("\(place).present: unknown bits \(present)", at: offset - 1) }
      let capture = try u32("\(place).capture")
      let numberWord = try u32("\(place).number")
      let path = try string("\(place).path")
      let tail = try string("\(place).tail")
      let suffix = try string("\(place).suffix")
      let step = numberingCode == 2 ? try string("\(place).step") : nil
      let kind: Edge.Kind
      switch kindCode {
      case 5: kind = .methodReference(method: try string("\(place).method"))
      case 6:
        guard capture <= UInt32(Int32.max) else {
          throw malformed("\(place).capture: \(capture) is too large")
        }
        kind = .capture(index: Int(capture))
      default:
        guard let simple = Edge.Kind(transferCode: kindCode) else {
          throw malformed("\(place).kind: unknown kind \(kindCode)", at: kindStart)
        }
        kind = simple
      }
      var label = ReferencePath(label: "", kind: kind, property: nil)
      label.path = path
      label.tail = tail
      label.suffix = suffix
      label.numbering = step.map { .repeated(step: $0) } ?? (numberingCode == 1 ? .element : .none)
      label.number = numberWord == GraphTransfer.noIndex ? -1 : Int32(clamping: numberWord)
      if present & 1 != 0 { label.property = try string("\(place).property") }
      if present & 2 != 0 { label.function = try string("\(place).function") }
      return label
    }

    mutating func graph(libraryModules: Set<String>) throws(ForkedWalkError) -> ObjectGraph {
      try expect(GraphTransfer.magic, "the magic number RGTX")
      let versionStart = offset
      let version = try u32("the version")
      guard version == GraphTransfer.version else {
        throw malformed("version \(version) is not \(GraphTransfer.version)", at: versionStart)
      }
      let rootStart = offset
      let root = Int(try u32("the root"))
      let flags = try u8("the flags")
      guard flags <= 1 else { throw malformed("unknown flags \(flags)", at: offset - 1) }
      let typeNames = try strings("type names")
      let labelCount = try count("labels", minimumSize: 23)
      var labels: [ReferencePath] = []
      labels.reserveCapacity(labelCount)
      for index in 0..<labelCount { labels.append(try label("labels[\(index)]")) }

      let nodeCount = try count("nodes", minimumSize: 13)
      guard nodeCount > 0 else { throw malformed("a graph has at least its root node", at: offset - 4) }
      guard root < nodeCount else {
        throw malformed("root: \(root) is not the id of a node (there are \(nodeCount))", at: rootStart)
      }
      var nodeTypes: [Int32] = []
      nodeTypes.reserveCapacity(nodeCount)
      for node in 0..<nodeCount {
        nodeTypes.append(Int32(try index("nodes[\(node)].type", below: typeNames.count)))
      }
      var nodeKinds: [Node.Kind] = []
      nodeKinds.reserveCapacity(nodeCount)
      for node in 0..<nodeCount {
        let code = try u8("nodes[\(node)].kind")
        guard let kind = Node.Kind(transferCode: code) else {
          throw malformed("nodes[\(node)].kind: unknown kind \(code)", at: offset - 1)
        }
        nodeKinds.append(kind)
      }
      var objectAddresses: [UInt] = []
      objectAddresses.reserveCapacity(nodeCount)
      for node in 0..<nodeCount {
        let start = offset
        let address = try u64("nodes[\(node)].address")
        guard let word = UInt(exactly: address), word == 0 || nodeKinds[node] == .object else {
          throw malformed(
            "nodes[\(node)].address: \(address) is not the address of an object node", at: start)
        }
        objectAddresses.append(word)
      }

      let edgeCount = try count("edges", minimumSize: 16)
      var edges = ChunkedArray<CompactEdge>()
      for edge in 0..<edgeCount {
        let from = try index("edges[\(edge)].from", below: nodeCount)
        let to = try index("edges[\(edge)].to", below: nodeCount)
        let labelStart = offset
        let labelWord = try u32("edges[\(edge)].label")
        let label = Int(labelWord >> 2)
        guard label < labels.count else {
          throw malformed(
            "edges[\(edge)].label: \(label) is out of range 0..<\(labels.count)", at: labelStart)
        }
        let indexStart = offset
        let indexWord = try u32("edges[\(edge)].index")
        let elementIndex = indexWord == GraphTransfer.noIndex ? -1 : Int32(clamping: indexWord)
        guard
          let compact = CompactEdge(
            from: from, to: to, label: Int32(label), index: elementIndex,
            ownership: Ownership(code: UInt8(labelWord & 3)))
        else {
          throw malformed(
            "edges[\(edge)]: label \(label) with index \(indexWord) cannot be stored", at: indexStart)
        }
        edges.append(compact)
      }

      let danglingCount = try count("dangling references", minimumSize: 8)
      var dangling: [DanglingReference] = []
      for reference in 0..<danglingCount {
        let holder = try index("dangling[\(reference)].holder", below: nodeCount)
        dangling.append(DanglingReference(holder: holder, label: try string("dangling[\(reference)].label")))
      }
      let notes = try strings("notes")
      try expect(GraphTransfer.endMarker, "the end marker DONE")
      guard left == 0 else { throw malformed("\(left) bytes follow the end marker") }

      let storage = GraphStorage(
        typeNames: typeNames, nodeTypes: nodeTypes, nodeKinds: nodeKinds, labels: labels, edges: edges)
      return ObjectGraph(
        storage: storage, root: root, isTruncated: flags == 1, danglingReferences: dangling, notes: notes,
        libraryModules: libraryModules, objectAddresses: objectAddresses)
    }
  }
}

extension ReferencePath {
  /// The bytes ``GraphTransfer`` writes for this label.
  var transferSize: Int {
    func size(_ string: String?) -> Int { string.map { 4 + $0.utf8.count } ?? 0 }
    var total = 3 + 8 + size(path) + size(tail) + size(suffix) + size(property) + size(function)
    if case .repeated(let step) = numbering { total += size(step) }
    if case .methodReference(let method) = kind { total += size(method) }
    return total
  }
}

extension Edge.Kind {
  /// The kind's code in ``GraphTransfer``'s labels.
  var transferCode: UInt8 {
    switch self {
    case .property: 0
    case .enumPayload: 1
    case .element: 2
    case .closure: 3
    case .singleCapture: 4
    case .methodReference: 5
    case .capture: 6
    case .global: 7
    case .suspendedFrame: 8
    }
  }

  /// A kind without an argument, by its code.
  init?(transferCode: UInt8) {
    switch transferCode {
    case 0: self = .property
    case 1: self = .enumPayload
    case 2: self = .element
    case 3: self = .closure
    case 4: self = .singleCapture
    case 7: self = .global
    case 8: self = .suspendedFrame
    default: return nil
    }
  }
}

extension Node.Kind {
  var transferCode: UInt8 {
    switch self {
    case .object: 0
    case .closure: 1
    case .value: 2
    case .task: 3
    }
  }

  init?(transferCode: UInt8) {
    switch transferCode {
    case 0: self = .object
    case 1: self = .closure
    case 2: self = .value
    case 3: self = .task
    default: return nil
    }
  }
}
