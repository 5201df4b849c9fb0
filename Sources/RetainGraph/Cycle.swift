/// A strong retain cycle: a strongly connected component of the strong references.
public struct Cycle: Sendable, Hashable {
  /// The component's nodes, in ascending id order.
  public var members: [Node.ID]
  /// The shortest loop through the member nearest the root, starting and ending at that member.
  public var path: [Edge]
  /// The shortest path (over all references) from the root to the loop's first member; empty when
  /// the root itself is in the cycle or the cycle cannot be reached from the root.
  public var pathFromRoot: [Edge]
  /// The edge of the loop that points back toward the root: the reference to make `weak`.
  public var suggestedBreak: Edge

  /// Creates a cycle description.
  public init(members: [Node.ID], path: [Edge], pathFromRoot: [Edge], suggestedBreak: Edge) {
    self.members = members
    self.path = path
    self.pathFromRoot = pathFromRoot
    self.suggestedBreak = suggestedBreak
  }
}
