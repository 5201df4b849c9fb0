/// A graph that cannot be read: JSON given to ``ObjectGraph/init(jsonData:)``, or parts given to
/// ``ObjectGraph/init(nodes:edges:root:isTruncated:danglingReferences:notes:libraryModules:)``.
/// The message names what is wrong and where.
public struct GraphDecodingError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What is wrong and where, e.g. `edges[3].to: 17 is not the id of a node`.
  public var message: String

  /// Creates an error with a message that names what is wrong and where.
  public init(_ message: String) { self.message = message }

  public var description: String { "invalid graph: \(message)" }
}

/// The former name of ``GraphDecodingError``.
@available(*, deprecated, renamed: "GraphDecodingError")
public typealias SnapshotError = GraphDecodingError
