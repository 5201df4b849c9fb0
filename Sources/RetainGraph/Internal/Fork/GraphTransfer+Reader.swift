internal import RetainGraphStorage
internal import RetainGraphSupport

extension ColumnReader {
  /// A label as ``ColumnWriter/append(label:)`` wrote it, named `place` in messages.
  mutating func label(_ place: String) throws(ColumnReadError) -> ReferencePath {
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

  /// Reads the bytes ``GraphTransfer/encode(_:)`` wrote, checking each count, index and string
  /// (the columns through ``ColumnReader``'s checked reads), and computes the graph's cycles.
  /// ``GraphTransfer/decode(_:libraryModules:libraryRules:)`` maps a failure to
  /// ``ForkedWalkError/malformedData(_:)``.
  mutating func graph(
    libraryModules: Set<String>, libraryRules: [LibraryRule] = []
  ) throws(ColumnReadError) -> ObjectGraph {
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

    let (edges, wideLabels) = try edges(nodeCount: nodeCount, labelCount: labels.count)

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
