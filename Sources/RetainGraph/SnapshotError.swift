/// A graph snapshot (JSON, or parts given to ``ObjectGraph/init(nodes:edges:root:isTruncated:danglingReferences:notes:)``)
/// that cannot be read. The message names what is wrong and where.
public struct SnapshotError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What is wrong and where, e.g. `edges[3].to: 17 is not the id of a node`.
  public var message: String

  /// Creates an error with a message that names what is wrong and where.
  public init(_ message: String) { self.message = message }

  public var description: String { "invalid graph snapshot: \(message)" }
}
