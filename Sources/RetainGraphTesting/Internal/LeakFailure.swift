internal import RetainGraph

/// A failed check: the text to report and the graphs that explain it, saved or attached with the issue.
struct LeakFailure {
  /// What failed and why (cycles, paths, fixes), without the rendering hint.
  var message: String
  /// Graphs to save, each with a name that says whose graph it is.
  var graphs: [(name: String, graph: ObjectGraph)] = []
  /// Nodes to mark on the graphs' HTML pages (the holders that grow), by graph name.
  var marks: [String: [GraphAttachment.Mark]] = [:]

  /// The message, followed by where the graphs are and how to draw them: the description of the
  /// failure a `check…` function returns (it writes the graphs to the artifacts folder when one is
  /// set, and attaches nothing).
  var fullText: String {
    let hint = GraphAttachment.hint(
      for: GraphAttachment.files(for: graphs, marks: marks, at: nil), attached: false)
    return hint.isEmpty ? message : message + "\n\n" + hint
  }

  /// Reports the failure at `site`: writes the graphs to the artifacts folder when one is set, and
  /// attaches them in Swift Testing. `testName` names the files when the caller knows the test.
  func record(at site: CallSite, context: String = "", testName: String? = nil) {
    let files = GraphAttachment.files(for: graphs, marks: marks, at: site, testName: testName)
    let (hint, pages) = GraphAttachment.save(files, attached: isInSwiftTesting)
    let text = hint.isEmpty ? message : message + "\n\n" + hint
    recordIssue(context.isEmpty ? text : "\(context)\n\(text)", attachments: files + pages, at: site)
  }
}
