internal import RetainGraphFormats

extension ObjectGraph {
  /// The graph as a Mermaid flowchart: the text GitHub, GitLab and many Markdown viewers draw from a
  /// `mermaid` code block, for an issue or a pull-request comment.
  ///
  /// It draws what ``dot(style:)`` draws (the same nodes, cycles first, up to
  /// ``DrawingStyle/maxNodes``): each cycle as a group of its members, its strong references thick and
  /// coloured, the reference a fix weakens labelled `✂ break here`, weak and `unowned` references
  /// dotted. Type names are escaped (a `%%{…}%%` in a name is no directive, quotes and brackets stay
  /// in their label). Mermaid's default limits are kept: at most 500 links and 50,000 characters;
  /// what does not fit is left out, the cycles' nodes and references last, and a note box says so.
  ///
  /// ```
  /// flowchart LR
  /// %% ViewController: 1 retain cycle
  ///   subgraph cycle0 ["retain cycle 1 (2 objects)"]
  ///     n1["Presenter"]:::cycle
  ///     n2["Interactor"]:::cycle
  ///   end
  ///   n0[["ViewController"]]
  ///   n1 ==>|"interactor"| n2
  ///   n2 ==>|"output ✂ break here"| n1
  ///   n0 -->|"presenter"| n1
  ///   n1 -.->|"view (weak)"| n0
  /// ```
  /// - Parameter style: what to draw (``DrawingStyle/maxNodes``, ``DrawingStyle/cyclesOnly``, the direction).
  /// - Returns: the flowchart's text, ending with a line break.
  public func mermaid(style: DrawingStyle = DrawingStyle()) -> String {
    MermaidWriter(plan: DrawingPlan(graph: self, style: style)).text()
  }
}
