internal import RetainGraph

/// What a failure attaches for a graph, and how its message says to draw it: the graph's DOT text
/// (`NAME.dot`) and its JSON snapshot (`NAME.json`), which `retain-graph render` draws.
enum GraphAttachment {
  /// An attachment's file name and text.
  struct File {
    var name: String
    var contents: String
  }

  static func make(_ graph: ObjectGraph, named base: String) -> [File] {
    var files = [File(name: "\(base).dot", contents: graph.dot())]
    if let json = try? graph.jsonData() {
      files.append(File(name: "\(base).json", contents: String(decoding: json, as: UTF8.self)))
    }
    return files
  }

  /// Where the graphs are and how to draw one.
  static func hint(for names: [String]) -> String {
    let files = names.map { "`\($0).dot`" }.joined(separator: ", ")
    let snapshot = names.first.map { "\($0).json" } ?? "snapshot.json"
    return "Graph: attached to this issue as \(files), with a JSON snapshot of each (Swift Testing). "
      + "To draw it, save the snapshot and run: retain-graph render \(snapshot) --format svg --output graph.svg"
  }
}
