public import RetainGraph

/// A leak check that failed, as a value: what the `check…` functions return (nil when the check
/// holds), to build your own assertions on.
///
/// ```swift
/// if let failure = checkNoLeaks { ProfileModule.make(user: .preview) } {
///   print(failure)          // the text assertNoLeaks reports
///   failure.graphs          // the graphs it explains
/// }
/// ```
public struct LeakCheckFailure: Error, CustomStringConvertible, Sendable {
  /// The failure text, as the matching `assert…` reports it: what failed and why (the cycles,
  /// paths and fixes), and where the graphs are and how to draw them when an artifacts folder is
  /// set (`RETAIN_GRAPH_ARTIFACTS`).
  public let description: String
  /// The graphs the failure explains (the graph from the root, or a survivor's), in the order the
  /// text names them; empty when it explains none (too few iterations, no census).
  public let graphs: [ObjectGraph]

  /// A failure of a check made in this package: its full text and its graphs.
  init(_ failure: LeakFailure) {
    self.init(description: failure.fullText, graphs: failure.graphs.map(\.graph))
  }

  /// A failure with its text and graphs.
  init(description: String, graphs: [ObjectGraph]) {
    self.description = description
    self.graphs = graphs
  }
}
