/// A graph that cannot be read: JSON given to ``ObjectGraph/init(jsonData:)``, or parts given to
/// ``ObjectGraph/init(nodes:edges:root:isTruncated:danglingReferences:notes:libraryModules:)``.
/// The message names what is wrong and where; ``reason`` and ``location`` say the same as values.
///
/// ```swift
/// do {
///   graph = try ObjectGraph(jsonData: data)
/// } catch {
///   switch error.reason {
///   case .notJSON, .unreadable: print("not a file to read")
///   case .unknownNode: print("\(error.location?.description ?? "an id") names no node")
///   default: print(error)  // invalid graph: edges[3].to: 17 is not the id of a node
///   }
/// }
/// ```
public struct GraphDecodingError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What is wrong, as a value a caller can switch on. New cases may be added in a minor version.
  public enum Reason: String, Sendable, Hashable, CaseIterable {
    /// The text is not JSON (a syntax error, or an encoding that is no JSON's).
    case notJSON
    /// The file could not be read to its end.
    case unreadable
    /// One value, or a text in UTF-16 or UTF-32, is larger than the reader takes.
    case tooLarge
    /// The JSON is not a graph: its top level is not an object, or its `format` names another format.
    case notAGraph
    /// The file's `version` is one this reader does not understand.
    case unsupportedVersion
    /// A field that must be there is not.
    case missingField
    /// A field holds a value of another type than it takes (a string for an integer…).
    case wrongType
    /// A field names a value that does not exist: an unknown node or edge kind, or ownership.
    case unknownValue
    /// A node's id is not its place: out of range, or not equal to its index.
    case idOutOfPlace
    /// Two nodes have the same id.
    case duplicateID
    /// An id names no node: the root, an edge's end, a dangling reference's holder, a note's node.
    case unknownNode
    /// The edges have more distinct labels than a graph can hold.
    case tooManyLabels
    /// An error made from a message alone (``init(_:)``).
    case other
  }

  /// Where the problem is.
  public enum Location: Sendable, Hashable, CustomStringConvertible {
    /// A field, by its path from the top level: `edges[3].to`, `format`, `nodes`.
    case field(String)
    /// A byte of the text (counted from 0, after a byte order mark), where reading stopped.
    case byteOffset(Int)

    /// The field's path, or `byte N`.
    public var description: String {
      switch self {
      case .field(let path): path
      case .byteOffset(let offset): "byte \(offset)"
      }
    }
  }

  /// What is wrong and where, e.g. `edges[3].to: 17 is not the id of a node`.
  public var message: String
  /// What is wrong; ``Reason/other`` for an error made from a message alone.
  public let reason: Reason
  /// Where the problem is, when the reader knows: a field's path or a byte of the text.
  public let location: Location?

  /// Creates an error with a message that names what is wrong and where (its reason is
  /// ``Reason/other``, its location nil).
  public init(_ message: String) {
    self.init(.other, at: nil, message)
  }

  /// Creates an error with its reason, its location and the message that says both.
  /// - Parameters:
  ///   - reason: what is wrong.
  ///   - location: where, when known.
  ///   - message: what is wrong and where, in words.
  public init(_ reason: Reason, at location: Location?, _ message: String) {
    self.message = message
    self.reason = reason
    self.location = location
  }

  public var description: String { "invalid graph: \(message)" }

  /// Whether two errors have the same message (the message says the reason and the place, so an
  /// error made from its message alone, as before reasons existed, equals the one the reader throws).
  public static func == (lhs: GraphDecodingError, rhs: GraphDecodingError) -> Bool {
    lhs.message == rhs.message
  }
}
