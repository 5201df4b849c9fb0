internal import RetainGraphStorage
internal import RetainGraphSupport

extension GraphTransfer {
  /// Reads the bytes ``GraphTransfer/encode(_:)`` wrote, checking each count, index and string.
  struct Reader {
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
      case 6, 9:
        guard capture <= UInt32(Int32.max) else {
          throw malformed("\(place).capture: \(capture) is too large")
        }
        kind = kindCode == 6 ? .capture(index: Int(capture)) : .actorIsolation(index: Int(capture))
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

    mutating func graph(
      libraryModules: Set<String>, libraryRules: [LibraryRule] = []
    ) throws(ForkedWalkError) -> ObjectGraph {
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
      var objectAddresses = ChunkedArray<UInt>()
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
      var wideLabels = WideLabels()
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
          let compact = wideLabels.edge(
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
      let noteCount = try count("notes", minimumSize: 16)
      var notes: [GraphNote] = []
      for note in 0..<noteCount {
        let kind = try string("notes[\(note)].kind")
        let type = try string("notes[\(note)].type")
        let description = try string("notes[\(note)].description")
        let nodeStart = offset
        let node = try u32("notes[\(note)].node")
        guard node == GraphTransfer.noIndex || Int(node) < nodeCount else {
          throw malformed("notes[\(note)].node: \(node) is not below \(nodeCount)", at: nodeStart)
        }
        notes.append(
          GraphNote(
            kind: GraphNote.Kind(rawValue: kind), node: node == GraphTransfer.noIndex ? nil : Int(node),
            typeName: type, description: description))
      }
      try expect(GraphTransfer.endMarker, "the end marker DONE")
      guard left == 0 else { throw malformed("\(left) bytes follow the end marker") }

      let storage = GraphStorage(
        typeNames: typeNames, nodeTypes: nodeTypes, nodeKinds: nodeKinds, labels: labels, edges: edges,
        wideLabels: wideLabels)
      return ObjectGraph(
        storage: storage, root: root, isTruncated: flags == 1, danglingReferences: dangling, notes: notes,
        libraryModules: libraryModules, libraryRules: libraryRules, objectAddresses: objectAddresses)
    }
  }
}
