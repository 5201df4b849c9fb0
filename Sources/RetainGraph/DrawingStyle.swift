/// How every picture of a graph draws it: ``ObjectGraph/dot(style:)``, ``ObjectGraph/mermaid(style:)``,
/// the SVG, PNG and PDF, and the HTML page's drawing (one plan for every format: which nodes, the
/// node cap, the direction, the names).
///
/// ```swift
/// graph.dot()                                                  // everything, short type names, laid out by size
/// graph.dot(style: DrawingStyle(cyclesOnly: true))             // the cycles and the way to them
/// graph.mermaid(style: DrawingStyle(maxNodes: 50, rankDirection: .topToBottom))
/// ```
public struct DrawingStyle: Sendable, Hashable {
  /// The direction in which references point on the page.
  public enum RankDirection: String, Sendable, Hashable, CaseIterable {
    /// Holders on the left, held objects to their right (`rankdir=LR`).
    case leftToRight = "LR"
    /// Holders at the top, held objects below them (`rankdir=TB`).
    case topToBottom = "TB"
    /// Left to right for a small drawing (at most 12 nodes); beyond that, whichever direction keeps
    /// the picture narrower: top to bottom for a graph deeper than it is broad (a long chain), left
    /// to right for a broad one (many children per holder).
    case automatic = "auto"
  }

  /// Label nodes with fully qualified type names (`App.Presenter`) instead of short ones (`Presenter`).
  public var qualifiedTypeNames: Bool
  /// Draw only the strong cycles and the shortest path from the root to each of them.
  public var cyclesOnly: Bool
  /// The most nodes to draw; the others are collapsed into one "+N more" node per holder. `nil` draws
  /// every node.
  public var maxNodes: Int?
  /// The direction of the layout (default ``RankDirection/automatic``).
  public var rankDirection: RankDirection
  /// Draw each dangling `unowned` reference to a red "dangling" placeholder node.
  public var showsDanglingReferences: Bool

  /// Creates a style.
  /// - Parameters:
  ///   - qualifiedTypeNames: label nodes with fully qualified type names.
  ///   - cyclesOnly: draw only the cycles and the shortest path from the root to each.
  ///   - maxNodes: the most nodes to draw (at least 1), or `nil` for all of them.
  ///   - rankDirection: the direction of the layout.
  ///   - showsDanglingReferences: draw dangling `unowned` references to a placeholder node.
  public init(
    qualifiedTypeNames: Bool = false,
    cyclesOnly: Bool = false,
    maxNodes: Int? = nil,
    rankDirection: RankDirection = .automatic,
    showsDanglingReferences: Bool = true
  ) {
    self.qualifiedTypeNames = qualifiedTypeNames
    self.cyclesOnly = cyclesOnly
    self.maxNodes = maxNodes
    self.rankDirection = rankDirection
    self.showsDanglingReferences = showsDanglingReferences
  }
}
