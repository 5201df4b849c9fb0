public import RetainGraph

/// A node the HTML page marks, and why: the holder that grows in a growth failure, say.
///
/// ```swift
/// let page = try graph.htmlPage(marking: [HTMLMark(node: 3, note: "EventBus.observers grows by 1 per run")])
/// ```
public struct HTMLMark: Sendable, Hashable {
  /// The marked node.
  public var node: Node.ID
  /// Why it is marked, shown beside it in the page's list of marked nodes.
  public var note: String

  /// Creates a mark.
  /// - Parameters:
  ///   - node: the id of the node to mark.
  ///   - note: why it is marked.
  public init(node: Node.ID, note: String) {
    self.node = node
    self.note = note
  }
}
