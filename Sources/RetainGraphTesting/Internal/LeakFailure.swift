internal import RetainGraph

/// A failed check: the text to report and the graphs that explain it, attached to the issue.
struct LeakFailure {
  /// What failed and why (cycles, paths, fixes), without the rendering hint.
  var message: String
  /// Graphs to attach, each with a name that says whose graph it is.
  var graphs: [(name: String, graph: ObjectGraph)] = []

  /// The message, followed by where the graphs are and how to draw them.
  var fullText: String {
    guard !graphs.isEmpty else { return message }
    return message + "\n\n" + GraphAttachment.hint(for: graphs.map(\.name))
  }

  /// Reports the failure at `site`, attaching the graphs in Swift Testing.
  func record(at site: CallSite, context: String = "") {
    let text = context.isEmpty ? fullText : "\(context)\n\(fullText)"
    recordIssue(
      text, attachments: graphs.flatMap { GraphAttachment.make($0.graph, named: $0.name) }, at: site)
  }
}
