/// What is wrong with a snapshot, where, and in words: the core's public `GraphDecodingError`, case
/// for case (its `Reason` has these cases by the same names), made here where the text is read.
package struct SnapshotReadingError: Error, Sendable {
  /// What is wrong (the public reasons, by name).
  package enum Reason: String, Sendable, CaseIterable {
    case notJSON, unreadable, tooLarge, notAGraph, unsupportedVersion, missingField, wrongType
    case unknownValue, idOutOfPlace, duplicateID, unknownNode, tooManyLabels, other
  }

  /// Where the problem is.
  package enum Location: Sendable, Hashable {
    /// A field, by its path from the top level: `edges[3].to`.
    case field(String)
    /// A byte of the text, where reading stopped.
    case byteOffset(Int)
  }

  package let reason: Reason
  package let location: Location?
  /// What is wrong and where, e.g. `edges[3].to: 17 is not the id of a node`.
  package let message: String

  package init(_ reason: Reason, at location: Location?, _ message: String) {
    self.reason = reason
    self.location = location
    self.message = message
  }
}
