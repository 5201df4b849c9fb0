/// A reference from one node to another.
public struct Edge: Sendable, Hashable {
  /// The node that holds the reference.
  public var from: Node.ID
  /// The node that is referenced.
  public var to: Node.ID
  /// The path from the holder to the held object, as a person would write it: `presenter`,
  /// `items[3]`, `handlers["done"]`, `state.loading`, `greeting (closure) → capture 0`.
  public var label: String
  /// Whether the reference retains its target.
  public var ownership: Ownership

  /// The stored property of the holder that the reference is in: `items` for `items[3].owner`,
  /// `greeting` for `greeting (closure) → capture 0`; nil when the holder is a closure context (its
  /// references are captures, `capture 0`, not properties).
  public var property: String? { EdgeLabel.property(of: label) }

  /// Creates an edge.
  public init(from: Node.ID, to: Node.ID, label: String, ownership: Ownership) {
    self.from = from
    self.to = to
    self.label = label
    self.ownership = ownership
  }
}
