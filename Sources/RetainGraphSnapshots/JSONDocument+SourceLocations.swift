internal import RetainGraphJSONScanner

// Where the fixes' declarations are written (`sourceLocations`): `{"declaration", "file", "line",
// "column"}`, `column` optional, one per declaration a cycle's fix edits (a stored property, a
// closure), by its key (`property App.Interactor.output`, `closure closure #1 in App.Screen.init()`).
// A reader that predates them skips the key; a graph read from a file without them has no locations
// (the reading binary's debug information is not asked: the file was made by another).

extension JSONDocument {
  typealias SourceLocationRecords = OptionalRecords<SnapshotLocation>

  mutating func readSourceLocation(
    _ index: Int, into records: inout SourceLocationRecords, _ scanner: inout JSONScanner
  ) throws(JSONSyntaxError) {
    var declaration = JSONField<String>.missing
    var file = JSONField<String>.missing
    var line = JSONField<Int>.missing
    var column = JSONField<Int>.missing
    try readObject(index, of: "sourceLocations", into: &records, &scanner) {
      document, scanner, key throws(JSONSyntaxError) in
      if key.equals("declaration") {
        declaration = try document.text(&scanner)
      } else if key.equals("file") {
        file = try document.text(&scanner)
      } else if key.equals("line") {
        line = document.settled(try scanner.integerField(), scanner)
      } else if key.equals("column") {
        column = try document.optionalInteger(&scanner)
      } else {
        try scanner.skipValue()
      }
    } value: { document, _, place throws(SnapshotReadingError) in
      let key = try document.string(declaration, "declaration", at: place)
      guard document.isDeclarationKey(key) else {
        throw .wrongType(
          "\(place).declaration",
          expected: "\"property Type.name\" or \"closure name\"",
          found: "\"\(key)\"")
      }
      let file = try document.string(file, "file", at: place)
      guard !file.isEmpty else {
        throw .wrongType("\(place).file", expected: "a path", found: "\"\"")
      }
      let line = try document.integer(line, "line", at: place)
      guard line >= 1 else {
        throw .wrongType("\(place).line", expected: "a line number from 1", found: "\(line)")
      }
      let column: Int? =
        if case .missing = column { nil } else { try document.integer(column, "column", at: place) }
      if let column, column < 1 {
        throw .wrongType("\(place).column", expected: "a column number from 1", found: "\(column)")
      }
      return SnapshotLocation(declaration: key, file: file, line: line, column: column)
    }
  }

  /// The locations `sourceLocations` gives, in the order of the text (none without it).
  func sourceLocationValues() throws(SnapshotReadingError) -> [SnapshotLocation] {
    guard let records = try optionalArray(sourceLocations, "sourceLocations") else { return [] }
    if let error = records.error { throw error }
    return records.values
  }
}
