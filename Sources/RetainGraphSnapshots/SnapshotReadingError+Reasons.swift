/// The errors the readers throw, each with its reason, place and message.
extension SnapshotReadingError {
  /// `field: missing field`.
  package static func missingField(_ field: String) -> Self {
    Self(.missingField, at: .field(field), "\(field): missing field")
  }

  /// `field: expected …, found …`.
  package static func wrongType(_ field: String, expected: String, found: String) -> Self {
    Self(.wrongType, at: .field(field), "\(field): expected \(expected), found \(found)")
  }

  /// `field: id is not the id of a node`, and what follows.
  package static func unknownNode(_ field: String, _ id: Int, _ more: String = "") -> Self {
    Self(.unknownNode, at: .field(field), "\(field): \(id) is not the id of a node\(more)")
  }

  /// `field: unknown what "name"; expected one of …`.
  package static func unknownValue(_ field: String, _ what: String, _ name: String, known: String) -> Self {
    Self(.unknownValue, at: .field(field), "\(field): unknown \(what) \"\(name)\"; expected one of \(known)")
  }

  /// More distinct labels than compact edges can name.
  package static func tooManyLabels() -> Self {
    Self(.tooManyLabels, at: .field("edges"), "edges: more than \(1 << 29) distinct labels")
  }
}
