internal import RetainGraphRuntime

/// A heap object, closure context or value-type root in an ``ObjectGraph``.
public struct Node: Sendable, Hashable {
  /// A node's index in ``ObjectGraph/nodes``. The root is 0; ids are assigned in walk order.
  public typealias ID = Int

  /// What kind of thing a node stands for.
  public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
    /// A class instance (or actor).
    case object
    /// A closure's context: the heap object that holds what a closure captured.
    case closure
    /// The root, when the root is a value type (a struct, enum or tuple) rather than an object.
    case value
    /// A task of Swift concurrency (`Task`, `async let`, a task group's task), named by the closure
    /// it runs: `task (closure #1 in App.Poller.start())`. Until it finishes it holds its
    /// closure's context, and while suspended, what its frames hold.
    case task
  }

  /// The node's position in ``ObjectGraph/nodes``.
  public let id: ID
  /// The fully qualified type name (`App.Presenter`), or for a closure the function it runs when
  /// known (`closure #1 in App.Person.greeting.getter`); for a task, `task (` and the closure it
  /// runs `)`.
  public let typeName: String
  /// Whether this is an object, a closure context or a value root.
  public let kind: Kind

  /// Creates a node.
  public init(id: ID, typeName: String, kind: Kind) {
    self.id = id
    self.typeName = typeName
    self.kind = kind
  }

  /// The type name without module qualifiers (`Presenter`, `Array<Item>`).
  public var shortTypeName: String { TypeNames.short(typeName) }
}
