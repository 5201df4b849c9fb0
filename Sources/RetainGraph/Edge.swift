/// A reference from one node to another.
public struct Edge: Sendable, Hashable {
  /// The node that holds the reference.
  public let from: Node.ID
  /// The node that is referenced.
  public let to: Node.ID
  /// The path from the holder to the held object, as a person would write it: `presenter`,
  /// `items[3]`, `handlers["done"]`, `state.loading`, `greeting (closure) → capture 0`.
  ///
  /// The label is for people: to tell what kind of reference an edge is, use ``kind``, and
  /// ``property`` for the stored property it is in.
  public let label: String
  /// Whether the reference retains its target.
  public let ownership: Ownership
  /// How the reference is stored in its holder: a stored property, a collection's element, a
  /// closure, a closure's capture, a method reference…
  public let kind: Kind
  /// The stored property of the holder that the reference is in: `items` for `items[3].owner`,
  /// `greeting` for `greeting (closure) → capture 0`; nil when the holder is a closure context (its
  /// references are captures, `capture 0`, not properties).
  public let property: String?
  /// The function a closure stored at the path was written in, as the runtime names it
  /// (`closure #1 in App.Screen.init()`), for ``Kind/closure`` and ``Kind/singleCapture`` edges
  /// the walk could name; nil otherwise. (A ``Kind/closure`` edge's target node has the same name;
  /// a ``Kind/singleCapture`` closure has no node of its own, so this is where its name is.)
  public let closureFunction: String?

  /// How a reference is stored in its holder (what LeakCanary calls a reference type).
  ///
  /// New cases may be added in a minor version (a task's references are the next ones): a
  /// `switch` over a kind needs a `default:`.
  public enum Kind: Sendable, Hashable, Codable {
    /// A stored property, or a path of stored properties through values (struct fields, tuple
    /// elements, optionals, existentials, a ``GraphReflectable`` type's children): `presenter`,
    /// `pair.1`, `config.owner`.
    case property
    /// A path through an enum case's payload (and no collection): `state.loading`,
    /// `list.node.0`.
    case enumPayload
    /// A path through a collection's element or a dictionary's entry: `items[3]`,
    /// `handlers["done"]`, `items[3].owner`, `cache["key"].key`.
    case element
    /// A closure's context, stored at the path; the target is a closure node:
    /// `greeting (closure)`.
    case closure
    /// A closure stored at the path whose only capture is the target, which is then the
    /// closure's context itself: `greeting (closure) → capture 0`.
    case singleCapture
    /// A method reference (`completion = handleResponse`) stored at the path: a closure whose
    /// context is the method's object. `method` is the method's name, `UseCase.handleResponse(_:)`:
    /// `completion (method UseCase.handleResponse(_:))`.
    case methodReference(method: String)
    /// A closure context's capture number `index` (or a path inside it); the holder is a closure
    /// node: `capture 0`, `capture 1.owner`.
    case capture(index: Int)
    /// A closure context's capture number `index` that is the actor the closure runs on: an
    /// actor-isolated closure holds its actor as its isolation (`(any Actor)?`) beside its `self`
    /// capture, and `[weak self]` removes both: `capture 0 (actor isolation)`.
    case actorIsolation(index: Int)
    /// A global or static variable (the heap census's searches start from these): its name.
    case global
    /// A word of a suspended task's frames equal to the target's address; the holder is a task
    /// node: `suspended frame`.
    case suspendedFrame
  }

  /// Creates an edge.
  /// - Parameters:
  ///   - from: the holder.
  ///   - to: the referenced node.
  ///   - label: the path from the holder, as ``label`` describes it.
  ///   - ownership: whether the reference retains its target.
  ///   - kind: how the reference is stored.
  ///   - property: the holder's stored property the reference is in (nil in a closure context).
  ///   - closureFunction: the function the closure stored at the path was written in, for a
  ///     closure or single-capture edge.
  public init(
    from: Node.ID, to: Node.ID, label: String, ownership: Ownership, kind: Kind, property: String?,
    closureFunction: String? = nil
  ) {
    self.from = from
    self.to = to
    self.label = label
    self.ownership = ownership
    self.kind = kind
    self.property = property
    self.closureFunction = closureFunction
  }
}
