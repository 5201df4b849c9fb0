internal import RetainGraphJSONScanner

// The notes as values (`noteDetails`, beside the `notes` sentences that every reader of version 2
// knows): `{"description", "kind", "node", "type"}`, `node` optional. A reader that predates them skips
// the key; a file without them reads its `notes` as notes of kind `unknown`.

extension JSONDocument {
  struct NoteDetailRecords {
    var notes: [GraphNote] = []
    var error: GraphDecodingError?
  }

  mutating func readNoteDetail(
    _ index: Int, into records: inout NoteDetailRecords, _ scanner: inout JSONScanner
  ) throws(JSONSyntaxError) {
    guard records.error == nil else { return try scanner.skipValue() }
    let place = JSONPlace(array: "noteDetails", index: index)
    let offset = scanner.position
    guard scanner.byte(offset) == 0x7B else {
      try scanner.skipValue()
      records.error = .wrongType("\(place)", expected: "an object", found: describe(at: offset, in: scanner))
      return
    }
    var kind = JSONField<String>.missing
    var node = JSONField<Int>.missing
    var type = JSONField<String>.missing
    var description = JSONField<String>.missing
    func text(_ field: JSONField<UnsafeBufferPointer<UInt8>>) -> JSONField<String> {
      switch field {
      case .value(let bytes): .value(String(decoding: bytes, as: UTF8.self))
      case .missing: .missing
      case .wrongType(let at): .wrongType(at: at)
      case .unknown(let at): .unknown(at: at)
      case .described(let text): .described(text)
      }
    }
    try scanner.members { scanner, key throws(JSONSyntaxError) in
      if key.equals("kind") {
        kind = settled(text(try scanner.stringField()), scanner)
      } else if key.equals("node") {
        let at = scanner.position
        if scanner.byte(at) == 0x6E, try scanner.literal() == nil {
          node = .missing
        } else {
          node = settled(try scanner.integerField(), scanner)
        }
      } else if key.equals("type") {
        type = settled(text(try scanner.stringField()), scanner)
      } else if key.equals("description") {
        description = settled(text(try scanner.stringField()), scanner)
      } else {
        try scanner.skipValue()
      }
    }
    do throws(GraphDecodingError) {
      let kind = try string(kind, "kind", at: place)
      let description = try string(description, "description", at: place)
      let type: String = if case .missing = type { "" } else { try string(type, "type", at: place) }
      let node: Int? = if case .missing = node { nil } else { try integer(node, "node", at: place) }
      records.notes.append(
        GraphNote(kind: GraphNote.Kind(rawValue: kind), node: node, typeName: type, description: description))
    } catch {
      records.error = error
    }
  }

  /// The notes as values: `noteDetails` when the file has them (each node checked against the
  /// `count` nodes), otherwise each of `notes` as a note of kind `unknown`.
  func noteValues(notes texts: [String], nodeCount count: Int) throws(GraphDecodingError) -> [GraphNote] {
    guard let records = try optionalArray(noteDetails, "noteDetails") else {
      return texts.map { GraphNote(kind: .unknown, description: $0) }
    }
    if let error = records.error { throw error }
    for (index, note) in records.notes.enumerated() {
      if let node = note.node, !(0..<count).contains(node) {
        throw .unknownNode("noteDetails[\(index)].node", node)
      }
    }
    return records.notes
  }
}
