internal import RetainGraphJSONScanner

// The notes as values (`noteDetails`, beside the `notes` sentences that every reader of version 2
// knows): `{"description", "kind", "node", "type"}`, `node` optional. A reader that predates them skips
// the key; a file without them reads its `notes` as notes of kind `unknown`.

extension JSONDocument {
  typealias NoteDetailRecords = OptionalRecords<SnapshotNote>

  mutating func readNoteDetail(
    _ index: Int, into records: inout NoteDetailRecords, _ scanner: inout JSONScanner
  ) throws(JSONSyntaxError) {
    var kind = JSONField<String>.missing
    var node = JSONField<Int>.missing
    var type = JSONField<String>.missing
    var description = JSONField<String>.missing
    try readObject(index, of: "noteDetails", into: &records, &scanner) {
      document, scanner, key throws(JSONSyntaxError) in
      if key.equals("kind") {
        kind = try document.text(&scanner)
      } else if key.equals("node") {
        node = try document.optionalInteger(&scanner)
      } else if key.equals("type") {
        type = try document.text(&scanner)
      } else if key.equals("description") {
        description = try document.text(&scanner)
      } else {
        try scanner.skipValue()
      }
    } value: { document, _, place throws(SnapshotReadingError) in
      let kind = try document.string(kind, "kind", at: place)
      let description = try document.string(description, "description", at: place)
      let type: String = if case .missing = type { "" } else { try document.string(type, "type", at: place) }
      let node: Int? = if case .missing = node { nil } else { try document.integer(node, "node", at: place) }
      return SnapshotNote(kind: kind, node: node, typeName: type, description: description)
    }
  }

  /// The notes as values: `noteDetails` when the file has them (each node checked against the
  /// `count` nodes), nil without them (the core then reads each of `notes` as a note of kind
  /// `unknown`).
  func noteValues(nodeCount count: Int) throws(SnapshotReadingError) -> [SnapshotNote]? {
    guard let records = try optionalArray(noteDetails, "noteDetails") else { return nil }
    if let error = records.error { throw error }
    for (index, note) in records.values.enumerated() {
      if let node = note.node, !(0..<count).contains(node) {
        throw .unknownNode("noteDetails[\(index)].node", node)
      }
    }
    return records.values
  }
}
